// The energy model: event counts times energy per event, plus static power
// times time, in the style of GPUWattch and AccelWattch (docs/energy.md).
//
// Every structure the timing model counts is one line of the account: its
// events are read from the launch's GPU statistics by name (the table in
// energy_model.cpp says which statistic each structure counts), its energy
// per event from the `energy:` section of the configuration. Mechanisms add
// lines for the structures they add (mech::Mechanism::energyStructures),
// computed from their own statistics. Static power (the SMs, the memory
// side, the board's constant part) is charged over the launch's cycles.
//
// The account is linear in the counts, so the energy of a workload is the
// account of its launches' summed statistics (the same as summing each
// launch's energy).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "stats/stats.h"

namespace rfsim::energy {

// One line of the account.
struct Structure {
  std::string name;             // "regfile_read", "l1d", "<mechanism>.<structure>"
  uint64_t events = 0;          // over the launch(es)
  double pj_per_event = 0.0;    // dynamic energy of one event
  double static_w_per_sm = 0.0; // leakage of the structure in one SM (mechanisms' structures)
};

// The baseline's structures with their events in the GPU statistics group
// `gpu` (gpu::GpuStats: a launch's, or a workload's total).
std::vector<Structure> baselineStructures(const config::EnergyConfig& e, const stats::Group& gpu);

// The group "energy" of a launch or of a workload's total (docs/statistics.md):
//   events          count per structure
//   dynamic         nJ per structure
//   static          nJ per part: sm, memory, constant, and mechanisms' structures
//   dynamic_total, static_total, total   nJ
//   per_warp_instr  nJ per warp instruction
//   power           W, average over the launch(es)
//   gops_per_watt   thread instructions per nJ (= Gop/s per W)
class EnergyStats : public stats::Group {
 public:
  EnergyStats(stats::Group* parent, const config::GpuConfig& cfg, const stats::Group& gpu,
              const std::vector<Structure>& mechanism_structures = {});

  // The account behind the statistics.
  struct Account {
    std::vector<Structure> structures;
    stats::FormulaVector::Entries dynamic, static_parts;  // nJ
    double dynamic_nj = 0.0, static_nj = 0.0, seconds = 0.0;
    uint64_t warp_instrs = 0, thread_instrs = 0;
  };
  const Account& account() const { return a_; }
  double totalNj() const { return a_.dynamic_nj + a_.static_nj; }
  // nJ of one structure or static part by name; throws rfsim::Error when unknown.
  double dynamicNj(const std::string& structure) const;
  double staticNj(const std::string& part) const;

 private:
  Account a_;

 public:
  stats::Vector events;
  stats::FormulaVector dynamic, static_parts;
  stats::Formula dynamic_total, static_total, total, per_warp_instr, power, gops_per_watt;
};

}  // namespace rfsim::energy
