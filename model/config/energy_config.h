// The energy model's energy per event and static powers (model/energy/).
// Every default names its source; docs/energy.md explains each choice, the
// counting granularity, and what the model leaves out.
//
// The defaults (the V100 configuration) are AccelWattch's for Volta GV100
// (Kandiah et al., MICRO 2021), one set fitted to measured V100 power: the
// per-event energies AccelWattch's own McPAT code charges with the scaling
// factors of accel-sim's SM7_QV100/accelwattch_sass_sim.xml (McPAT base
// energy x fitted factor), converted to this model's events: a register
// access is a warp register (32 lanes), a lane operation one active thread,
// an L2 access a 128-B line (4 of AccelWattch's 32-B sectors).
#pragma once

#include <cstdint>

#include "config/gpu_config_fields.h"

namespace rfsim::config {

struct EnergyConfig {
  // Operands, per warp register (32 x 32 bit). AccelWattch charges 2.50 pJ
  // per thread-register read: 1.52 the bank array, 0.98 the crossbar,
  // arbiter and collector; 2.14 pJ per thread-register write.
  double regfile_read_pj = 48.7;   // 32 x 1.52
  double regfile_write_pj = 68.4;  // 32 x 2.14
  double opcoll_pj = 31.3;         // 32 x 0.98
  // Front end: instruction buffer and decode 5.9 pJ + scheduler 17.3 pJ per
  // warp instruction; an I-cache hit 150 pJ.
  double issue_pj = 23.2;
  double l1i_pj = 150.0;
  // Execution, per active lane: the fitted FMA paths (FFMA 3.46, DFMA 5.11),
  // the integer ALU (IADD3/LOP3/MOV class 6.92), the SFU's rsq/sqrt class.
  double sp_lane_pj = 3.46;
  double int_lane_pj = 6.92;
  double sfu_lane_pj = 7.5;
  double dp_lane_pj = 5.11;
  double ldst_lane_pj = 0.0;  // AccelWattch charges memory instructions at the cache they access
  // On-SM memories: a shared-memory warp pass 113 pJ; a constant access
  // 6.1 pJ per thread (195 per warp); an L1D read 506 pJ, write 37 pJ.
  double shared_pj = 113.0;
  double const_pj = 195.0;
  double l1d_read_pj = 506.0;
  double l1d_write_pj = 37.0;
  // Memory side: an L2 read 69 pJ, write 270 pJ per 32-B sector (x4 per
  // 128-B line); the interconnect 86.1 pJ per 40-B flit; DRAM 2062 pJ per
  // 32-B read, 1179 pJ per 32-B write.
  double l2_read_pj = 276.0;
  double l2_write_pj = 1080.0;
  double icnt_pj_per_byte = 2.15;
  double dram_read_pj_per_byte = 64.4;
  double dram_write_pj_per_byte = 36.8;
  // Static power: AccelWattch's 38.6 W chip static with full INT+FP warps
  // (18.62 W + 31 x 0.645 W per extra lane), split ~75 % over the 80 SMs and
  // ~25 % to the memory side (an estimate: AccelWattch does not split it);
  // the board's constant power 32.33 W.
  double sm_static_w = 0.36;
  double mem_static_w = 9.6;
  double constant_w = 32.3;

  template <class V> void visit(V& v) {
    const RealRange pj{0.0, 1e6};
    const RealRange w{0.0, 1e4};
    v.real("regfile_read_pj", regfile_read_pj, pj, "pJ", "one warp-register read from a bank (the array)");
    v.real("regfile_write_pj", regfile_write_pj, pj, "pJ", "one warp-register write to a bank");
    v.real("opcoll_pj", opcoll_pj, pj, "pJ", "one operand carried from a bank to a collector (crossbar, arbiter, collector)");
    v.real("issue_pj", issue_pj, pj, "pJ", "instruction buffer, decode and scheduling per warp instruction");
    v.real("l1i_pj", l1i_pj, pj, "pJ", "one I-cache read (an I-buffer fill, from the L0 or the L1I)");
    v.real("sp_lane_pj", sp_lane_pj, pj, "pJ", "one fp32/fp16 operation, per active lane");
    v.real("int_lane_pj", int_lane_pj, pj, "pJ", "one integer, logic, move or control operation, per active lane");
    v.real("sfu_lane_pj", sfu_lane_pj, pj, "pJ", "one special-function or divide operation, per active lane");
    v.real("dp_lane_pj", dp_lane_pj, pj, "pJ", "one fp64 operation, per active lane");
    v.real("ldst_lane_pj", ldst_lane_pj, pj, "pJ", "one memory instruction's address path, per active lane");
    v.real("shared_pj", shared_pj, pj, "pJ", "one shared-memory pass (a bank-conflict-free warp access)");
    v.real("const_pj", const_pj, pj, "pJ", "one constant-cache warp access (ld.param, ld.const)");
    v.real("l1d_read_pj", l1d_read_pj, pj, "pJ", "one L1D load or atomic access (a line request)");
    v.real("l1d_write_pj", l1d_write_pj, pj, "pJ", "one L1D store access (a line request)");
    v.real("l2_read_pj", l2_read_pj, pj, "pJ", "one L2 load or atomic access (a line)");
    v.real("l2_write_pj", l2_write_pj, pj, "pJ", "one L2 store access (a line)");
    v.real("icnt_pj_per_byte", icnt_pj_per_byte, pj, "pJ", "one byte through the interconnect");
    v.real("dram_read_pj_per_byte", dram_read_pj_per_byte, pj, "pJ", "one byte read from DRAM");
    v.real("dram_write_pj_per_byte", dram_write_pj_per_byte, pj, "pJ", "one byte written to DRAM");
    v.real("sm_static_w", sm_static_w, w, "W", "static power of one SM");
    v.real("mem_static_w", mem_static_w, w, "W", "static power of the memory side (L2, interconnect, DRAM)");
    v.real("constant_w", constant_w, w, "W", "constant power of the board (fans, regulators, periphery)");
  }
};

}  // namespace rfsim::config
