// Timing-directed functional execution: a resident thread block whose warps
// an external scheduler (the SM timing model's issue stage) advances one warp
// instruction at a time, in any order, with several blocks of a launch
// resident at once. Each step runs the instruction's real semantics, through
// the same BlockExecutor code as Program::launch (executor.h: issue() is the
// body of run()'s loop), so a timed run produces the kernel's real output.
//
// Barriers: a warp that reaches bar.sync is AtBarrier until every live warp
// of its block has arrived (or, with a thread count, enough have), then all
// are Ready again; bar.arrive/red as in the executor. Nothing spins: a block
// whose warps all wait is for the caller's watchdog to find (describeWarp).
//
// The block's instruction counts go into the launch's rt::LaunchStats when
// its last warp finishes (or when the stepper is destroyed).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "func/executor.h"

namespace rfsim::func {

// A memory instruction's per-lane accesses, for the timing model. Addresses
// are read before the instruction executes.
struct MemAccess {
  // The resolved space: a generic address becomes Global, Shared, Local or
  // Param by its window (Generic only when the lanes fall in different
  // windows; addr then holds the generic addresses); a .func parameter is
  // Local; Const stays Const (its address is a global address).
  ptx::Space space = ptx::Space::None;
  bool write = false, atomic = false;  // atom/red: both
  uint8_t bytes = 0;                   // per lane per element
  uint8_t elems = 1;                   // vector elements (1, 2, 4)
  uint32_t mask = 0;                   // lanes that accessed
  // Per lane: shared: the offset in the block's shared memory; local: the
  // lane's local address; param: the offset in the parameter buffer;
  // global/const: the device address.
  std::array<uint64_t, 32> addr{};
};

struct StepInfo {
  const DInstr* d = nullptr;
  const ptx::Instr* in = nullptr;
  uint32_t func = 0;         // index of the function executing (Program::functions())
  uint32_t pc = 0;           // flat pc of the instruction executed, in that function
  uint32_t active = 0;       // SIMT mask at issue
  uint32_t executed = 0;     // lanes whose guard was true
  // Extension instructions only (ptx/isa_ext.h; 0 otherwise): the lanes of
  // the executing function's activation -- those that made its call (the
  // SIMT stack's entry marked by the function-call bit), the block's live
  // lanes in the kernel. A register-stack pop by fewer lanes than these
  // leaves lanes in the function.
  uint32_t frame_lanes = 0;
  bool is_mem = false;       // ld/st/atom/red; `mem` is filled when some lane executed
  MemAccess mem;
  bool branch = false;       // a bra
  bool divergent = false;    // ... that split the warp
  bool barrier = false;      // the warp now waits at a barrier
  bool call = false, ret = false;  // some lanes called / returned
  // Call frames (the kernel's is 1) after the step; the function a call
  // entered (Program::functions() index; UINT32_MAX when the step entered
  // none: not a call, or a built-in); frames the step ended -- the SIMT
  // stack popped back to the entry marked by a call's function-call bit,
  // i.e. the last lanes of the call returned (a divergent return ends its
  // frame only with its last lanes; lanes exiting inside a function end it
  // too, on whatever instruction empties it).
  uint32_t call_depth = 0;
  uint32_t callee = UINT32_MAX;
  uint32_t frames_released = 0;
  bool exited = false;       // some lanes finished (exit, or ret from the kernel)
  uint32_t simt_depth = 0;   // SIMT stack entries after the step
};

enum class WarpStatus : uint8_t { Ready, AtBarrier, Done };

class BlockStepper {
 public:
  // `program`, `setup` (Program::setupLaunch) and `stats` must outlive the
  // stepper; steppers of one launch share them.
  BlockStepper(Program& program, const LaunchSetup& setup, rt::LaunchStats& stats, rt::Dim3 ctaid);
  ~BlockStepper();
  BlockStepper(const BlockStepper&) = delete;
  BlockStepper& operator=(const BlockStepper&) = delete;

  rt::Dim3 ctaid() const { return exec_.ctaid(); }
  uint32_t numWarps() const { return exec_.numWarps(); }
  WarpStatus status(uint32_t warp) const;
  // BlockExecutor::blockEvents: a warp AtBarrier stays so while it is unchanged.
  uint64_t blockEvents() const { return exec_.blockEvents(); }
  // The instruction the warp issues next (nullptr unless Ready), its pc and
  // function, and the warp's SIMT mask.
  const DInstr* peek(uint32_t warp) const;
  uint32_t peekPc(uint32_t warp) const;
  uint32_t peekFunc(uint32_t warp) const;
  uint32_t activeMask(uint32_t warp) const;
  // The warp's functional state (registers, SIMT stack), e.g. for a timing
  // model that keeps the register values in its own register file
  // (Warp::rows).
  Warp& warpState(uint32_t warp) { return exec_.warp(warp); }
  const Warp& warpState(uint32_t warp) const { return exec_.warp(warp); }
  // Per-warp start pc (BlockExecutor::setStartPc): before the warp's first
  // step. pcOfLabel gives the flat pc of a label of the kernel (throws
  // rfsim::Error naming the kernel when there is none).
  void setStartPc(uint32_t warp, uint32_t pc) { exec_.setStartPc(warp, pc); }
  uint32_t pcOfLabel(const std::string& label) const;
  // Executes exactly the warp's next instruction. The warp must be Ready.
  // Throws rfsim::Error like Program::launch (bad access, trap, ...).
  void step(uint32_t warp, StepInfo& out);
  // %clock/%clock64 of the next step read `cycle` (the SM's clock); without
  // it they count the block's warp instructions, as in launch().
  void setClock(uint64_t cycle) { exec_.setClock(cycle); }
  // The log the block's global stores and reductions go to instead of
  // memory (block_log.h, speculative), its own loads reading them first: a
  // timing model whose SMs must not see each other's stores before the end
  // of a quantum (sim.parallel_sms) gives the blocks of each SM one log and
  // applies the logs in SM order there. Null: memory itself.
  void setLog(BlockLog* log) { exec_.setLog(log); }
  // Writes counted in `writes` (not owned) instead of the memory's counter
  // (BlockExecutor::countWritesIn).
  void countWritesIn(uint64_t* writes) { exec_.countWritesIn(writes); }
  bool done() const { return done_warps_ == exec_.numWarps(); }
  // For a deadlock watchdog: the warp's status, pc and line, SIMT stack top
  // (pc, rpc, mask) and depth, and the barrier it waits at.
  std::string describeWarp(uint32_t warp) const;
  // The livelock proof (BlockExecutor::armProofs, allCycling).
  void armProofs(bool on) { exec_.armProofs(on); }
  bool proofsArmed() const { return exec_.proofsArmed(); }
  bool allCycling() const { return exec_.allCycling(); }

 private:
  void countDone();

  BlockExecutor exec_;
  uint32_t done_warps_ = 0;
  bool flushed_ = false;
};

}  // namespace rfsim::func
