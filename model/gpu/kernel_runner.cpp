#include "gpu/kernel_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "func/executor.h"
#include "gpu/gpu_top.h"
#include "gpu/l2_warmer.h"
#include "gpu/simulation.h"
#include "gpu/sm_pool.h"
#include "mem/l1d_memory.h"
#include "mem/tlm/hierarchy.h"

namespace rfsim::gpu {

const char* modeName(KernelRunner::Mode m) { return m == KernelRunner::Mode::SystemC ? "systemc" : "loop"; }

namespace {

config::KernelFootprint footprintOf(const func::LaunchSetup& setup, uint32_t regs_per_thread) {
  config::KernelFootprint fp;
  fp.threads_per_block = static_cast<uint32_t>(setup.block.count());
  fp.regs_per_thread = regs_per_thread;
  fp.shared_per_block = setup.static_shared + setup.dynamic_shared;
  return fp;
}

std::string kernelOf(const func::LaunchSetup& setup) {
  return setup.kernel && setup.kernel->fn ? setup.kernel->fn->name : std::string("kernel");
}

}  // namespace

KernelRunner::KernelRunner(const config::GpuConfig& cfg, func::Program& program, const func::LaunchSetup& setup,
                           rt::LaunchStats& launch_stats, uint32_t regs_per_thread, stats::Group* stats_parent,
                           Options opt)
    : carveout_(config::chooseCarveout(cfg, footprintOf(setup, regs_per_thread), opt.preferred_carveout,
                                       kernelOf(setup))),
      cfg_(config::withCarveout(cfg, carveout_)),
      program_(program),
      setup_(setup),
      launch_stats_(launch_stats),
      opt_(opt),
      own_sim_(opt.sim ? nullptr : std::make_unique<Simulation>()),
      sim_(opt.sim ? opt.sim : own_sim_.get()),
      blocks_(setup.grid) {
  ScKernel::Scope in(sim_->kernel());
  const uint32_t n = opt_.num_sms ? opt_.num_sms : cfg_.gpu.num_sms;
  if (n == 0 || n > cfg_.gpu.num_sms)
    throw Error(fmt::format("KernelRunner: {} SMs asked for, the configuration has {} (gpu.num_sms)", n,
                            cfg_.gpu.num_sms));
  const bool hierarchy = cfg_.sim.memory == config::MemoryModel::Hierarchy;
  // The hierarchy lives in the simulation's GPU top (persistent SystemC
  // modules); so do the SM slots, made now too, before its kernel starts.
  if (hierarchy || opt_.mode == Mode::SystemC) {
    GpuTop& top = sim_->top(cfg_);
    if (hierarchy) hier_ = &top.memory();
  }
  stats_ = std::make_unique<GpuStats>(stats_parent, "gpu", cfg_, n);
  parallel_ = cfg_.sim.parallel_sms && opt_.mode == Mode::SystemC && hier_;
  // SMs stepped side by side count the functional model's instructions and
  // writes apart, added up at the phases and the end.
  if (parallel_) {
    sm_launch_stats_.resize(n);
    sm_writes_.assign(n, 0);
  }
  for (uint32_t i = 0; i < n; ++i) {
    sm::MemoryInterface* m = nullptr;
    if (hierarchy) {
      l1d_.push_back(std::make_unique<mem::L1dMemory>(cfg_, hier_->port(i), i));
      m = l1d_.back().get();
    } else {
      l1d_.push_back(nullptr);
    }
    sms_.push_back(std::make_unique<sm::Sm>(cfg_, program, setup, parallel_ ? sm_launch_stats_[i] : launch_stats,
                                            regs_per_thread, stats_parent, fmt::format("sm{}", i), m));
  }
  sm_cycles_.assign(n, 0);
  retired_at_.assign(n, 0);
  if (parallel_) {
    in_sm_order_ = setup_.kernel && !program_.blockOrderDependence(*setup_.kernel).empty();
    for (uint32_t i = 0; i < n; ++i) {
      sm::Sm* s = sms_[i].get();
      s->readWritesFrom(&dev_writes_);
      s->countWritesIn(&sm_writes_[i]);
      if (in_sm_order_) continue;
      logs_.push_back(std::make_unique<func::BlockLog>());
      logs_.back()->reset(func::BlockLog::Mode::Speculative);
      s->logStoresTo(logs_.back().get());
    }
  }
}

KernelRunner::~KernelRunner() = default;

const mem::L1dMemory* KernelRunner::l1d(uint32_t i) const { return l1d_.at(i).get(); }

void KernelRunner::dealInitialBlocks() {
  // One block per SM per round, while some SM takes one.
  bool any = true;
  while (any && blocks_.remaining()) {
    any = false;
    for (auto& s : sms_) {
      if (!blocks_.remaining()) break;
      if (s->canLaunch()) {
        s->launch(blocks_.next());
        any = true;
      }
    }
  }
}

bool KernelRunner::step(uint32_t i, uint64_t cycle) {
  sm::Sm& s = *sms_[i];
  if (parallel_) {  // what the SMs share waits for the phase
    if (s.idle()) return cut_ || !blocks_.remaining();
    const uint64_t retired = s.stats().blocks_retired.get();
    try {
      s.tick(cycle);
    } catch (const func::NeedsSerial&) {
      throw Error(fmt::format("kernel {}: with sim.parallel_sms, a warp of sm{} loaded or stored bytes under its "
                              "SM's own atomics of the same quantum, whose result is known only once the quantum's "
                              "stores reach memory (cycle {}); run it without sim.parallel_sms",
                              kernelOf(setup_), i, cycle));
    }
    sm_cycles_[i] = cycle + 1;
    if (s.stats().blocks_retired.get() != retired) retired_at_[i] = cycle;
    return (cut_ || !blocks_.remaining()) && s.idle();
  }
  while (!cut_ && blocks_.remaining() && s.canLaunch()) s.launch(blocks_.next());
  if (s.idle()) {  // nothing resident: no cycle of this SM
    if (blocks_.remaining() && !cut_)
      throw Error(fmt::format("kernel {}: a thread block of {} threads does not fit on an empty SM "
                              "(occupancy: {} blocks per SM)",
                              setup_.kernel && setup_.kernel->fn ? setup_.kernel->fn->name : std::string("?"), setup_.block.count(),
                              s.occupancy().blocks));
    return true;
  }
  const uint64_t issued = s.stats().warp_instrs.get(), retired = s.stats().blocks_retired.get();
  s.tick(cycle);
  sm_cycles_[i] = cycle + 1;
  warp_instrs_ += s.stats().warp_instrs.get() - issued;
  if (sampler_ && !cut_) {
    const bool ret = s.stats().blocks_retired.get() != retired;
    if (ret || cycle >= sampler_->nextPoint()) {
      SampledMemory m;
      if (hier_) {
        const mem::HierarchyCounters c = hier_->counters();
        m.l2_allocs = c.l2.misses - c.l2_sector_misses;  // the lines placed
        m.l2_evictions = c.l2_evictions;
        m.dram_backlog = dramBacklog(cycle);
      }
      if (ret) ++retired_;
      cut_ = sampler_->observe(cycle, ret, warp_instrs_, setup_.grid.count() - blocks_.issued(), m, retired_);
      if (cut_ && start_memory_) cut_ = admitCut();
    }
  }
  if (warp_instrs_ > cfg_.sim.max_instructions)
    throw Error(fmt::format("kernel {}: stopped as a runaway kernel at cycle {} after {} warp instructions: the "
                            "launch reached sim.max_instructions ({}; raise it with --max-instructions if the kernel "
                            "is meant to run that long); sm{}'s warps:\n{}",
                            setup_.kernel && setup_.kernel->fn ? setup_.kernel->fn->name : std::string("?"), cycle,
                            warp_instrs_, cfg_.sim.max_instructions, i, s.dumpState()));
  if (s.cyclingEpoch() != UINT64_MAX) checkLivelock(i, cycle);
  if (opt_.progress && opt_.progress->due()) showProgress(cycle);
  return (cut_ || !blocks_.remaining()) && s.idle();
}

void KernelRunner::phase(uint64_t boundary, std::vector<bool>& launched, SmPool* pool) {
  const uint32_t n = numSms();
  std::vector<mem::SmPort*> ports;
  for (uint32_t i = 0; i < n; ++i) ports.push_back(&hier_->port(i));
  mem::sendDeferred(ports, boundary);
  if (pool) {
    // Each SM's replies touch its own pipeline, L1D and port alone; the
    // hooks, which may share a mechanism's state, then run in SM order.
    resolve_errors_.assign(n, nullptr);  // no allocation after the first quantum
    pool->run(n, [&](uint32_t i) {
      try {
        sms_[i]->resolveMemory();
      } catch (...) {
        resolve_errors_[i] = std::current_exception();
      }
    });
    for (const std::exception_ptr& e : resolve_errors_)
      if (e) std::rethrow_exception(e);
    for (auto& s : sms_) s->quantumEndHooks();
  } else {
    for (auto& s : sms_) s->endQuantum();
  }
  for (auto& log : logs_) {  // the quantum's stores, then reductions, SM by SM
    log->apply(program_.memory(), tc_);
    log->reset(func::BlockLog::Mode::Speculative);
  }
  dev_writes_ = deviceWrites();

  warp_instrs_ = 0;
  for (auto& s : sms_) warp_instrs_ += s->stats().warp_instrs.get();
  if (warp_instrs_ > cfg_.sim.max_instructions)
    throw Error(fmt::format("kernel {}: stopped as a runaway kernel at cycle {} after {} warp instructions: the "
                            "launch reached sim.max_instructions ({}; raise it with --max-instructions if the kernel "
                            "is meant to run that long); sm0's warps:\n{}",
                            kernelOf(setup_), boundary, warp_instrs_, cfg_.sim.max_instructions,
                            sms_[0]->dumpState()));
  for (uint32_t i = 0; i < n; ++i)
    if (!sms_[i]->idle() && sms_[i]->cyclingEpoch() != UINT64_MAX) {
      checkLivelock(i, boundary);
      break;
    }
  if (opt_.progress && opt_.progress->due()) showProgress(boundary);

  launched.assign(n, false);
  if (cut_ || !blocks_.remaining()) return;
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < n; ++i)
    if (sms_[i]->canLaunch()) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [this](uint32_t a, uint32_t b) { return retired_at_[a] < retired_at_[b]; });
  for (bool any = true; any && blocks_.remaining();) {
    any = false;
    for (uint32_t i : order) {
      if (!blocks_.remaining()) break;
      if (sms_[i]->canLaunch()) {
        sms_[i]->launch(blocks_.next());
        launched[i] = any = true;
      }
    }
  }
  for (uint32_t i = 0; i < n && blocks_.remaining(); ++i)
    if (sms_[i]->idle())
      throw Error(fmt::format("kernel {}: a thread block of {} threads does not fit on an empty SM "
                              "(occupancy: {} blocks per SM)",
                              kernelOf(setup_), setup_.block.count(), sms_[i]->occupancy().blocks));
}

uint32_t KernelRunner::threads() const {
  if (!parallel_ || in_sm_order_ || opt_.rtl_in_loop) return 1;
  const uint32_t t = cfg_.sim.threads ? cfg_.sim.threads : std::max(1u, std::thread::hardware_concurrency());
  return std::min(t, numSms());
}

uint64_t KernelRunner::deviceWrites() const {
  uint64_t w = program_.memory().writes();
  for (uint64_t s : sm_writes_) w += s;
  return w;
}

void KernelRunner::countBlockWork() {
  func::GlobalMemory& mem = program_.memory();
  const func::GlobalMemory::Snapshot now = mem.snapshot();
  mem.restore(*start_memory_);
  rt::LaunchStats counts;
  counts.warp_instrs_by_op.assign(static_cast<size_t>(ptx::Op::Count_), 0);
  const bool base = opt_.mechanism_code;
  func::BlockExecutor exec(base ? *opt_.base_program : program_, base ? *opt_.base_setup : setup_, counts);
  BlockScheduler order(setup_.grid);
  const uint64_t n = setup_.grid.count();
  block_work_.assign(1, 0);
  block_work_sq_.assign(1, 0.0);
  block_work_.reserve(n + 1);
  block_work_sq_.reserve(n + 1);
  // The mix, per chunk: each chunk's opcode counts, the difference of the
  // running counts at its end and at its start.
  const size_t ops = static_cast<size_t>(ptx::Op::Count_);
  mix_chunk_ = std::max<uint64_t>(1, (n + kMixChunks - 1) / kMixChunks);
  block_mix_.assign((n + mix_chunk_ - 1) / mix_chunk_ * ops, 0);
  std::vector<uint64_t> chunk_start(ops, 0);
  for (uint64_t b = 0; order.remaining(); ++b) {
    exec.run(order.next());
    const double w = double(counts.warp_instrs - block_work_.back());
    block_work_.push_back(counts.warp_instrs);
    block_work_sq_.push_back(block_work_sq_.back() + w * w);
    if ((b + 1) % mix_chunk_ == 0 || b + 1 == n) {
      uint64_t* chunk = &block_mix_[b / mix_chunk_ * ops];
      for (size_t o = 0; o < ops; ++o) {
        chunk[o] = counts.warp_instrs_by_op[o] - chunk_start[o];
        chunk_start[o] = counts.warp_instrs_by_op[o];
      }
    }
  }
  mem.restore(now);
}

// Blocks [lo, hi) are the window's; the blocks from hi on, in `runs` runs,
// are compared with them by their instruction mix: each run's opcode shares
// against the window's, half the sum of the absolute differences (0: the
// same mix; 1: no opcode in common), weighted by the run's share of the
// work left. Ranges are widened to whole chunks (exact up to kMixChunks
// blocks).
double KernelRunner::mixDeviation(uint64_t lo, uint64_t hi, uint64_t runs) const {
  const uint64_t n = setup_.grid.count(), left = n - hi;
  const size_t ops = static_cast<size_t>(ptx::Op::Count_);
  const uint64_t chunks = block_mix_.size() / ops;
  auto shares = [&](uint64_t a, uint64_t b) {
    std::vector<double> v(ops, 0.0);
    const uint64_t c1 = std::min(chunks, (b + mix_chunk_ - 1) / mix_chunk_);
    for (uint64_t c = std::min(a / mix_chunk_, c1 ? c1 - 1 : 0); c < c1; ++c)
      for (size_t o = 0; o < ops; ++o) v[o] += double(block_mix_[c * ops + o]);
    double t = 0.0;
    for (const double x : v) t += x;
    if (t > 0.0)
      for (double& x : v) x /= t;
    return v;
  };
  const std::vector<double> window = shares(lo, hi);
  const double rest = double(block_work_[n] - block_work_[hi]);
  double deviation = 0.0;
  for (uint64_t k = 0; k < runs; ++k) {
    const uint64_t a = hi + left * k / runs, b = hi + left * (k + 1) / runs;
    const std::vector<double> run = shares(a, b);
    double d = 0.0;
    for (size_t o = 0; o < ops; ++o) d += std::fabs(run[o] - window[o]);
    deviation += double(block_work_[b] - block_work_[a]) / rest * 0.5 * d;
  }
  return deviation;
}

bool KernelRunner::admitCut() {
  if (block_work_.empty()) countBlockWork();
  const uint64_t n = setup_.grid.count(), hi = blocks_.issued();
  const uint64_t lo = std::min(sampler_->windowFirstBlock(), hi - 1);  // hi >= 1: a window had blocks
  // A group's work and its mean warp instructions per block weighted by the
  // blocks' work: the size of the block an instruction of the group belongs
  // to. Nearly empty blocks (a grid rounded up past the data: r2_kmeans'
  // last 16 of 144 blocks do 96 warp instructions against 3 320) weigh next
  // to nothing, in the cycles extrapolated as here.
  auto work = [this](uint64_t a, uint64_t b) { return double(block_work_[b] - block_work_[a]); };
  auto weighted = [&](uint64_t a, uint64_t b) {
    const double w = work(a, b);
    return w > 0.0 ? (block_work_sq_[b] - block_work_sq_[a]) / w : 0.0;
  };
  const double window = weighted(lo, hi), rest = work(hi, n);
  work_deviation_ = mix_deviation_ = 0.0;
  if (rest <= 0.0) return sampler_->admit(0.0);  // nothing left to extrapolate
  if (window <= 0.0) {  // nothing measured to compare with
    work_deviation_ = mix_deviation_ = INFINITY;
    return sampler_->admit(INFINITY);
  }
  // The blocks left, in runs as long as the window's (as many as fit,
  // evenly), each compared with the window: the deviation is the share of
  // the rest's work weighted by how far its run's mean is from the
  // window's, so that a grid whose later part varies (lt_raytrace's rows of
  // scene under the sky) is not cut on an average that happens to match.
  const uint64_t left = n - hi, runs = std::max<uint64_t>(1, (left + (hi - lo) / 2) / (hi - lo));
  double deviation = 0.0;
  for (uint64_t k = 0; k < runs; ++k) {
    const uint64_t a = hi + left * k / runs, b = hi + left * (k + 1) / runs;
    deviation += work(a, b) / rest * std::fabs(weighted(a, b) - window) / window;
  }
  work_deviation_ = deviation;
  // By their mix (sim.sample_block_compare: mix): blocks doing more or less
  // of the same work pass (lt_nqueens' searches of different depths, 0.003
  // to 0.005 from its windows), blocks doing other work do not
  // (lt_raytrace's sky rows, 0.04 to 0.06 from its scene rows).
  mix_deviation_ = mixDeviation(lo, hi, runs);
  return sampler_->admit(cfg_.sim.sample_block_compare == config::SampleBlockCompare::Mix ? mix_deviation_
                                                                                         : deviation);
}

uint64_t KernelRunner::runRestFunctionally() {
  const uint64_t before = launch_stats_.warp_instrs;
  // A mechanism's code that needs its hardware: the base code, which
  // computes the same values.
  const bool base = opt_.mechanism_code;
  func::BlockExecutor exec(base ? *opt_.base_program : program_, base ? *opt_.base_setup : setup_, launch_stats_);
  std::unique_ptr<L2Warmer> warmer;
  if (hier_ && cfg_.sim.sample_warm_l2) {
    warmer = std::make_unique<L2Warmer>(*hier_, cfg_.l2.cache.line_bytes);
    exec.setAccessSink(warmer.get());
  }
  while (blocks_.remaining()) exec.run(blocks_.next());
  if (warmer) stats_->sample.l2_lines_warmed = warmer->lines();
  return launch_stats_.warp_instrs - before;
}

// SM i found all its warps proven to repeat forever (Sm::cyclingEpoch): the
// launch is a livelock when every busy SM found the same for the same
// device epoch, since then no warp anywhere writes what another could read.
// An SM without blocks stays idle: one with room would have taken a block.
void KernelRunner::checkLivelock(uint32_t i, uint64_t cycle) const {
  const uint64_t epoch = sms_[i]->cyclingEpoch();
  for (const std::unique_ptr<sm::Sm>& o : sms_)
    if (!o->idle() && o->cyclingEpoch() != epoch) return;
  throw Error(fmt::format("kernel {}: stopped as a runaway kernel at cycle {}: livelock, proven: every warp of every "
                          "busy SM came back to a state it had, with no write to memory other threads can see, no "
                          "barrier and no exit in between, so none can ever end (looked for after {} cycles "
                          "without such a write, pipeline.livelock_proof_cycles); sm{}'s warps:\n{}",
                          setup_.kernel && setup_.kernel->fn ? setup_.kernel->fn->name : std::string("?"), cycle,
                          cfg_.pipeline.livelock_proof_cycles, i, sms_[i]->dumpState()));
}

// The launch so far: cycles, speed, and the ETA from the blocks retired.
void KernelRunner::showProgress(uint64_t cycle) {
  uint64_t retired = 0;
  for (const auto& s : sms_) retired += s->stats().blocks_retired.get();
  const uint64_t total = setup_.grid.count();
  const double secs = opt_.progress->elapsed();
  const std::string eta =
      retired ? fmt::format(", ETA {:.0f} s", secs * double(total - retired) / double(retired)) : std::string();
  opt_.progress->show(fmt::format("kernel {}: cycle {}, {} of {} blocks, {} warp-instr/s{}",
                                  setup_.kernel && setup_.kernel->fn ? setup_.kernel->fn->name : std::string("?"),
                                  ProgressLine::human(double(cycle)), retired, total,
                                  ProgressLine::human(double(warp_instrs_) / secs), eta));
}

// The work the DRAM channels have taken on beyond `cycle` (the launch's):
// how far each channel's data bus is booked past it, in core cycles,
// averaged over the channels.
double KernelRunner::dramBacklog(uint64_t cycle) const {
  const uint64_t period = hier_->periodPs(), now = origin_ps_ + cycle * period;
  double sum = 0.0;
  for (uint32_t k = 0; k < hier_->numChannels(); ++k) {
    const uint64_t busy = hier_->channel(k).idleAfterPs();
    if (busy > now) sum += double(busy - now);
  }
  return sum / double(period) / double(std::max(1u, hier_->numChannels()));
}

uint64_t KernelRunner::nextEventCycle(uint32_t i, uint64_t cycle) const {
  return opt_.skip_idle ? sms_[i]->nextActiveCycle(cycle) : cycle;
}

KernelRunResult KernelRunner::run() {
  ScKernel::Scope in(sim_->kernel());
  const auto t0 = std::chrono::steady_clock::now();
  mem::HierarchyCounters before;
  if (hier_) before = hier_->counters();
  const config::SampleMode sample = cfg_.sim.sample;
  // A mechanism's code that needs its hardware is cut only where the base
  // code is there to run the blocks left (Options::base_program).
  const bool base_rest = opt_.mechanism_code;  // the blocks a cut leaves run the base code
  if ((sample == config::SampleMode::Blocks || sample == config::SampleMode::All) &&
      (!base_rest || (opt_.base_program && opt_.base_setup)))
    sampler_ = std::make_unique<BlockSampler>(
        numSms(), setup_.grid.count(), cfg_.sim.sample_window, cfg_.sim.sample_tolerance, cfg_.sim.sample_min_share,
        uint64_t{cfg_.l2.cache.size_kb} * 1024 / std::max(1u, cfg_.l2.cache.line_bytes),
        cfg_.sim.sample_block_compare == config::SampleBlockCompare::Mix ? cfg_.sim.sample_block_mix_tolerance
                                                                         : cfg_.sim.sample_block_tolerance);
  // By blocks: the memory the launch starts from, to count every block's
  // warp instructions when the sampler first wants to cut (countBlockWork:
  // the cut's last guard, and, for a mechanism's code that leaves its blocks
  // to the base code, the base code's instructions of the blocks run in
  // detail). Not for a kernel whose blocks' effects a second run would
  // repeat or change (printf, malloc, ...: blockOrderDependence; such a
  // launch is cut without that guard), nor for a grid too small to be cut
  // (a block per SM must be left unstarted).
  const func::Program& rest_program = base_rest && opt_.base_program ? *opt_.base_program : program_;
  const func::LaunchSetup& rest_setup = base_rest && opt_.base_setup ? *opt_.base_setup : setup_;
  if (sampler_ && setup_.grid.count() > numSms() && rest_setup.kernel &&
      rest_program.blockOrderDependence(*rest_setup.kernel).empty())
    start_memory_ = std::make_unique<func::GlobalMemory::Snapshot>(program_.memory().snapshot());
  dealInitialBlocks();
  struct ClearLine {
    ProgressLine* p;
    ~ClearLine() {
      if (p) p->clear();
    }
  } clear_line{opt_.progress};
  if (opt_.progress) opt_.progress->begin();
  const uint64_t cycles = opt_.mode == Mode::SystemC ? runSystemC() : runLoop();
  for (const rt::LaunchStats& s : sm_launch_stats_) launch_stats_ += s;
  program_.memory().writeCounter() = deviceWrites();
  std::vector<sm::Sm*> sms;
  std::vector<const mem::L1dMemory*> l1ds;
  for (size_t i = 0; i < sms_.size(); ++i) {
    sms.push_back(sms_[i].get());
    l1ds.push_back(l1d_[i].get());
  }
  if (hier_) {
    const mem::HierarchyCounters delta = hier_->counters() - before;
    stats_->collect(sms, l1ds, sm_cycles_, cycles, &delta);
  } else {
    stats_->collect(sms, l1ds, sm_cycles_, cycles, nullptr);
  }
  KernelRunResult r;
  r.cycles = cycles;
  r.warp_instrs = stats_->warp_instrs.get();
  r.blocks = setup_.grid.count();
  stats_->sample.blocks_detailed = stats_->blocks.get();
  if (sampler_) {
    stats_->sample.intervals = sampler_->intervals();
    stats_->sample.spread = sampler_->spread();
    stats_->sample.work_deviation = work_deviation_;
    stats_->sample.mix_deviation = mix_deviation_;
    stats_->sample.cuts_refused += sampler_->refused();
  }
  if (cut_) {
    const uint64_t unstarted = setup_.grid.count() - blocks_.issued();
    // The base code's warp instructions of the blocks run in detail.
    const uint64_t detailed_base = base_rest && !block_work_.empty() ? block_work_[blocks_.issued()] : 0;
    const uint64_t w = runRestFunctionally();
    if (!base_rest) {
      r.cycles = sampler_->extrapolate(cycles, w);
    } else if (detailed_base) {
      // The base code's instructions of the blocks left, scaled by the
      // launch's code's over the base code's on the blocks run in detail.
      const double ratio = double(stats_->warp_instrs.get()) / double(detailed_base);
      r.cycles = sampler_->extrapolate(cycles, static_cast<uint64_t>(std::llround(ratio * double(w))));
    } else {  // at the mean warp instructions of the blocks run in detail
      r.cycles = sampler_->extrapolateBlocks(
          cycles, unstarted, double(stats_->warp_instrs.get()) / double(std::max<uint64_t>(1, stats_->blocks.get())));
    }
    r.blocks_functional = unstarted;
    stats_->sample.blocks_functional = unstarted;
    stats_->sample.cycles_extrapolated = r.cycles - cycles;
    stats_->sample.warp_instrs_functional = w;
  }
  r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

uint64_t KernelRunner::runLoop() {
  const uint32_t n = numSms();
  sc_core::sc_time origin = sc_core::SC_ZERO_TIME;
  GpuTop* top = hier_ ? &sim_->top(cfg_) : nullptr;
  if (top) origin = top->nextOrigin(cfg_.sim.quantum_cycles);
  origin_ps_ = mem::toPs(origin);
  for (uint32_t i = 0; hier_ && i < n; ++i) hier_->port(i).setOrigin(origin);
  std::vector<uint64_t> next(n, 0);
  std::vector<bool> done(n, false);
  uint32_t left = n;
  for (uint64_t cycle = 0; left; ++cycle) {
    for (uint32_t i = 0; i < n; ++i) {
      if (done[i] || next[i] > cycle) continue;
      if (step(i, cycle)) {
        done[i] = true;
        --left;
      } else {
        next[i] = nextEventCycle(i, cycle + 1);
      }
    }
  }
  const uint64_t cycles = *std::max_element(sm_cycles_.begin(), sm_cycles_.end());
  if (top) top->launchEnded(origin, cycles);
  return cycles;
}

uint64_t KernelRunner::runSystemC() {
  GpuTop& top = sim_->top(cfg_);
  const uint32_t n = numSms();
  const sc_core::sc_time origin = top.nextOrigin(cfg_.sim.quantum_cycles);
  // The slots must not keep a pointer to this launch, whatever happens.
  struct Detach {
    GpuTop& top;
    ~Detach() {
      if (sc_core::sc_get_status() != sc_core::SC_RUNNING) top.detachAll();
    }
  } detach{top};
  origin_ps_ = mem::toPs(origin);
  for (uint32_t i = 0; hier_ && i < n; ++i) hier_->port(i).setOrigin(origin);
  // The ports outlive the launch: their replies are deferred for it only.
  struct Deferred {
    mem::MemoryHierarchy* hier;
    uint32_t n;
    ~Deferred() {
      for (uint32_t i = 0; hier && i < n; ++i) hier->port(i).setDeferred(false);
    }
  } deferred{parallel_ ? hier_ : nullptr, n};
  for (uint32_t i = 0; parallel_ && i < n; ++i) hier_->port(i).setDeferred(true);
  dev_writes_ = deviceWrites();
  top.simulate(*this, n, origin, cfg_.sim.quantum_cycles, opt_.reverse_steps);
  uint64_t cycles = *std::max_element(sm_cycles_.begin(), sm_cycles_.end());
  uint64_t reached = 0;  // the furthest any SM's local time went
  for (uint32_t i = 0; i < n; ++i) reached = std::max(reached, top.slot(i).cycles());
  top.launchEnded(origin, reached);
  for (uint32_t i = 0; i < n; ++i)
    if (top.slot(i).failed()) std::rethrow_exception(top.slot(i).error());
  if (top.phaseError()) std::rethrow_exception(top.phaseError());
  for (uint32_t i = 0; i < n; ++i)
    if (top.slot(i).running())
      throw Error(fmt::format("{}: the simulation paused before the kernel ended", top.slot(i).name()));
  return cycles;
}

}  // namespace rfsim::gpu
