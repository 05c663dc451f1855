// Runs one kernel launch on the GPU: gpu.num_sms SMs (each an sm::Sm with
// its own L1D, mem/l1d_memory.h), the memory hierarchy below them (in the
// GpuTop of the launch's gpu::Simulation, mem/tlm/hierarchy.h, or a fixed
// latency with sim.memory: fixed), and a thread-block scheduler.
//
// Thread-block scheduler: blocks are taken in grid order (x fastest). At
// the start of the launch they are dealt out one per SM per round, SM 0
// first, while some SM has room (the back end's occupancy: registers,
// shared memory, threads and block slots, config/occupancy.h, checked by
// Sm::canLaunch); afterwards an SM takes the next block as soon as one of
// its own retires and it has room again, at its own cycle. The launch ends
// when every block has retired; its cycles are those of the SM that
// finished last.
//
// Two ways to run it:
// - Mode::SystemC (the default): each SM runs in a slot of the
//   simulation's GpuTop (gpu_top.h), loosely timed with a quantum of
//   sim.quantum_cycles; run() drives sc_start() until every slot is done.
//   Any number of launches may run one after the other in one Simulation
//   (Options::sim; without one the runner makes its own, a fresh GPU).
// - Mode::Loop: a plain C++ loop ticks the SMs in lockstep, cycle by cycle:
//   the reference the SystemC mode is tested against (identical with
//   quantum 1).
// With sim.sample blocks (or all), the launch may be cut once its IPC is
// stable (gpu/block_sampler.h) and the blocks not yet started do about the
// work of those measured (counted functionally from a snapshot of the
// memory taken at the launch's start): no SM takes a block after that, and
// the blocks never started run functionally once the SMs drained.
// Either way an SM is not ticked in cycles where nothing can happen on it
// (Sm::nextActiveCycle), and an SM without work is not ticked at all.
//
// The launch runs with the driver's carve-out of the unified L1D/shared
// array (config/carveout.h): the SMs' shared-memory capacity (their
// occupancy) and the L1Ds' size are the carve-out's (carveout()).
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "common/progress.h"
#include "config/carveout.h"
#include "gpu/block_sampler.h"
#include "gpu/gpu_stats.h"
#include "sm/core/sm.h"

namespace rfsim::mem {
class L1dMemory;
class MemoryHierarchy;
}  // namespace rfsim::mem

namespace rfsim::gpu {

class Simulation;
class SmPool;

struct KernelRunResult {
  uint64_t cycles = 0;         // with sim.sample blocks: the detailed cycles plus the extrapolated ones
  uint64_t warp_instrs = 0;
  uint64_t blocks = 0;
  uint64_t blocks_functional = 0;  // sim.sample blocks: blocks run functionally after the cut
  double host_seconds = 0.0;
};

// The grid's blocks in launch order (x fastest, then y, then z).
class BlockScheduler {
 public:
  explicit BlockScheduler(rt::Dim3 grid) : grid_(grid), total_(grid.count()) {}
  bool remaining() const { return next_ < total_; }
  uint64_t issued() const { return next_; }
  rt::Dim3 next() {
    const uint64_t n = next_++;
    return rt::Dim3{static_cast<uint32_t>(n % grid_.x), static_cast<uint32_t>((n / grid_.x) % grid_.y),
                    static_cast<uint32_t>(n / (uint64_t(grid_.x) * grid_.y))};
  }

 private:
  rt::Dim3 grid_;
  uint64_t total_, next_ = 0;
};

class KernelRunner {
 public:
  enum class Mode { SystemC, Loop };

  struct Options {
    Mode mode = Mode::SystemC;
    uint32_t num_sms = 0;    // 0: gpu.num_sms
    bool skip_idle = true;   // skip the cycles in which an SM cannot change (Sm::nextActiveCycle)
    Simulation* sim = nullptr;  // the GPU it runs on (must outlive the runner); null: a fresh one of its own
    ProgressLine* progress = nullptr;  // the launch's cycles, speed and ETA on a terminal (not owned)
    // The application's preferred carve-out, percent of the largest shared
    // capacity (cudaFuncAttributePreferredSharedMemoryCarveout), or none.
    int preferred_carveout = config::kNoCarveoutPreference;
    // Steps the SMs of each quantum in reverse order (SystemC mode): with
    // sim.parallel_sms the results are the same (tested).
    bool reverse_steps = false;
    // Verilated RTL is in the loop (mech::Mechanism::rtlInLoop): the SMs
    // are stepped on one host thread whatever sim.threads says, since
    // Verilator evaluates a model on the thread that constructed it (its
    // guide, "Multithreading": the "eval thread").
    bool rtl_in_loop = false;
    // The launch runs a mechanism's own code (a variant other than the
    // base code) that needs its hardware for its values
    // (Mechanism::codeRunsFunctionally false): the functional model does not
    // have the state that code keeps in the mechanism's hardware (CARS'
    // renamed rows, R2D2's linear registers), so the blocks a cut leaves
    // (sim.sample blocks) run the base code, `base_program` with
    // `base_setup` (the same launch set up for it), which computes the same
    // values. Their instructions are not the launch's code's: they are
    // scaled by the launch's code's instructions over the base code's on the
    // blocks run in detail (counted by running those blocks' base code
    // functionally from the memory the launch started with), or, for a
    // kernel whose blocks cannot run twice (printf, malloc, ...), the blocks
    // left count the mean instructions of those run in detail. Without a
    // base program such a launch is never cut. docs/sampling.md, "Within a
    // launch".
    bool mechanism_code = false;
    func::Program* base_program = nullptr;
    const func::LaunchSetup* base_setup = nullptr;
  };

  // `regs_per_thread`: the back end's tree register count of the kernel.
  // Statistics: SM i's under `stats_parent` as "sm<i>" (when given), and
  // the GPU's totals as "gpu" (stats()).
  KernelRunner(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
               rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent,
               Options opt);
  KernelRunner(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
               rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent = nullptr,
               Mode mode = Mode::SystemC)
      : KernelRunner(cfg, program, setup, launch_stats, regs_per_thread, stats_parent, Options{mode, 0}) {}
  ~KernelRunner();

  // Runs to completion; throws rfsim::Error from the functional model or
  // an SM's deadlock watchdog (in SystemC mode too, with its message, and
  // the next launch still runs).
  KernelRunResult run();

  uint32_t numSms() const { return static_cast<uint32_t>(sms_.size()); }
  sm::Sm& sm(uint32_t i = 0) { return *sms_.at(i); }
  const mem::L1dMemory* l1d(uint32_t i) const;
  Mode mode() const { return opt_.mode; }
  // The launch's division of the unified L1D/shared array, and the
  // configuration the SMs and L1Ds run with (the carve-out's sizes).
  const config::Carveout& carveout() const { return carveout_; }
  const config::GpuConfig& launchConfig() const { return cfg_; }
  // The GPU's statistics (filled by run()).
  GpuStats& stats() { return *stats_; }
  // Hands the statistics over (after run()), e.g. to keep them per launch.
  std::unique_ptr<GpuStats> takeStats() { return std::move(stats_); }

  // For GpuTop's slots: launches blocks onto SM `i` while it has room, then
  // ticks it at `cycle`; true when SM `i` is finished (no block left to
  // take and nothing resident).
  bool step(uint32_t i, uint64_t cycle);
  // The first cycle >= `cycle` at which ticking SM `i` can change anything.
  uint64_t nextEventCycle(uint32_t i, uint64_t cycle) const;
  double dramBacklog(uint64_t cycle) const;
  // sim.parallel_sms (SystemC mode): the SMs of a quantum are stepped
  // independently of each other, and what they share is settled here, at
  // the quantum's end, with `boundary` the next quantum's first cycle: the
  // memory requests of the quantum are sent in (cycle, SM) order and the
  // pending accesses resolved (mem/next_level.h); the counters summed and
  // checked (sim.max_instructions, the livelock proof); and blocks dealt to
  // the SMs with room, in the order their room appeared (the cycle of
  // their last retirement, then SM), one per SM per round, each to start at
  // `boundary`. `launched[i]`: SM i took a block.
  bool parallel() const { return parallel_; }
  // With parallel(): the kernel's result may depend on the order its
  // blocks meet in memory (func::Program::blockOrderDependence: printf,
  // malloc, clock reads, atomics whose old value is read), so the SMs of
  // each quantum are stepped one after the other in SM order, their stores
  // straight to memory. Otherwise each SM's global stores and reductions
  // go to a log of its own (func/block_log.h) that its loads read first,
  // applied to memory in SM order at the phase: no SM sees another's
  // stores inside a quantum, whatever the order they are stepped in.
  bool inSmOrder() const { return in_sm_order_; }
  // With parallel(), not inSmOrder(), no RTL in the loop: the host threads
  // that step the SMs of a quantum (sim.threads; 0: the host's cores).
  uint32_t threads() const;
  // The phase at a quantum's end; `pool` (null: this thread) resolves the
  // SMs' deferred replies side by side, each SM's own state.
  void phase(uint64_t boundary, std::vector<bool>& launched, SmPool* pool);

 private:
  // SM i found its warps cycling (Sm::cyclingEpoch): throws when every busy SM did.
  void checkLivelock(uint32_t i, uint64_t cycle) const;
  uint64_t runLoop();
  uint64_t runSystemC();
  void dealInitialBlocks();
  // After the cut: the blocks never started, functionally; their warp instructions.
  uint64_t runRestFunctionally();
  // The sampler's cut, checked against the blocks' work (BlockSampler::admit):
  // true when it stands.
  bool admitCut();
  // Every block's warp instructions (block_work_), counted by running the
  // whole grid functionally from the memory the launch started with; the
  // memory is then as it was.
  void countBlockWork();
  // The device's writes so far: the memory's count and the SMs' own.
  uint64_t deviceWrites() const;
  void showProgress(uint64_t cycle);

  config::Carveout carveout_;
  const config::GpuConfig cfg_;  // the configuration with the carve-out's sizes
  func::Program& program_;
  const func::LaunchSetup& setup_;
  rt::LaunchStats& launch_stats_;
  Options opt_;
  std::unique_ptr<Simulation> own_sim_;  // when Options::sim is null
  Simulation* sim_;
  mem::MemoryHierarchy* hier_ = nullptr;
  uint64_t origin_ps_ = 0;  // the launch's first cycle on the hierarchy's clock
  std::unique_ptr<GpuStats> stats_;
  // What the SMs' resident blocks write into as they are destroyed (a
  // launch stopped by an error leaves blocks resident): declared before
  // sms_, so destroyed after it.
  std::vector<std::unique_ptr<func::BlockLog>> logs_;  // per SM, unless in_sm_order_
  func::TranslateCache tc_;          // the logs' way into memory
  std::vector<rt::LaunchStats> sm_launch_stats_;  // per SM, parallel_: added to launch_stats_ at the end
  std::vector<uint64_t> sm_writes_;  // per SM, parallel_: its blocks' writes (Sm::countWritesIn)
  std::vector<std::unique_ptr<mem::L1dMemory>> l1d_;
  std::vector<std::unique_ptr<sm::Sm>> sms_;
  std::vector<uint64_t> sm_cycles_;  // per SM: cycles to its last tick + 1
  uint64_t warp_instrs_ = 0;         // issued by every SM so far (sim.max_instructions)
  bool parallel_ = false;            // sim.parallel_sms in SystemC mode: phase()
  bool in_sm_order_ = false;         // inSmOrder()
  std::vector<uint64_t> retired_at_;  // per SM: the cycle it last retired a block (parallel_)
  std::vector<std::exception_ptr> resolve_errors_;  // per SM: phase()'s resolveMemory on the pool
  uint64_t dev_writes_ = 0;          // the device's write count at the last phase (Sm::readWritesFrom)
  BlockScheduler blocks_;
  std::unique_ptr<BlockSampler> sampler_;  // sim.sample blocks or all
  bool cut_ = false;                       // sampler_ cut the launch: no SM takes another block
  // Retirements seen so far, every SM (sampler_): an SM's ticks in which it
  // retired a block, so two blocks one SM retires in the same cycle count
  // once (a lower bound, which starts the window's blocks no later).
  uint64_t retired_ = 0;
  std::unique_ptr<func::GlobalMemory::Snapshot> start_memory_;  // by blocks: the memory at the launch's start
  // By blocks, once the sampler first wants to cut: the warp instructions of
  // the grid's first k blocks at [k] (of the code the blocks left run: the
  // base code for a mechanism's code that needs its hardware).
  std::vector<uint64_t> block_work_;
  std::vector<double> block_work_sq_;  // the same of the squares of each block's warp instructions
  // The same count's instruction mix: each opcode's warp instructions
  // (ptx::Op::Count_ of them) summed over chunks of mix_chunk_ blocks in
  // grid order, chunk after chunk (one block a chunk up to kMixChunks
  // blocks, so that a large grid's mixes take bounded memory).
  static constexpr uint64_t kMixChunks = 4096;
  uint64_t mix_chunk_ = 1;
  std::vector<uint64_t> block_mix_;
  // The blocks left against the window's blocks (admitCut), at the last
  // window compared: in their work (relative distance of their warp
  // instructions per block) and in their mix (half the L1 distance of their
  // opcode shares).
  double work_deviation_ = 0.0, mix_deviation_ = 0.0;
  double mixDeviation(uint64_t lo, uint64_t hi, uint64_t runs) const;
};

const char* modeName(KernelRunner::Mode m);

}  // namespace rfsim::gpu
