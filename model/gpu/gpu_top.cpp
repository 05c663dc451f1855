#include "gpu/gpu_top.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "gpu/kernel_runner.h"
#include "gpu/sm_pool.h"
#include "mem/tlm/hierarchy.h"

namespace rfsim::gpu {

using sc_core::sc_time;

namespace {
// Inside sc_start() (sc_is_running() is also true while paused).
bool simulating() { return sc_core::sc_get_status() == sc_core::SC_RUNNING; }
}  // namespace

sc_time clockPeriod(const config::GpuConfig& cfg) {
  // Whole picoseconds (SystemC's default resolution), so that edge times
  // are exact multiples of the period and cycles = elapsed / period exactly;
  // the memory hierarchy's own period, so the two agree by construction.
  return sc_time(double(mem::corePeriodPs(cfg)), sc_core::SC_PS);
}

SmSlot::SmSlot(sc_core::sc_module_name name, const sc_time& period, uint32_t index,
               const std::vector<sm::UnitInfo>& units)
    : sc_module(name), period_(period), index_(index) {
  // Made while this slot is being constructed: SystemC makes them its children.
  for (const sm::UnitInfo& u : units) units_.push_back(std::make_unique<SmUnitModule>(u.name.c_str(), u));
}

void SmSlot::attach(KernelRunner& k, const sc_time& origin) {
  if (simulating()) throw Error("SmSlot::attach: the simulation is running");
  if (k_) throw Error(fmt::format("{}: already has a launch attached", name()));
  k_ = &k;
  origin_ = origin;
  cycle_ = 0;
  error_ = nullptr;
  state_ = State::Running;
}

void SmSlot::detach() {
  if (simulating()) throw Error("SmSlot::detach: the simulation is running");
  k_ = nullptr;
  state_ = State::Free;
}

bool SmSlot::stepOnce() {
  const bool done = k_->step(index_, cycle_);
  ++cycle_;
  if (done) {
    state_ = State::Done;
    return true;
  }
  // Skip the cycles in which nothing can happen on this SM.
  cycle_ = std::max(cycle_, k_->nextEventCycle(index_, cycle_));
  return false;
}

void SmSlot::runQuantum() {
  if (state_ != State::Running) return;
  const sc_time now = sc_core::sc_time_stamp();
  if (nextTime() > now) {  // asleep until a later quantum (skipped cycles)
    qk_.reset();
    qk_.set(nextTime() - now);
    if (qk_.need_sync()) return;
  } else {
    qk_.reset();  // local time 0 = cycle_; the next sync point is the quantum's end
  }
  try {
    for (;;) {
      if (stepOnce()) return;
      qk_.set(nextTime() - now);
      if (qk_.need_sync()) return;
    }
  } catch (...) {
    // SystemC would turn the exception into an sc_report and lose its type
    // (and end the simulation); keep it for KernelRunner::run() instead.
    error_ = std::current_exception();
    state_ = State::Done;
  }
}

void SmSlot::runUntil(uint64_t boundary) {
  if (state_ != State::Running) return;
  try {
    while (cycle_ < boundary)
      if (stepOnce()) return;
  } catch (...) {
    error_ = std::current_exception();
    state_ = State::Done;
  }
}

void SmSlot::afterPhase(uint64_t boundary, bool launched) {
  if (state_ != State::Running) return;
  // Nothing before the boundary changed: the phase resolved replies at or
  // after it, and a block dealt starts there.
  cycle_ = launched ? boundary : std::max(boundary, k_->nextEventCycle(index_, boundary));
}

GpuTop::GpuTop(sc_core::sc_module_name name, const config::GpuConfig& cfg, const ExtraSmUnits& extra)
    : sc_module(name), period_(clockPeriod(cfg)) {
  mem_ = std::make_unique<mem::MemoryHierarchy>("mem", cfg, cfg.gpu.num_sms);
  for (uint32_t i = 0; i < cfg.gpu.num_sms; ++i) {
    std::vector<sm::UnitInfo> units = sm::smUnits();
    if (extra)
      for (sm::UnitInfo& u : extra(i)) {
        for (const sm::UnitInfo& v : units)
          if (v.name == u.name)
            throw Error(fmt::format("SM unit '{}' is declared twice (a mechanism's unit needs a name of its own)",
                                    u.name));
        units.push_back(std::move(u));
      }
    slots_.push_back(std::make_unique<SmSlot>(fmt::format("sm{}", i).c_str(), period_, i, units));
  }
  // Runs once at the start of the simulation (a launch attached during
  // elaboration starts there), then whenever kicked or re-triggered.
  SC_METHOD(onQuantum);
  sensitive << kick_;
}

GpuTop::~GpuTop() = default;

sc_time GpuTop::nextOrigin(uint32_t quantum) const {
  const sc_time t = std::max(sc_core::sc_time_stamp(), busy_until_);
  const sc_time q = period_ * double(std::max(1u, quantum));
  return q * std::ceil(t / q);
}

void GpuTop::launchEnded(const sc_time& origin, uint64_t cycles) {
  busy_until_ = std::max(busy_until_, origin + period_ * double(cycles));
}

void GpuTop::onQuantum() {
  if (attached_ == 0) return;  // static sensitivity: the next kick_
  const sc_time now = sc_core::sc_time_stamp();
  bool running = false, failed = false;
  sc_time next = sc_core::sc_max_time();
  uint64_t boundary = 0;  // parallel(): the next quantum's first cycle
  if (!k_->parallel()) {
    for (uint32_t k = 0; k < attached_; ++k) {
      SmSlot& s = *slots_[reverse_ ? attached_ - 1 - k : k];
      s.runQuantum();
      failed |= s.failed();
    }
  } else {
    // The quantum's end: the first cycle of the next global quantum.
    const uint64_t q = uint64_t(std::llround(tlm_utils::tlm_quantumkeeper::get_global_quantum() / period_));
    const uint64_t at = uint64_t(std::llround((now - slots_[0]->origin()) / period_));
    boundary = (at / q + 1) * q;
    const uint32_t threads = k_->threads();
    if (threads > 1 && (!pool_ || pool_->threads() != threads)) pool_ = std::make_unique<SmPool>(threads);
    const bool reverse = reverse_ && !k_->inSmOrder();
    const uint32_t n = attached_;
    const std::function<void(uint32_t)> job = [&](uint32_t k) { slots_[reverse ? n - 1 - k : k]->runUntil(boundary); };
    if (threads > 1) {
      pool_->run(n, job);
    } else {
      for (uint32_t k = 0; k < n; ++k) job(k);
    }
    for (uint32_t i = 0; i < n; ++i) failed |= slots_[i]->failed();
  }
  if (!failed && k_->parallel()) {
    try {
      k_->phase(boundary, launched_, k_->threads() > 1 ? pool_.get() : nullptr);
      for (uint32_t i = 0; i < attached_; ++i) slots_[i]->afterPhase(boundary, launched_[i]);
    } catch (...) {
      phase_error_ = std::current_exception();
      failed = true;
    }
  }
  for (uint32_t i = 0; i < attached_; ++i) {
    const SmSlot& s = *slots_[i];
    if (s.running()) {
      running = true;
      next = std::min(next, s.nextTime());
    }
  }
  if (!running || failed) {
    sc_core::sc_pause();  // sc_start() returns at the end of this delta cycle
    return;
  }
  // The earliest SM's next cycle (at least the next cycle edge).
  next_trigger(std::max(next, now + period_) - now);
}

void GpuTop::simulate(KernelRunner& k, uint32_t n, const sc_time& origin, uint32_t quantum, bool reverse) {
  switch (sc_core::sc_get_status()) {
    case sc_core::SC_ELABORATION:
    case sc_core::SC_PAUSED:
      break;
    default:
      throw Error(fmt::format("the SystemC simulation cannot be resumed (status {}): sc_stop() ends it for good",
                              int(sc_core::sc_get_status())));
  }
  if (n > slots_.size()) throw Error(fmt::format("GpuTop: {} SMs asked for, {} slots", n, slots_.size()));
  detachAll();
  tlm_utils::tlm_quantumkeeper::set_global_quantum(period_ * double(quantum));
  for (uint32_t i = 0; i < n; ++i) slots_[i]->attach(k, origin);
  attached_ = n;
  k_ = &k;
  reverse_ = reverse;
  phase_error_ = nullptr;
  if (n == 0) return;
  // Before the first sc_start() the process's initial run starts the launch.
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION) kick_.notify(origin - sc_core::sc_time_stamp());
  try {
    sc_core::sc_start();
  } catch (const sc_core::sc_report& r) {
    throw Error(std::string("SystemC: ") + r.what());
  }
  if (sc_core::sc_get_status() != sc_core::SC_PAUSED)
    throw Error(fmt::format("the SystemC simulation ended before the kernel did (status {})",
                            int(sc_core::sc_get_status())));
}

void GpuTop::detachAll() {
  for (uint32_t i = 0; i < attached_; ++i) slots_[i]->detach();
  attached_ = 0;
  k_ = nullptr;
}

}  // namespace rfsim::gpu
