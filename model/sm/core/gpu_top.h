// The GPU top as SystemC sees it: one core clock and N SM slots, each an
// sc_module with ONE clocked SC_METHOD that ticks the Sm attached to it
// (STYLE.md "SystemC and speed": no sc_signal per wire, an idle SM sleeps).
//
// Why slots, not one module per Sm: an Sm is built per launch (from the
// launch's Program and LaunchSetup), but SystemC cannot create modules once
// the simulation has started, and sc_stop() ends it for good. So the modules
// are persistent and a launch attaches its Sm to a slot, runs the simulation
// until every attached slot is done (sc_pause() from inside the simulation,
// sc_start() returns), and detaches it; the next launch calls sc_start()
// again. Simulated time keeps running across launches; a launch's cycles are
// measured from the time stamps of its own first and last clock edge.
//
// A slot's process, per posedge: launch blocks (grid order, x fastest) while
// Sm::canLaunch(), then Sm::tick(cycle). When no block is left and the Sm is
// idle (or the Sm threw) it marks itself done, stops being clocked
// (next_trigger(wake event): a free slot costs nothing per cycle) and
// notifies its done event; the top's process pauses the simulation when no
// attached slot is still running, or as soon as one failed.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include <systemc>

#include "config/gpu_config.h"
#include "runtime/runtime.h"

namespace rfsim::sm {

class Sm;

class SmSlot : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(SmSlot);
  SmSlot(sc_core::sc_module_name name, const sc_core::sc_time& period);

  sc_core::sc_in<bool> clk;

  // Gives `sm` the blocks of `grid` to run from the next clock edge on.
  // Only while the simulation is not running (before sc_start / paused).
  void attach(Sm& sm, rt::Dim3 grid);
  // Forgets the Sm (the slot is free again); its results stay readable.
  void detach();

  bool attached() const { return sm_ != nullptr; }
  // Attached and not yet done.
  bool running() const { return state_ == State::Waking || state_ == State::Running; }
  bool failed() const { return error_ != nullptr; }
  std::exception_ptr error() const { return error_; }
  // Clock edges the attached Sm was ticked on (the plain loop's cycle count).
  uint64_t ticks() const { return ticks_; }
  // Simulated time of the first tick and of the clock edge after the last.
  sc_core::sc_time startTime() const { return start_; }
  sc_core::sc_time endTime() const { return end_; }
  const sc_core::sc_event& doneEvent() const { return done_; }

 private:
  enum class State { Free, Waking, Running, Done };

  void onClock();
  void step();
  void finish();

  sc_core::sc_time period_;
  sc_core::sc_event wake_, done_;
  State state_ = State::Free;
  Sm* sm_ = nullptr;
  rt::Dim3 grid_;
  uint64_t total_ = 0, next_ = 0, ticks_ = 0;
  sc_core::sc_time start_, end_;
  std::exception_ptr error_;
};

class GpuTop : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(GpuTop);

  // The process's GPU top, created on first use with the clock of `cfg` and
  // kSlots slots. Lifetime: created lazily (it must be before the first
  // sc_start() of the process, which elaborates it), owned by this function
  // and never destroyed: SystemC objects live as long as the simulation
  // kernel, i.e. the process. Throws rfsim::Error when the simulation can no
  // longer take it (already started without it, or stopped), or when `cfg`
  // asks for another clock than the one it was created with.
  static GpuTop& get(const config::GpuConfig& cfg);

  // One SM for now (multi-SM comes with the memory system).
  static constexpr size_t kSlots = 1;

  GpuTop(sc_core::sc_module_name name, const sc_core::sc_time& period, size_t num_slots);

  size_t numSlots() const { return slots_.size(); }
  SmSlot& slot(size_t i) { return *slots_.at(i); }
  const sc_core::sc_time& period() const { return period_; }
  // Notified when the last running slot is done (or one failed).
  const sc_core::sc_event& kernelDoneEvent() const { return kernel_done_; }

  // Runs the simulation (sc_start) until no attached slot is running or
  // one failed; returns with the simulation paused, ready for the next call.
  void simulate();

 private:
  void onSlotDone();

  sc_core::sc_time period_;
  sc_core::sc_clock clock_;
  std::vector<std::unique_ptr<SmSlot>> slots_;
  sc_core::sc_event kernel_done_;
};

// The clock period of `cfg` (gpu.clock_mhz), rounded to the picosecond.
sc_core::sc_time clockPeriod(const config::GpuConfig& cfg);

}  // namespace rfsim::sm
