// The toy mechanism: a small, complete example of the plug-in interface
// (docs/mechanisms.md walks through it), used by the tests and by the speed
// benchmark as the "do-nothing mechanism". It changes nothing a kernel
// computes and, with `rename_pass: false`, nothing it times (its pass moves
// registers to other banks, which moves bank conflicts):
//
// - compiler: a variant "toy" whose machine pass `toy.swap_pairs` swaps two
//   register pairs throughout every kernel without calls (R2:R3 with the
//   highest even pair it uses): the value-following checker must agree, and
//   the kernel's output proves the swap was consistent. `break_pass: true`
//   adds `toy.break_value`, which makes one read take the wrong register;
//   the checker must stop the compilation (a test relies on it).
// - launch: chooses the "toy" variant; admits at most `blocks_per_sm` blocks
//   per SM when that is not 0.
// - SM: an issue gate that flags control-flow instructions (bra, call, ret,
//   exit) and lets them all pass, counting them; it can always say when its
//   decisions change (never by itself), so idle-cycle skipping stays on.
// - energy: the gate's counter as a structure of its own (toy.counter).
#pragma once

#include "mech/mechanism.h"

namespace rfsim::toy {

struct ToyConfig {
  bool rename_pass = true;
  bool break_pass = false;
  bool gate = true;
  uint32_t blocks_per_sm = 0;
  double counter_pj = 1.0;        // an example structure for the energy model:
  double counter_static_mw = 0.0; // a counter bumped per gated instruction

  template <class V> void visit(V& v) {
    v.boolean("rename_pass", rename_pass, "compile the 'toy' variant with the register-pair swap pass");
    v.boolean("break_pass", break_pass, "also run a pass that breaks a value (the checker must catch it)");
    v.boolean("gate", gate, "install the counting issue gate on control-flow instructions");
    v.integer("blocks_per_sm", blocks_per_sm, config::IntRange{0, 64}, "block",
              "admit at most this many blocks per SM (0: the baseline's occupancy)");
    v.real("counter_pj", counter_pj, config::RealRange{0.0, 1e6}, "pJ", "energy per bump of the gate's counter");
    v.real("counter_static_mw", counter_static_mw, config::RealRange{0.0, 1e6}, "mW",
           "static power of the gate's counter, per SM");
  }
};

mech::MechanismInfo toyMechanismInfo();

}  // namespace rfsim::toy
