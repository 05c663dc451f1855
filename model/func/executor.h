// Runs the thread blocks of one launch, one block at a time. Inside a block
// the warps run round-robin, each for up to Limits::warp_quantum instructions
// or until it waits at a barrier or finishes; a block with warps left but
// none able to run is a deadlock (an error naming the barriers and the warps
// waiting there). A timing model drives the same code one warp instruction
// at a time through begin()/issue()/finish() (BlockStepper, stepper.h).
//
// The per-instruction work is split by kind: exec_lane.cpp (lane functions
// and operand reads), exec_memory.cpp (ld/st/atom/red/cvta and the address
// windows), exec_control.cpp (bra/call/ret/exit and the SIMT stack),
// exec_sync.cpp (barriers, shfl, vote), builtins.cpp (malloc/free/vprintf).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "func/block_log.h"
#include "func/decode.h"
#include "func/memory.h"
#include "func/program.h"
#include "func/warp.h"
#include "func/launch.h"

namespace rfsim::func {

// Population count without depending on the host's popcnt instruction
// (the build targets baseline x86-64, where __builtin_popcount is a call).
inline uint32_t popc32(uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

struct MemAccess;  // stepper.h

// Told of every memory instruction a BlockExecutor runs, with its lanes'
// addresses, before it executes (BlockExecutor::setAccessSink): how the
// timing model's sampling warms its L2 with the blocks it runs functionally
// (gpu/kernel_runner.cpp, runRestFunctionally).
class AccessSink {
 public:
  virtual ~AccessSink() = default;
  virtual void access(const MemAccess& m) = 0;
};

class BlockExecutor {
 public:
  BlockExecutor(Program& program, const LaunchSetup& setup, rt::LaunchStats& stats);
  void run(rt::Dim3 ctaid);
  // For one of several executors that run a launch's blocks on as many host
  // threads (parallel_blocks.cpp): the livelock epoch counts this
  // executor's writes (in a run on one thread the only writes during a
  // block are its own, so the proofs come out the same).
  void runConcurrently() { dev_writes_ = &own_writes_; }
  // The same for a timing model that steps its SMs side by side
  // (sim.parallel_sms): the epoch counts the writes of the SM's blocks, in
  // `writes` (not owned), which the SM's caller adds to the device's.
  void countWritesIn(uint64_t* writes) { dev_writes_ = writes; }
  // The log the next blocks' global accesses go through (block_log.h;
  // parallel_blocks.cpp); null: memory itself, as on one thread.
  void setLog(BlockLog* log) { log_ = log; }
  // Where the next blocks' memory instructions are reported (null: nowhere).
  void setAccessSink(AccessSink* sink) { sink_ = sink; }
  // Forgets the counts of a block whose run ended in an error (finish()
  // never added them).
  void discardCounts() {
    warp_instrs_ = thread_instrs_ = 0;
    role_warp_.fill(0);
    role_thread_.fill(0);
  }

  // Step-level entry points, for an external scheduler (BlockStepper,
  // stepper.h); run() is begin(), issue() in its own order, finish().
  void begin(rt::Dim3 ctaid) { resetBlock(ctaid); }
  // Executes the next instruction of a Ready warp: the one body of run().
  void issue(uint32_t warp);
  // Per-warp start pc (the SM's extension point (e)): before its first
  // instruction, warp `warp` starts at flat pc `pc` of the kernel instead of
  // its entry. Throws rfsim::Error once the warp has issued, or for a pc
  // outside the kernel.
  void setStartPc(uint32_t warp, uint32_t pc);
  // What %clock/%clock64 read in the next instruction issued: the timing
  // model sets its SM cycle before each issue (run() counts warp
  // instructions instead).
  void setClock(uint64_t value) { clock_ = value - 1; }
  // Adds the block's instruction counts to the launch statistics.
  void finish();
  uint32_t numWarps() const { return nwarps_; }
  const Warp& warp(uint32_t i) const { return warps_[i]; }
  Warp& warp(uint32_t i) { return warps_[i]; }
  // The lanes of `warp`'s SIMT mask whose guard of `d` is true.
  uint32_t executedMask(uint32_t warp, const DInstr& d) {
    Warp& w = warps_[warp];
    const uint32_t mask = w.stack.back().mask;
    return d.has_guard ? mask & guardMask(w, d) : mask;
  }
  // A memory instruction's per-lane addresses for the lanes `act`, read
  // before it executes (exec_memory.cpp).
  void describeAccess(uint32_t warp, const DInstr& d, uint32_t act, MemAccess& out);
  rt::Dim3 ctaid() const { return ctaid_; }
  // Barrier `id`'s arrivals so far (warps, and the thread count it expects, 0: every live warp).
  uint32_t barrierArrived(uint32_t id) const { return bars_[id].arrived_warps; }
  uint32_t barrierExpected(uint32_t id) const { return bars_[id].expected_threads; }
  // Barrier arrivals and releases, exits and finished warps in the block so
  // far: a warp at a barrier stays there while this does not change.
  uint64_t blockEvents() const { return block_events_; }

  // The livelock proof (livelock.cpp; docs/functional.md, "Runaway
  // kernels"). Armed, a warp's whole state (SIMT stack, frames, registers,
  // local memory, carry) is hashed at each backward branch it takes, and
  // Brent's cycle detection runs on those states. A state seen again within
  // one epoch -- no write outside a thread's local memory anywhere on the
  // device (GlobalMemory::writes), no barrier released and no warp exited or
  // finished in the block -- proves the warp repeats forever unless another
  // warp writes. Costs one test per branch taken while disarmed.
  void armProofs(bool on);
  bool proofsArmed() const { return armed_; }
  // Every live warp of the block is proven to cycle in the current epoch or
  // waits at a barrier, and at least one is proven.
  bool allCycling() const;

 private:
  struct Barrier {
    uint32_t arrived_warps = 0;
    uint32_t arrived_threads = 0;
    uint32_t expected_threads = 0;  // 0: every live warp of the block
    uint32_t popc = 0;
    bool all = true, any = false;
    std::vector<uint32_t> waiting;
    void reset() {  // as constructed, keeping `waiting`'s storage
      arrived_warps = arrived_threads = expected_threads = popc = 0;
      all = true, any = false;
      waiting.clear();
    }
  };

  // executor.cpp
  void resetBlock(rt::Dim3 ctaid);
  void runWarp(Warp& w, uint64_t budget);
  void stepWarp(Warp& w);
  uint32_t guardMask(Warp& w, const DInstr& d);
  [[noreturn]] void fail(const Warp& w, const DInstr& d, int lane, const std::string& msg) const;
  [[noreturn]] void deadlock() const;
  // Limits::max_warp_instrs and Limits::livelock_warp_instrs, checked
  // between rounds of run().
  // Reports a memory instruction to sink_ (setAccessSink).
  [[gnu::noinline]] void tellSink(const Warp& w, const DInstr& d, uint32_t act);
  void checkRunaway();

  // exec_lane.cpp: operand access.
  struct Column {
    const uint64_t* p;
    uint32_t stride;  // 0 for a value shared by all lanes
    uint64_t add, x;  // value = (p[lane * stride] + add) ^ x
  };
  Column column(Warp& w, const DOperand& o, std::array<uint64_t, 32>& tmp);
  // ld/st: the address operand's lanes, its addend added (DInstr::addend).
  Column address(Warp& w, const DInstr& d, std::array<uint64_t, 32>& tmp);
  uint64_t read(Warp& w, const DOperand& o, uint32_t lane);
  uint64_t sreg(const Warp& w, const DOperand& o, uint32_t lane) const;
  uint64_t param(const Warp& w, const DOperand& o) const;  // DKind::ParamVal
  uint64_t constVal(const Warp& w, const DOperand& o);     // DKind::ConstVal
  void write(Warp& w, const DOperand& o, uint32_t lane, uint64_t v) {
    if (o.kind == DKind::RegPair) {
      w.reg(o.reg)[lane] = v & 0xffffffffu;
      w.reg(o.reg + 1)[lane] = v >> 32;
      return;
    }
    w.reg(o.reg)[lane] = v & o.mask;
  }
  // Machine programs: the 64-bit values v[lane] of the active lanes into a
  // register pair (a RegPair destination).
  void writePair(Warp& w, const DOperand& o, const uint64_t* v, uint32_t act);
  // A source operand's value in each of the 32 lanes (active or not): a
  // register column in place, else `tmp` (32 values) filled.
  const uint64_t* sourceColumn(Warp& w, const DOperand& o, uint64_t* tmp);
  // A Reg or RegPair destination's active lanes from r[0..32).
  void storeColumn(Warp& w, const DOperand& o, const uint64_t* r, uint32_t act);
  void execLane(Warp& w, const DInstr& d, uint32_t act);
  void execMovVec(Warp& w, const DInstr& d, uint32_t act);

  // exec_memory.cpp
  // Host pointer for a lane's access of `bytes` (a power of two) at addr in
  // `space`; fails with the lane's context when it is misaligned or outside
  // memory. Inline fast path for aligned global accesses.
  uint8_t* resolve(Warp& w, const DInstr& d, ptx::Space space, uint64_t addr, uint32_t bytes, uint32_t lane,
                   bool write, bool atomic) {
    if ((addr & (bytes - 1)) == 0) {
      switch (space) {
        case ptx::Space::Global: case ptx::Space::Generic: {
          if (space == ptx::Space::Generic && addr >= kCodeWindow) break;
          uint8_t* p = mem_.translate(addr, bytes, tc_);
          if (p && tc_.lastKind() != AllocKind::Const) return p;
          break;
        }
        case ptx::Space::Shared:
          if (addr <= shared_.size() && bytes <= shared_.size() - addr) return shared_.data() + addr;
          break;
        case ptx::Space::Local: {
          // [local_lo, stack_top) is mapped (local_lo: 0 for a PTX program).
          const uint64_t off = addr - w.local_lo;
          const uint32_t span = w.frames.back().stack_top - w.local_lo;
          if (!atomic && off <= span && bytes <= span - off) return w.lanes(lane) + off;
          break;
        }
        case ptx::Space::Param:
          if (!write && !atomic && addr <= setup_.params.size() && bytes <= setup_.params.size() - addr)
            return const_cast<uint8_t*>(setup_.params.data()) + addr;
          break;
        default: break;
      }
    }
    return resolveSlow(w, d, space, addr, bytes, lane, write, atomic);
  }
  // Global (or generic), shared and local accesses of `bytes` at p[l] + add
  // for the lanes `act` (not atomics): when every one is aligned and inside
  // one allocation (or the block's shared memory, or the lanes' mapped
  // stacks), returns the host pointer of offset 0 and
  // sets addrs[l] to each lane's offset from it (resolve()'s fast path for a
  // whole warp at once); else nullptr. `width`: the highest offset less the
  // lowest, for a full warp whose offsets are addresses in one space (~0
  // otherwise: a partial warp, or the lanes' separate stacks).
  uint8_t* spanBase(Warp& w, ptx::Space space, const uint64_t* p, uint64_t add, uint32_t act, uint32_t bytes,
                    uint64_t* addrs, uint64_t& width);
  uint8_t* resolveSlow(Warp& w, const DInstr& d, ptx::Space space, uint64_t addr, uint32_t bytes, uint32_t lane,
                       bool write, bool atomic);
  void execLd(Warp& w, const DInstr& d, uint32_t act);
  void execSt(Warp& w, const DInstr& d, uint32_t act);
  void execAtom(Warp& w, const DInstr& d, uint32_t act);
  void execCvta(Warp& w, const DInstr& d, uint32_t act);
  // exec_logged.cpp: the global accesses of a block that runs beside others
  // (log_ set). A load's lanes: records what it reads; nullptr when the
  // block's own writes reach into it (then lane by lane, logLoadLane).
  uint8_t* logLoad(ptx::Space space, const Column& a, uint32_t act, unsigned bytes, uint8_t* base);
  // One lane's bytes as the block sees them (`p`: memory's, `buf`: room for them).
  const uint8_t* logLoadLane(ptx::Space space, uint64_t addr, const uint8_t* p, unsigned bytes, uint8_t* buf);
  // A store's lanes: records what it writes; nullptr when its lanes go to
  // the log lane by lane (logStoreLane, then logStoreDone).
  uint8_t* logStore(ptx::Space space, const Column& a, uint32_t act, unsigned bytes, uint8_t* base);
  uint8_t* logStoreLane(ptx::Space space, uint64_t addr, uint8_t* p, unsigned bytes, uint32_t lane);
  void logStoreDone();
  // An atomic's lane: true when the log took it (it does not touch memory).
  bool logAtomic(const DInstr& d, ptx::Space space, uint64_t addr, uint64_t b, uint64_t c);
  // Host-side reads of device memory by a lane (vprintf's format and
  // arguments, call parameters of built-ins).
  void readGeneric(Warp& w, const DInstr& d, uint32_t lane, uint64_t addr, void* out, uint32_t bytes);

  // exec_control.cpp
  void execBra(Warp& w, const DInstr& d, uint32_t act);
  void execCall(Warp& w, const DInstr& d, uint32_t act);
  void callFunction(Warp& w, const DInstr& d, const DFunction& callee, uint32_t lanes);
  void execRet(Warp& w, const DInstr& d, uint32_t act);
  void execExit(Warp& w, uint32_t act);
  void settle(Warp& w);
  void finishCall(Warp& w);

  // exec_sync.cpp
  bool execBar(Warp& w, const DInstr& d, uint32_t act);  // false: the warp waits
  void releaseBarrier(uint32_t id);
  void checkBarriers();
  void execShfl(Warp& w, const DInstr& d, uint32_t act);
  void execVote(Warp& w, const DInstr& d, uint32_t act);

  // builtins.cpp
  void execBuiltin(Warp& w, const DInstr& d, Builtin b, uint32_t act);
  std::string format(Warp& w, const DInstr& d, uint32_t lane, uint64_t fmt, uint64_t args);

  Program& prog_;
  const LaunchSetup& setup_;
  rt::LaunchStats& stats_;
  GlobalMemory& mem_;
  TranslateCache tc_;  // this executor's, never another thread's
  // Writes other threads could see: the device's counter, or own_writes_
  // when running concurrently (runConcurrently).
  uint64_t* dev_writes_;
  uint64_t own_writes_ = 0;
  BlockLog* log_ = nullptr;
  AccessSink* sink_ = nullptr;
  // A speculative store's lanes on their way to the log (logStoreLane).
  struct Staged {
    std::array<uint64_t, 32> addr;
    std::array<std::array<uint8_t, 32>, 32> bytes;
    uint32_t lanes = 0;
    unsigned n = 0;
  };
  Staged staged_;
  const std::vector<DFunction>& funcs_;
  rt::Dim3 ctaid_;
  uint32_t nthreads_ = 0;
  std::vector<Warp> warps_;
  uint32_t nwarps_ = 0;
  std::vector<uint8_t> shared_;
  std::array<Barrier, 16> bars_;
  uint32_t bars_busy_ = 0;  // bit id: barrier id has arrivals
  uint64_t clock_ = 0;
  uint64_t* by_op_ = nullptr;
  uint64_t warp_instrs_ = 0, thread_instrs_ = 0;
  // Stores, atomics, barrier arrivals, exits and returns issued (the
  // livelock rule's progress), and warp_instrs_ when they last moved.
  uint64_t moves_ = 0, last_moves_ = 0, moved_at_ = 0;
  const bool machine_;  // running a machine program (ptx/machine.h)
  // The livelock proof (livelock.cpp): per warp, the epoch of its samples and
  // Brent's state; block_events_ counts barrier arrivals and releases,
  // exits and finished warps.
  struct CycleWatch {
    uint64_t dev = UINT64_MAX, blk = UINT64_MAX;
    uint64_t saved = 0;
    uint32_t steps = 0, power = 1;
    uint32_t skip = 0, every = 1;  // hash one backward branch in `every`
    bool fresh = true, proven = false;
  };
  static constexpr uint32_t kMaxPower = 1024;
  std::vector<CycleWatch> watch_;
  bool armed_ = false;
  uint64_t block_events_ = 0;
  uint64_t epoch_seen_ = UINT64_MAX, epoch_at_ = 0;  // checkRunaway's arming
  // The warp took a backward branch: one sample of its state.
  void sampleCycle(const Warp& w);
  uint64_t stateHash(const Warp& w) const;
  // Per ptx::MRole (index 0, Code, is filled in from the totals at the end).
  std::array<uint64_t, rt::kNumMRoles> role_warp_{}, role_thread_{};
};

}  // namespace rfsim::func
