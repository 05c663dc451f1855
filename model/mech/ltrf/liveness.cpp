#include "mech/ltrf/liveness.h"

#include "backend/mfunction.h"
#include "ptx/machine.h"

namespace rfsim::mech::ltrf {

namespace mach = ptx::mach;

// At a called function's return: R1, the result registers and every register
// a call preserves under either layout of compiler.callee_saved (R16-R31 and,
// from R32 up, the upper four of every eight: ptx/machine.h Abi), so a value
// of the caller's in one is never taken for dead.
RegBits returnLive() {
  RegBits r;
  r.set(mach::kSP);
  for (uint32_t x = mach::kArgFirst; x < 32; ++x) r.set(x);
  mach::Abi abi;
  abi.upper_quads = true;
  for (uint32_t x = 32; x < mach::kRZ; ++x)
    if (abi.calleeSaved(x)) r.set(x);
  return r;
}

namespace {

void regsOf(const backend::Slot& s, RegBits& into) {
  const uint32_t r = *s.reg;
  if (r >= mach::kRZ) return;
  into.set(r);
  if (s.mbits == 64 && r + 1 < mach::kRZ) into.set(r + 1);
}

}  // namespace

void stepBack(ptx::Instr& in, ptx::Function& fn, RegBits& live, uint8_t* dead) {
  if (in.op == ptx::Op::Ret && !fn.is_entry) live |= returnLive();  // a kernel's return is its exit
  uint8_t d = 0x1f;
  RegBits uses, defs;
  backend::forEachSlot(in, fn, [&](const backend::Slot& s) {
    if (s.def) {
      if (!s.guarded) regsOf(s, defs);
      return;
    }
    RegBits mine;
    regsOf(s, mine);
    if (s.operand >= 0 && s.operand < 5 && (mine & live).any()) d &= static_cast<uint8_t>(~(1u << s.operand));
    uses |= mine;
  });
  if (dead) {
    uint8_t present = 0;
    for (unsigned k = 0; k < in.nsrc; ++k) {
      const auto kind = in.src[k].kind;
      if (kind == ptx::OperandKind::Reg || kind == ptx::OperandKind::Vec ||
          (kind == ptx::OperandKind::Addr && in.src[k].regs[0] != ptx::kNoReg))
        present |= static_cast<uint8_t>(1u << k);
    }
    *dead = static_cast<uint8_t>((*dead & 0x20) | (d & present));
  }
  if (in.op == ptx::Op::Call) uses.set(mach::kSP);  // the callee's frame is below the caller's R1
  live &= ~defs;
  live |= uses;
}

RegBits blockLiveOut(const ptx::Function& fn, const std::vector<RegBits>& live_in, uint32_t b) {
  RegBits live;
  for (uint32_t s : fn.blocks[b].succs) live |= live_in[s];
  return live;
}

std::vector<RegBits> blockLiveIn(ptx::Function& fn) {
  const size_t nb = fn.blocks.size();
  std::vector<RegBits> in_live(nb);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      RegBits live = blockLiveOut(fn, in_live, static_cast<uint32_t>(b));
      auto& code = fn.blocks[b].instrs;
      for (size_t i = code.size(); i-- > 0;) stepBack(code[i], fn, live);
      if (live != in_live[b]) {
        in_live[b] = live;
        changed = true;
      }
    }
  }
  return in_live;
}

}  // namespace rfsim::mech::ltrf
