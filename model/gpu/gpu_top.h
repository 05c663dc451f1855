// The GPU top as SystemC sees it: one SM slot per SM of the chip and the
// memory hierarchy below the L1Ds (crossbar, L2 slices, DRAM channels:
// mem/tlm/hierarchy.h), joined by TLM-2.0 sockets.
//
// Why slots, not one module per Sm: an Sm is built per launch (from the
// launch's Program and LaunchSetup), but SystemC cannot create modules once
// the simulation has started, and sc_stop() ends it for good. So the modules
// are persistent (created once per simulation, gpu::Simulation, at its
// first launch) and a
// launch attaches to the slots, runs the simulation until every attached
// slot is done (sc_pause() from inside the simulation, sc_start() returns),
// and detaches; the next launch calls sc_start() again. Simulated time keeps
// running across launches, and so does the L2's content (a kernel sees the
// L2 its predecessors left, as on a GPU; the L1Ds are per launch).
//
// Loosely timed (TLM-2.0 LT, docs/memory.md "Loosely timed, with a
// quantum"): the top's one SC_METHOD wakes once per global quantum
// (sim.quantum_cycles) and lets each attached SM, in SM order, run up to the quantum's end: every slot keeps
// its SM's local time in a tlm_utils::tlm_quantumkeeper and annotates each
// memory request with it (the b_transport delay). So SMs run up to a quantum
// ahead of SystemC time, and requests from different SMs meet in the shared
// queues of the crossbar, L2 and DRAM in SM order within a quantum rather
// than strictly in time order (the LT trade of accuracy for speed; its
// effect is measured in docs/memory.md). With a quantum of 1 the SMs run in
// lockstep, cycle by cycle in SM order, exactly as KernelRunner's plain loop
// does (tested identical). No process runs per cycle: an SM whose next
// cycle with work lies beyond the quantum (Sm::nextActiveCycle), or that
// has finished, costs nothing, and the process sleeps until the earliest
// SM's next cycle.
//
// With sim.parallel_sms the SMs of a quantum do not meet in the memory side
// as they run: their requests wait in their ports, and the quantum ends with
// a phase (KernelRunner::phase) that sends them in (cycle, SM) order, deals
// blocks and sums what the SMs share, so the slots may be stepped in any
// order (docs/memory.md, "Parallel SMs"), and on sim.threads host threads
// at once (sm_pool.h).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "config/gpu_config.h"
#include "sm/core/sm_units.h"

namespace rfsim::mem {
class MemoryHierarchy;
}

namespace rfsim::gpu {

class KernelRunner;
class SmPool;

// The units of each SM, besides the SM's own (sm::smUnits()): those the
// enabled mechanisms add to SM `sm_id` (mech::Mechanism::smUnits).
using ExtraSmUnits = std::function<std::vector<sm::UnitInfo>(uint32_t sm_id)>;

// One unit of an SM as a module of the hierarchy (sm/core/sm_units.h): its
// name, what it is and where its statistics are. It has no process, port
// or signal: the SM's one clocked process ticks the unit in pipeline order.
class SmUnitModule : public sc_core::sc_module {
 public:
  SmUnitModule(sc_core::sc_module_name name, sm::UnitInfo info) : sc_module(name), info_(std::move(info)) {}
  const char* kind() const override { return "rfsim_sm_unit"; }
  const sm::UnitInfo& info() const { return info_; }

 private:
  sm::UnitInfo info_;
};

// One SM's place in the top: the launch it runs and its local time, and
// its units as child modules (gpu.sm<i>.issue, ...).
class SmSlot : public sc_core::sc_module {
 public:
  SmSlot(sc_core::sc_module_name name, const sc_core::sc_time& period, uint32_t index,
         const std::vector<sm::UnitInfo>& units);
  const char* kind() const override { return "rfsim_sm"; }
  const std::vector<std::unique_ptr<SmUnitModule>>& units() const { return units_; }

  // Runs SM `index` of `k` from simulated time `origin` (its cycle 0) on.
  // Only while the simulation is not running (before sc_start / paused).
  void attach(KernelRunner& k, const sc_core::sc_time& origin);
  void detach();

  uint32_t index() const { return index_; }
  bool attached() const { return k_ != nullptr; }
  bool running() const { return state_ == State::Running; }
  bool failed() const { return error_ != nullptr; }
  std::exception_ptr error() const { return error_; }
  // Cycles from the origin to the SM's next cycle (after the run: its last
  // cycle + 1).
  uint64_t cycles() const { return cycle_; }
  // Simulated time of the SM's next cycle.
  sc_core::sc_time nextTime() const { return origin_ + period_ * double(cycle_); }
  const sc_core::sc_time& origin() const { return origin_; }

  // Called by the top at each quantum: runs the SM's cycles up to the
  // quantum's end (tlm_quantumkeeper::need_sync). An exception ends the
  // slot (failed()).
  void runQuantum();
  // sim.parallel_sms, after the phase (KernelRunner::phase) at the end of
  // the quantum whose successor starts at cycle `boundary`: the SM's next
  // cycle again, from what the phase resolved; `launched`: it took a block,
  // which starts at `boundary`.
  void afterPhase(uint64_t boundary, bool launched);
  // sim.parallel_sms: runQuantum without SystemC (safe on any host thread):
  // the SM's cycles before `boundary`, the next quantum's first cycle.
  void runUntil(uint64_t boundary);

 private:
  // Ticks the SM at cycle_ and moves cycle_ past the cycles in which
  // nothing can happen on it; true when the SM is done.
  bool stepOnce();
  enum class State { Free, Running, Done };

  sc_core::sc_time period_;
  uint32_t index_;
  State state_ = State::Free;
  KernelRunner* k_ = nullptr;
  sc_core::sc_time origin_;
  uint64_t cycle_ = 0;  // the SM's next cycle
  tlm_utils::tlm_quantumkeeper qk_;
  std::exception_ptr error_;
  std::vector<std::unique_ptr<SmUnitModule>> units_;
};

class GpuTop : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(GpuTop);

  // Made by gpu::Simulation (simulation.h), in its own SystemC kernel.
  GpuTop(sc_core::sc_module_name name, const config::GpuConfig& cfg, const ExtraSmUnits& extra = {});
  const char* kind() const override { return "rfsim_gpu"; }
  ~GpuTop() override;

  size_t numSlots() const { return slots_.size(); }
  SmSlot& slot(size_t i) { return *slots_.at(i); }
  mem::MemoryHierarchy& memory() { return *mem_; }
  const sc_core::sc_time& period() const { return period_; }

  // Where the next launch's cycle 0 is: at or after the current SystemC
  // time and after everything earlier launches did (their SMs may have run
  // up to a quantum ahead), on a boundary of a global quantum of `quantum`
  // cycles (absolute multiples of it, tlm_quantumkeeper): so a launch sees
  // the same quantum boundaries, hence the same results, whatever ran
  // before it.
  sc_core::sc_time nextOrigin(uint32_t quantum) const;
  // A launch whose cycle 0 was `origin` took `cycles` cycles.
  void launchEnded(const sc_core::sc_time& origin, uint64_t cycles);

  // Attaches SMs 0 .. n-1 of `k` to the first n slots with cycle 0 at
  // `origin` and a global quantum of `quantum` cycles, runs the simulation
  // (sc_start) until no attached slot is running or one failed, and
  // returns with the simulation paused, ready for the next launch. The
  // slots stay attached (results readable) until detachAll().
  // `reverse`: step the slots of each quantum in reverse order (tests).
  // With sim.parallel_sms (KernelRunner::parallel) each quantum ends with
  // the runner's phase.
  void simulate(KernelRunner& k, uint32_t n, const sc_core::sc_time& origin, uint32_t quantum,
                bool reverse = false);
  void detachAll();
  // What the last simulate()'s phase threw (null: nothing).
  std::exception_ptr phaseError() const { return phase_error_; }

 private:
  void onQuantum();

  sc_core::sc_time period_;
  std::vector<std::unique_ptr<SmSlot>> slots_;
  std::unique_ptr<mem::MemoryHierarchy> mem_;
  sc_core::sc_time busy_until_;
  sc_core::sc_event kick_;
  uint32_t attached_ = 0;
  KernelRunner* k_ = nullptr;  // the launch attached
  bool reverse_ = false;
  std::vector<bool> launched_;  // the phase's
  std::exception_ptr phase_error_;
  std::unique_ptr<SmPool> pool_;  // sim.parallel_sms with sim.threads > 1
};

// The clock period of `cfg` (gpu.clock_mhz), rounded to the picosecond.
sc_core::sc_time clockPeriod(const config::GpuConfig& cfg);

}  // namespace rfsim::gpu
