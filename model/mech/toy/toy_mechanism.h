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
//   `mark_pass: true` adds `toy.mark_calls`, which uses the toy's ISA
//   extensions (ptx/isa_ext.h): its instruction `mark <registers>` before
//   every call, and its 2-bit control field `toy.tag` set to 1 on the call;
//   the gate flags `mark` and counts it.
//   `park_pass: true` adds `toy.park_pair`, which moves R2:R3 of every
//   kernel without calls into UR0:UR1, registers of the toy's register
//   class `toy.ur` (ISA extensions): the kernel's output proves their values
//   were kept. With `park_rows: true` the toy installs a register translator
//   and keeps every register's value in the register file's rows: general
//   registers at the baseline's rows, each warp's UR registers in a region
//   after the register file (`park_shared: true`, a deliberate wrong index:
//   every warp's at the same rows, which a test shows breaks the output).
// - launch: chooses the "toy" variant; admits at most `blocks_per_sm` blocks
//   per SM when that is not 0.
// - SM: an issue gate that flags control-flow instructions (bra, call, ret,
//   exit) and lets them all pass, counting them; it can always say when its
//   decisions change (never by itself), so idle-cycle skipping stays on.
// - traps (off unless `trap_regs` > 0): before each call issues, the gate
//   traps the warp into spilling registers R0..R(n-1) to local memory, and
//   when the call's frame is released (SmEventHook) fills them back: real
//   local stores and loads through the LDST unit, the L1D and the banks.
// - scheduler (off unless `activation_hold` > 0): an activation hook that
//   holds a warp entering a two-level scheduler's active pool that many
//   cycles, as a working-set prefetch would.
// - register-file level (off unless `rf_cache`): a level in front of the
//   main register file that serves every operand read from banks of its
//   own (sm/opcoll/banked_array.h), `rf_cache_banks` banks of
//   `rf_cache_latency` cycles, writes going to both.
// - energy: the gate's counter as a structure of its own (toy.counter).
#pragma once

#include "mech/mechanism.h"

namespace rfsim::toy {

struct ToyConfig {
  bool rename_pass = true;
  bool break_pass = false;
  bool mark_pass = false;
  bool park_pass = false;
  bool park_rows = false;
  bool park_shared = false;
  bool gate = true;
  uint32_t blocks_per_sm = 0;
  uint32_t trap_regs = 0;
  uint32_t activation_hold = 0;
  bool rf_cache = false;
  uint32_t rf_cache_banks = 8;
  uint32_t rf_cache_latency = 2;
  double counter_pj = 1.0;        // an example structure for the energy model:
  double counter_static_mw = 0.0; // a counter bumped per gated instruction

  template <class V> void visit(V& v) {
    v.boolean("rename_pass", rename_pass, "compile the 'toy' variant with the register-pair swap pass");
    v.boolean("break_pass", break_pass, "also run a pass that breaks a value (the checker must catch it)");
    v.boolean("mark_pass", mark_pass,
              "also run a pass that puts the toy's own instruction `mark` before every call and tags the call "
              "with its control field toy.tag (ISA extensions)");
    v.boolean("park_pass", park_pass,
              "also run a pass that moves R2:R3 of kernels without calls into the toy's class registers UR0:UR1 "
              "(ISA extensions: register classes)");
    v.boolean("park_rows", park_rows,
              "keep register values in register-file rows given by the toy's own translator (UR registers after "
              "the register file, per warp)");
    v.boolean("park_shared", park_shared,
              "with park_rows: every warp's UR registers at the same rows (a wrong index, for a test)");
    v.boolean("gate", gate, "install the counting issue gate on control-flow instructions");
    v.integer("blocks_per_sm", blocks_per_sm, config::IntRange{0, 64}, "block",
              "admit at most this many blocks per SM (0: the baseline's occupancy)");
    v.integer("trap_regs", trap_regs, config::IntRange{0, 16}, "register",
              "spill this many registers (R0..) in a trap before each call and fill them when its frame is released "
              "(needs gate)");
    v.integer("activation_hold", activation_hold, config::IntRange{0, 10000}, "cycle",
              "hold a warp entering a two-level scheduler's active pool this many cycles (0: no hook)");
    v.boolean("rf_cache", rf_cache, "serve operand reads from a register-file level with banks of its own");
    v.integer("rf_cache_banks", rf_cache_banks, config::IntRange{1, 64}, "bank", "banks of the rf_cache level");
    v.integer("rf_cache_latency", rf_cache_latency, config::IntRange{1, 64}, "cycle",
              "cycles from a read's bank grant in the rf_cache level to its value");
    v.real("counter_pj", counter_pj, config::RealRange{0.0, 1e6}, "pJ", "energy per bump of the gate's counter");
    v.real("counter_static_mw", counter_static_mw, config::RealRange{0.0, 1e6}, "mW",
           "static power of the gate's counter, per SM");
  }
};

mech::MechanismInfo toyMechanismInfo();

}  // namespace rfsim::toy
