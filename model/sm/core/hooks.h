// Extension points (c), (d), (e), (g), (i) of the SM (docs/sm.md "Extension points"):
// plain C++ interfaces the Sm calls. Each has a baseline that reproduces the
// SM's behaviour without any hook installed; installing the baseline objects
// explicitly gives identical cycles (tests/sm_core/test_hooks.cpp). A
// mechanism installs them in one bundle (SmHooks, sm_hooks.h, with the rules
// for two mechanisms' hooks on one SM); the Sm does not own them and they
// must outlive it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "func/stepper.h"
#include "func/launch.h"
#include "sm/issue/scheduler.h"

namespace rfsim::sm {

// (c) Per-warp register allocation at block launch. When a block is launched
// the Sm first asks canLaunch (besides its occupancy limits), then calls
// allocate once per warp of the block; the base it returns is fed to the
// operand collector's BaseIndexTranslator (setBase(warp_slot, base)). A
// mechanism with its own RegTranslator reads the bases from its allocator.
// release is called when the warp slot is freed (the warp has exited and
// nothing of it is in flight).
class WarpRegAllocator {
 public:
  virtual ~WarpRegAllocator() = default;
  // May a block of `num_warps` warps of `regs_per_thread` registers per thread
  // be launched now? Called by Sm::canLaunch after the occupancy checks passed.
  // It must say yes on an SM with no resident block, or the kernel never ends.
  virtual bool canLaunch(uint32_t num_warps, uint32_t regs_per_thread) = 0;
  // Gives warp `warp_slot` (warp `local_warp` of the block in block slot
  // `block_slot`) its register region; false = no room (the Sm then releases
  // what it allocated for the block and throws rfsim::Error: canLaunch must
  // not promise more than allocate keeps).
  virtual bool allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t regs_per_thread,
                        uint32_t& base) = 0;
  virtual void release(uint32_t warp_slot) = 0;
  // May warp `warp_slot` issue yet? A unit that writes the warp's base into
  // hardware state (the rename unit of the index path, one launch operation
  // per cycle) may need cycles after allocate. A warp refused here stalls as
  // Scoreboard (its registers are not usable yet) and counts one warp-cycle
  // in SmStats::regalloc_stalls.
  virtual bool ready(uint32_t warp_slot) const {
    (void)warp_slot;
    return true;
  }
  // The stall a warp ready() refuses reports: Scoreboard by default (it
  // waits for its registers); Barrier for a wait on other warps (flags
  // other warps set), which the two-level scheduler demotes like a barrier
  // (sm.barrier_demotes) so that the warps it waits for can enter the pool.
  virtual Stall waitStall(uint32_t warp_slot) const {
    (void)warp_slot;
    return Stall::Scoreboard;
  }
  // Idle-cycle skipping (Sm::nextActiveCycle): the first cycle after `now`
  // at which ready() may answer differently without anything else in the
  // SM happening first; UINT64_MAX: only after such an event. The default,
  // `now`, cannot tell and keeps the SM ticking every cycle.
  virtual uint64_t nextEventCycle(uint64_t now) const { return now; }
  // Its state in words, for the SM's deadlock report (Sm::dumpState): e.g.
  // the warps it keeps waiting for registers. Empty: nothing to say.
  virtual std::string describe() const { return {}; }
};

// Baseline: each warp slot owns the contiguous rows [slot * regs_per_thread,
// (slot + 1) * regs_per_thread) -- exactly the base the SM always used. No
// rounding to regfile.alloc_granularity: occupancy (backend/occupancy.h)
// already applies the granularity to decide how many blocks fit, and rounding
// the base would move rows and change banks under BankIndex::kTranslated.
// canLaunch always agrees (the occupancy limits are checked before it).
class BaselineRegAllocator final : public WarpRegAllocator {
 public:
  bool canLaunch(uint32_t, uint32_t) override { return true; }
  bool allocate(uint32_t, uint32_t warp_slot, uint32_t, uint32_t regs_per_thread, uint32_t& base) override {
    base = warp_slot * regs_per_thread;
    return true;
  }
  void release(uint32_t) override {}
};

// (d) Issue gate, consulted per warp and cycle once the warp's next
// instruction is decoded (not at a barrier, I-buffer not empty), before the
// scoreboard and the collector are checked, i.e. before the scheduler sees the
// warp as ready -- but only for the instructions it flagged: flags() is asked
// once per instruction a warp reaches (calls, prefetches, barriers, ...), and
// an unflagged instruction costs the gate nothing. Of those, mayIssue() is
// asked only about the ones mayRefuse() names (asked once per instruction
// too): a gate that flags every instruction to hear of it at issue (a
// liveness vector) but holds warps at a few (interval entries) costs the
// others no call per cycle. A refused warp reports refusal() as its stall reason (the
// scheduler's Stall enum has no Gate reason; the default, Scoreboard, is the
// nearest: the warp waits for registers) and counts one warp-cycle in
// SmStats::gate_stalls. issued() is called when a flagged instruction issues.
class IssueGate {
 public:
  virtual ~IssueGate() = default;
  virtual bool flags(const func::DInstr& next) const {
    (void)next;
    return true;
  }
  // Whether mayIssue() may refuse flagged instruction `next`; if not, it is
  // not asked and the instruction may issue.
  virtual bool mayRefuse(const func::DInstr& next) const {
    (void)next;
    return true;
  }
  virtual bool mayIssue(uint32_t warp_slot, const func::DInstr& next, uint64_t now) = 0;
  // As WarpRegAllocator::nextEventCycle, for mayIssue().
  virtual uint64_t nextEventCycle(uint64_t now) const { return now; }
  // `info`: what the instruction did (it executed at issue).
  virtual void issued(uint32_t warp_slot, const func::DInstr& instr, const func::StepInfo& info, uint64_t now) {
    (void)warp_slot, (void)instr, (void)info, (void)now;
  }
  virtual Stall refusal() const { return Stall::Scoreboard; }
  // Whether a flagged instruction `d` ends its warp's issue in the cycle
  // (no dual issue after it): yes by default, since a state change the gate
  // makes at issue (a rename unit's frame pointers) takes effect at the end
  // of the cycle. A gate that only observes (a liveness vector it keeps)
  // says no.
  virtual bool holdsPair(const func::DInstr& d) const {
    (void)d;
    return true;
  }
  // Its state in words, for the SM's deadlock report (Sm::dumpState): why
  // warps wait at it. Empty: nothing to say.
  virtual std::string describe() const { return {}; }
};

// Several mechanisms' gates on one SM (SmHooks::gates): an instruction is
// flagged when any gate flags it, and issues only when every gate that
// flags it agrees; each hears only of the instructions it flagged. A
// refusal reports the refusing gate's reason. A gate that agrees must not
// take the instruction as issued (a later gate may refuse it, and the warp
// asks again): issued() says when it did.
class IssueGateChain final : public IssueGate {
 public:
  void add(IssueGate* g) { gates_.push_back(g); }
  bool flags(const func::DInstr& next) const override {
    for (IssueGate* g : gates_)
      if (g->flags(next)) return true;
    return false;
  }
  bool mayRefuse(const func::DInstr& next) const override {
    for (IssueGate* g : gates_)
      if (g->flags(next) && g->mayRefuse(next)) return true;
    return false;
  }
  bool mayIssue(uint32_t warp_slot, const func::DInstr& next, uint64_t now) override {
    for (IssueGate* g : gates_)
      if (g->flags(next) && g->mayRefuse(next) && !g->mayIssue(warp_slot, next, now)) {
        refusal_ = g->refusal();
        return false;
      }
    return true;
  }
  uint64_t nextEventCycle(uint64_t now) const override {
    uint64_t n = UINT64_MAX;
    for (IssueGate* g : gates_) n = std::min(n, g->nextEventCycle(now));
    return n;
  }
  void issued(uint32_t warp_slot, const func::DInstr& instr, const func::StepInfo& info, uint64_t now) override {
    for (IssueGate* g : gates_)
      if (g->flags(instr)) g->issued(warp_slot, instr, info, now);
  }
  Stall refusal() const override { return refusal_; }
  bool holdsPair(const func::DInstr& d) const override {
    for (IssueGate* g : gates_)
      if (g->flags(d) && g->holdsPair(d)) return true;
    return false;
  }
  std::string describe() const override {
    std::string s;
    for (IssueGate* g : gates_) s += g->describe();
    return s;
  }

 private:
  std::vector<IssueGate*> gates_;
  Stall refusal_ = Stall::Scoreboard;
};

// Baseline: every warp may issue.
class OpenIssueGate final : public IssueGate {
 public:
  bool mayIssue(uint32_t, const func::DInstr&, uint64_t) override { return true; }
};

// (e) Called when a warp slot is filled at block launch, once per warp of
// every block, in local-warp order, after the slot's registers were
// allocated. Returns the warp's role tag, carried in the slot: shown by the
// trace (Sm::setTraceSlot) and dumpState, and SmStats::warp_instrs_by_role
// counts issued warp instructions per role (roles >= kMaxWarpRoles count in
// the last entry). onWarpExit is called when the slot is freed.
// startPc, called right after onWarpLaunch, may start the warp somewhere other
// than the kernel's entry (per-warp roles running different code):
// a flat pc of the kernel, e.g. `stepper.pcOfLabel("$L__BB0_3")`; kEntryPc =
// the entry. The stepper checks the pc (func::BlockExecutor::setStartPc).
inline constexpr uint32_t kMaxWarpRoles = 8;
inline constexpr uint32_t kEntryPc = UINT32_MAX;

class WarpLaunchHook {
 public:
  virtual ~WarpLaunchHook() = default;
  virtual uint32_t onWarpLaunch(uint32_t warp_slot, rt::Dim3 ctaid, uint32_t local_warp) = 0;
  virtual uint32_t startPc(uint32_t warp_slot, const func::BlockStepper& block, uint32_t local_warp) {
    (void)warp_slot, (void)block, (void)local_warp;
    return kEntryPc;
  }
  virtual void onWarpExit(uint32_t warp_slot) { (void)warp_slot; }
};

// Baseline: every warp has role 0.
class NoRoleLaunchHook final : public WarpLaunchHook {
 public:
  uint32_t onWarpLaunch(uint32_t, rt::Dim3, uint32_t) override { return 0; }
};

// (g) Events of the warps' SIMT stacks and of the SM's blocks, told to every
// installed observer (SmHooks::events; any number, in installation order),
// in the cycle they happen. Calls and returns are seen at issue, where the
// instruction executes functionally (func::StepInfo): what a register stack
// in the register file needs to move its frame pointers -- a call sets them after
// the gate (IssueGate, flagging calls) admitted it; a frame release, not
// the ret itself, restores them, because a divergent return ends its frame
// only with the last lanes (the SIMT stack pops back to the entry marked by
// the call's function-call bit). Observers change nothing in the SM, so
// idle-cycle skipping stays on (an event only happens in a tick that
// issues or retires).
class SmEventHook {
 public:
  virtual ~SmEventHook() = default;
  // Warp `warp_slot` issued `call` and entered function `callee`
  // (func::Program::functions() index); `depth`: its call frames now (the
  // kernel's is 1). Calls to built-ins (no frame) are not told.
  virtual void onCall(uint32_t warp_slot, const func::DInstr& call, uint32_t callee, uint32_t depth, uint64_t now) {
    (void)warp_slot, (void)call, (void)callee, (void)depth, (void)now;
  }
  // Warp `warp_slot` issued a ret with some lanes executing it (a ret from
  // the kernel is an exit and is not told).
  virtual void onReturn(uint32_t warp_slot, const func::DInstr& ret, uint32_t depth, uint64_t now) {
    (void)warp_slot, (void)ret, (void)depth, (void)now;
  }
  // `released` call frames of warp `warp_slot` ended in this step; `depth`:
  // its frames now.
  virtual void onFrameRelease(uint32_t warp_slot, uint32_t released, uint32_t depth, uint64_t now) {
    (void)warp_slot, (void)released, (void)depth, (void)now;
  }
  // A block retired from this SM (its last warp's slot was freed). The SM-
  // wide "first block done" flag of a launch is Sm::blocksRetired() > 0.
  virtual void onBlockRetired(rt::Dim3 ctaid, uint64_t now) { (void)ctaid, (void)now; }
  // sim.parallel_sms: the phase at the end of a quantum, SM by SM in SM
  // order, no SM running (Sm::endQuantum). A hook whose mechanism keeps
  // state shared by all SMs updates it here with what its SM did in the
  // quantum, so that no SM sees another's doings inside one, whatever the
  // order or the threads they are stepped on.
  virtual void onQuantumEnd() {}
};

// (j) Instruction observers (SmHooks::observers; any number): told of
// every warp instruction the SM issues, with the warp's functional state
// just before and just after it executes -- register r of the warp is
// `w.reg(cols.ofAny(r))` (its row under a register translator) for every
// register the instruction lists. For analyses of values (which
// warp-instructions repeat another's operands in their block, which produce
// affine values); they change nothing, except
// that one may elide the instruction it just saw (elided()).
class InstrObserver {
 public:
  virtual ~InstrObserver() = default;
  virtual void before(uint32_t warp_slot, const func::BlockStepper& block, uint32_t local_warp,
                      const func::DInstr& d, const func::Warp& w, const func::MachineColumns& cols) {
    (void)warp_slot, (void)block, (void)local_warp, (void)d, (void)w, (void)cols;
  }
  virtual void after(uint32_t warp_slot, const func::DInstr& d, const func::StepInfo& info, const func::Warp& w,
                     const func::MachineColumns& cols) {
    (void)warp_slot, (void)d, (void)info, (void)w, (void)cols;
  }
  // Asked right after after(): the instruction just observed is free in the
  // timing model (a machine that skips it: redundant instructions, affine
  // ones). It has executed (the values are right), but takes no
  // issue slot, register-file read, collector, unit or scoreboard entry, is
  // not counted as a warp instruction issued, and the warp's next
  // instruction may issue in the same cycle. The observer counts it.
  virtual bool elided() const { return false; }
  // Asked right after after() when no observer elided it: the instruction
  // runs on the SM's scalar pipeline (a baseline with one for operations
  // whose operands are the same in every lane). It
  // issues, collects its operands (they are in the vector registers) and is
  // written back as any, but executes on one of the scalar pipelines (one
  // per scheduler) instead of its unit, with its class latency, as one lane
  // (one thread instruction in SmStats::thread_instrs_by_unit).
  virtual bool scalar() const { return false; }
  // Asked right after after() when no observer elided it: cycles the
  // instruction's unit adds to its latency inside its pipeline (a stage of
  // the unit, e.g. an adder in the LD/ST unit's address path); the unit
  // still accepts the next instruction at its initiation interval and the
  // operand collector is not held for them. Summed over the observers.
  virtual uint32_t addedLatency() const { return 0; }
};

// (i) Traps: a mechanism makes a warp run memory operations of its own --
// spills of registers to local memory and fills back (a trap when a warp's
// register stack in the register file overflows or underflows) -- with
// Sm::trap. The operations are real: each is a 4-byte-per-lane local store
// or load that reads or writes its register through the register-file banks
// and the scoreboard, goes through the LDST unit into the memory system
// (the L1D counts it as a local store or load) and takes its latency.
// They issue, one per issue slot the warp wins, before the warp's next
// instruction; the warp goes on only when all of them completed (a trap
// handler returns when its work is done). The values do not move in the
// functional model: a mechanism whose functional state goes through its
// hardware moves them itself, in TrapListener::trapOpDone.
struct TrapOp {
  static constexpr uint32_t kNoRow = UINT32_MAX;
  bool store = true;      // true: spill (st.local of `reg`); false: fill (ld.local into `reg`)
  uint16_t reg = 0;       // the register (as the warp names it: the translator renames it)
  uint32_t offset = 0;    // byte offset in each thread's local memory (the L1D interleaves it per warp)
  uint32_t cookie = 0;    // the mechanism's own tag, given back in trapOpDone
  // A physical register-file row instead of `reg` (a register the warp does
  // not name now: a spilled call frame). Such an operation waits until none
  // of the warp's own instructions is in flight (a handler entered with the
  // pipeline drained) and bypasses the scoreboard.
  uint32_t row = kNoRow;
};

class TrapListener {
 public:
  virtual ~TrapListener() = default;
  // One operation completed (a store was accepted, a load's value written back).
  virtual void trapOpDone(uint32_t warp_slot, const TrapOp& op, uint64_t now) {
    (void)warp_slot, (void)op, (void)now;
  }
  // All the warp's trap operations completed; it issues again from now on.
  virtual void trapDone(uint32_t warp_slot, uint64_t now) { (void)warp_slot, (void)now; }
};

}  // namespace rfsim::sm
