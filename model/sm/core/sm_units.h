// The SM's units as the GPU's SystemC hierarchy names them: one module per
// unit under each SM slot (gpu.sm<i>.<unit>, gpu/gpu_top.h), without
// processes or signals of their own -- the SM's one clocked process ticks
// them in pipeline order (Sm::tick: writeback, execute, dispatch with the
// operand collector, issue, fetch). A unit's statistics are the group of
// the same name under the SM's (sm.h: gpu.sm.<unit> in a launch's
// statistics, summed over the SMs) and its waveform signals the VCD scope
// of the same name (sm_trace.h: gpu.sm0.<unit>). Mechanisms add their own
// units (mech::Mechanism::smUnits: a warp control block, an address
// allocation unit, a register-file cache, a rename unit).
#pragma once

#include <string>
#include <vector>

namespace rfsim::sm {

struct UnitInfo {
  std::string name;   // the module's name under gpu.sm<i>
  std::string desc;   // one line
  std::string stats;  // where its statistics are, relative to a launch ("gpu.sm.issue"); "" = none
};

// The SM's own units, in pipeline order (front to back).
inline const std::vector<UnitInfo>& smUnits() {
  static const std::vector<UnitInfo> units = {
      {"fetch", "instruction fetch: the L1I and the per-warp I-buffers", "gpu.sm.fetch"},
      {"issue", "the warp schedulers, the scoreboard and the issue gate", "gpu.sm.issue"},
      {"opcoll", "the operand collector with the banked register file and its arbiter", "gpu.sm.opcoll"},
      {"simt", "the SIMT stacks: divergence and reconvergence, calls and returns", "gpu.sm.simt"},
      {"exec", "the execution units (SP, INT, SFU, DP, tensor and LDST pipelines)", "gpu.sm.exec"},
      {"ldst", "the load/store unit: shared memory, the constant bank, the port to the L1D", "gpu.sm.ldst"},
  };
  return units;
}

}  // namespace rfsim::sm
