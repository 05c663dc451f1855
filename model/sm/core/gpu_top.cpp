#include "sm/core/gpu_top.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm.h"

namespace rfsim::sm {

using sc_core::sc_time;

namespace {
// Inside sc_start() (sc_is_running() is also true while paused).
bool simulating() { return sc_core::sc_get_status() == sc_core::SC_RUNNING; }
}  // namespace

sc_time clockPeriod(const config::GpuConfig& cfg) {
  // Whole picoseconds (SystemC's default resolution), so that edge times
  // are exact multiples of the period and cycles = elapsed / period exactly.
  return sc_time(std::round(1e6 / cfg.gpu.clock_mhz), sc_core::SC_PS);
}

SmSlot::SmSlot(sc_core::sc_module_name name, const sc_time& period)
    : sc_module(name), clk("clk"), period_(period) {
  SC_METHOD(onClock);
  sensitive << clk.pos();
  dont_initialize();
}

void SmSlot::attach(Sm& sm, rt::Dim3 grid) {
  if (simulating()) throw Error("SmSlot::attach: the simulation is running");
  if (sm_) throw Error(fmt::format("{}: already has an SM attached", name()));
  sm_ = &sm;
  grid_ = grid;
  total_ = grid.count();
  next_ = ticks_ = 0;
  start_ = end_ = sc_core::SC_ZERO_TIME;
  error_ = nullptr;
  state_ = State::Waking;
  // Before the first sc_start() the process is still statically sensitive
  // to the clock, and the first edge wakes it; afterwards it waits on wake_.
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION) wake_.notify(sc_core::SC_ZERO_TIME);
}

void SmSlot::detach() {
  if (simulating()) throw Error("SmSlot::detach: the simulation is running");
  wake_.cancel();
  sm_ = nullptr;
  state_ = State::Free;
}

void SmSlot::onClock() {
  switch (state_) {
    case State::Free:
    case State::Done:
      next_trigger(wake_);  // nothing to clock: sleep, at no cost per cycle
      return;
    case State::Waking:
      // Woken between clock edges (or, on the very first launch, by the
      // first edge): from here on the static sensitivity (the posedge)
      // applies again, and the next edge is this launch's cycle 0.
      state_ = State::Running;
      if (next_ >= total_ && sm_->idle()) finish();  // an empty grid: 0 cycles
      return;
    case State::Running:
      break;
  }
  try {
    step();
  } catch (...) {
    // SystemC would turn the exception into an sc_report and lose its type
    // (and end the simulation); keep it for KernelRunner::run() instead.
    error_ = std::current_exception();
    finish();
  }
}

// One cycle, exactly as KernelRunner's plain loop does it.
void SmSlot::step() {
  if (ticks_ == 0) start_ = sc_core::sc_time_stamp();
  const rt::Dim3 g = grid_;
  while (next_ < total_ && sm_->canLaunch()) {
    sm_->launch(rt::Dim3{static_cast<uint32_t>(next_ % g.x), static_cast<uint32_t>((next_ / g.x) % g.y),
                         static_cast<uint32_t>(next_ / (uint64_t(g.x) * g.y))});
    ++next_;
  }
  sm_->tick(ticks_);
  ++ticks_;
  if (next_ >= total_ && sm_->idle()) finish();
}

void SmSlot::finish() {
  end_ = ticks_ ? start_ + period_ * double(ticks_) : start_;
  // What the clock says must be what the loop counted (edge times are exact).
  if (ticks_ && sc_core::sc_time_stamp() + period_ != end_ && !error_)
    error_ = std::make_exception_ptr(Error(fmt::format(
        "{}: {} ticks but the clock edges span {} (period {})", name(), ticks_,
        (sc_core::sc_time_stamp() + period_ - start_).to_string(), period_.to_string())));
  state_ = State::Done;
  next_trigger(wake_);
  done_.notify(sc_core::SC_ZERO_TIME);
}

GpuTop& GpuTop::get(const config::GpuConfig& cfg) {
  const sc_time period = clockPeriod(cfg);
  static GpuTop* top = nullptr;  // never destroyed: see the header
  if (!top) {
    if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
      throw Error("the SystemC simulation of this process was started before the GPU top was created; "
                  "run SystemC-mode timing in a process of its own (or use KernelRunner::Mode::Loop)");
    top = new GpuTop("gpu", period, kSlots);
  }
  if (top->period() != period)
    throw Error(fmt::format("the GPU top runs at a clock period of {}, this configuration asks for {} "
                            "(gpu.clock_mhz {}); one process simulates one clock",
                            top->period().to_string(), period.to_string(), cfg.gpu.clock_mhz));
  return *top;
}

GpuTop::GpuTop(sc_core::sc_module_name name, const sc_time& period, size_t num_slots)
    : sc_module(name), period_(period), clock_("clock", period) {
  for (size_t i = 0; i < num_slots; ++i) {
    slots_.push_back(std::make_unique<SmSlot>(fmt::format("sm{}", i).c_str(), period));
    slots_.back()->clk(clock_);
  }
  SC_METHOD(onSlotDone);
  for (const auto& s : slots_) sensitive << s->doneEvent();
  dont_initialize();
}

void GpuTop::onSlotDone() {
  bool running = false, failed = false;
  for (const auto& s : slots_) {
    running |= s->running();
    failed |= s->failed();
  }
  if (running && !failed) return;
  kernel_done_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_pause();  // sc_start() returns at the end of this delta cycle
}

void GpuTop::simulate() {
  switch (sc_core::sc_get_status()) {
    case sc_core::SC_ELABORATION:
    case sc_core::SC_PAUSED:
      break;
    default:
      throw Error(fmt::format("the SystemC simulation cannot be resumed (status {}): sc_stop() ends it for good",
                              int(sc_core::sc_get_status())));
  }
  bool any = false;
  for (const auto& s : slots_) any |= s->running();
  if (!any) return;
  try {
    sc_core::sc_start();
  } catch (const sc_core::sc_report& r) {
    throw Error(std::string("SystemC: ") + r.what());
  }
  if (sc_core::sc_get_status() != sc_core::SC_PAUSED)
    throw Error(fmt::format("the SystemC simulation ended before the kernel did (status {})",
                            int(sc_core::sc_get_status())));
}

}  // namespace rfsim::sm
