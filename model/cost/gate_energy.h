// Energy per operation of a synthesized unit, from a gate-level simulation
// of its mapped netlist (docs/cost.md, "Energy per operation").
//
// A scripted stimulus (the unit's inputs cycle by cycle, in phases of one
// kind of operation each) is simulated twice by Yosys' `sim`: on the RTL, and
// on the OSU018 netlist the synthesis wrote (cells modelled from the liberty
// file), with the netlist's outputs compared against the RTL's every step.
// The netlist's toggles per net and phase, the liberty's internal-energy
// tables and pin capacitances give each phase's energy:
//   per net toggle   1/2 C V^2 (C: the input capacitances the net drives, and
//                    the fan-out-of-four load on a primary output)
//                    + the driving cell's internal energy for that edge
//                    (averaged over its related pins, at the net's load and a
//                    nominal input transition)
//                    + the passive internal energy of every load pin that has
//                    one (a flop's D and CLK)
// The clock net's share is reported apart (per cycle; no clock gating is
// modelled); the rest, less an idle phase's per cycle, divided by the phase's
// operations, is the energy per operation. Zero-delay simulation counts no
// glitches, so combinational energy is a lower bound.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cost/stimulus.h"

namespace rfsim::cost {

// Nominal input transition for the internal-energy tables (ns), a chosen
// value inside the OSU018 tables' range (0.06 to 1.8 ns); a DFFSR clock
// pin's energy differs by 12 % between 0.06 and 0.24 ns.
inline constexpr double kNominalTransitionNs = 0.2;

struct PhaseEnergy {
  std::string name;
  uint64_t cycles = 0, ops = 0;
  double logic_pj = 0.0;   // every net but the clock: switching + internal
  double clock_pj = 0.0;   // the clock net and the flops' clock pins
  uint64_t toggles = 0;    // net toggles, clock excluded
  double pj_per_op = 0.0;  // (logic - idle logic per cycle x cycles) / ops; 0 for the idle phase
};

struct GateEnergy {
  std::string module;
  double voltage = 0.0;                // the liberty's nominal supply
  double clock_pj_per_cycle = 0.0;     // from the idle phase
  double idle_logic_pj_per_cycle = 0.0;
  double leakage_w = 0.0;              // sum of the cells' leakage
  uint64_t nets = 0, cycles = 0;
  std::vector<PhaseEnergy> phases;
  const PhaseEnergy& phase(const std::string& name) const;  // throws when absent
};

struct GateEnergyOptions {
  std::filesystem::path work_dir;      // holds mapped.v from the synthesis; the simulation's files go here
  std::filesystem::path liberty;
  std::filesystem::path rtl_dir;       // <module>.sv and its packages
  std::vector<std::string> packages;   // files of rtl/ read before <module>.sv
  std::vector<std::pair<std::string, uint64_t>> parameters;  // as chparam sets them
  double clock_period_ns = 10.0;
  std::optional<std::string> tool_search_path;
  bool keep_vcd = false;  // keep the netlist's VCD (tens of MB) in the work folder
};

// Runs the two simulations (yosys, vcd2fst) and computes the phases'
// energies. Throws rfsim::Error when a tool fails or the netlist's outputs
// differ from the RTL's.
GateEnergy runGateEnergy(const Stimulus& stimulus, const GateEnergyOptions& options);

// The computation alone, from a liberty file, a mapped netlist and the
// netlist simulation's VCD (exposed for tests).
GateEnergy computeGateEnergy(const Stimulus& stimulus, const std::string& liberty_text,
                             const std::string& liberty_file, const std::string& netlist_text,
                             const std::filesystem::path& netlist_vcd, double clock_period_ns);

}  // namespace rfsim::cost
