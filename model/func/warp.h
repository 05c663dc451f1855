// One warp of 32 threads: per-thread registers (one column of 32 raw values
// per virtual register, per call frame), the per-thread local stack, the
// call frames and the SIMT reconvergence stack.
//
// A machine program (ptx/machine.h) has one register file for all frames
// (columns R0..RZ, P0..P6, then two sink columns that take writes to RZ;
// a GPR column holds 32 bits, a 64-bit operand is the pair r, r+1), and its
// stack is addressed by R1: lane l's local memory maps [local_lo, top) with
// top = Limits::stack_bytes_per_thread, growing down on demand.
//
// SIMT stack (immediate post-dominator reconvergence, as GPGPU-Sim's PDOM
// stack): the top entry is what the warp executes; entries below wait. A
// divergent branch turns the top entry into the reconvergence entry (pc = the
// branch's reconvergence pc) and pushes one entry per path with rpc = that
// pc; an entry pops when its pc reaches its rpc or its mask empties. A call
// pushes a Call entry (the calling lanes) and the callee's first entry; when
// the Call entry comes back to the top every calling lane has returned, and
// the frame is popped with the return values copied (exec_control.cpp;
// docs/functional.md, "SIMT stack").
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "func/decode.h"

namespace rfsim::func {

struct SimtEntry {
  uint32_t pc = 0;
  uint32_t rpc = kNoPc;
  uint32_t mask = 0;
  bool call = false;  // a Call entry: the lanes that made the call of the frame above
};

struct Frame {
  const DFunction* fn = nullptr;
  uint32_t reg_base = 0;    // index of register 0, lane 0 in Warp::regs
  uint32_t stack_base = 0;  // local stack offset of this activation
  uint32_t stack_top = 0;   // stack_base + frame bytes
  const DInstr* call = nullptr;  // the call that made this frame (null for the kernel)
  uint32_t caller_stack_base = 0;
};

enum class WarpState : uint8_t { Ready, Blocked, Done };

struct Warp {
  uint32_t id = 0;
  uint32_t valid = 0;   // lanes that hold a thread of the block
  uint32_t exited = 0;  // lanes that have exited
  uint32_t carry = 0;   // CC.CF per lane (add.cc/addc and friends)
  std::array<uint32_t, 32> tid_x{}, tid_y{}, tid_z{};
  std::vector<SimtEntry> stack;
  std::vector<Frame> frames;
  std::vector<uint64_t> regs;
  std::vector<uint8_t> local;   // lane l's stack at local[l * local_cap]
  uint32_t local_cap = 0;
  // The local address at local[l * local_cap]: 0 for a PTX program; for a
  // machine program the stack maps [local_lo, top) and grows down.
  uint32_t local_lo = 0;
  // The stack still holds what the warp's previous block left: zeroed at the
  // first access of this block (localData), so that a block that never
  // touches local memory never pays for clearing it.
  bool local_stale = false;
  WarpState state = WarpState::Ready;
  // Barrier wait: which barrier, at which instruction, with which lanes.
  uint32_t bar_id = 0;
  const DInstr* bar_instr = nullptr;
  uint32_t bar_lanes = 0;
  uint64_t instrs = 0;
  // Registers kept in a register file indexed by physical row (the SM
  // timing model with a register translator, SmHooks::physical_rows):
  // register r of the instruction being executed is the column rows[r],
  // pointed there for this one instruction at the row the translator gave
  // at issue. Null: the warp's own columns, by architectural name.
  uint64_t* const* rows = nullptr;

  // regs.data() + frames.back().reg_base: register 0 of the running frame,
  // kept by syncCols() wherever the frames or the registers' storage change.
  uint64_t* cols = nullptr;
  void syncCols() { cols = regs.data() + frames.back().reg_base; }

  uint64_t* reg(uint32_t r) { return rows ? rows[r] : cols + size_t{r} * 32; }
  const uint64_t* reg(uint32_t r) const { return rows ? rows[r] : cols + size_t{r} * 32; }
  uint8_t* localData() {
    if (local_stale) clearLocal();
    return local.data();
  }
  uint8_t* lanes(uint32_t lane) { return localData() + size_t{lane} * local_cap; }
  void clearLocal();
  // Makes room for `top` bytes of stack in every lane (contents kept).
  void growStack(uint32_t top);
  // Machine programs: maps [addr, top) (doubling), contents kept at their addresses.
  void growStackDown(uint32_t addr, uint32_t top);
  uint32_t live() const { return valid & ~exited; }
};

}  // namespace rfsim::func
