// Multiply-add fusion as ptxas does it (prealloc.h: fuseMultiplyAdd).
//
// NVVM leaves `mul.lo.s32 %t, %q, 18; sub.s32 %r, %e, %t` when %t is also
// used elsewhere or when the two belong to a division and its remainder
// (`e / 18` and `e % 18` of a tile loop); ptxas issues one
// `IMAD R, R, -18, R` for the pair (the sobel3x3 and stencil9_halo loops of
// workloads/kernels, whose sm_75 cubins have no IMUL/IADD pair for a
// remainder). The product is then never a register of its own: in a loop
// NVVM unrolled four times, four such temporaries are live together when
// the scheduler overlaps the iterations.
#include <algorithm>
#include <vector>

#include "backend/prealloc.h"

namespace rfsim::backend {

using ptx::Instr;
using ptx::Op;
using ptx::Operand;
using ptx::OperandKind;

namespace {

bool plain(const Instr& in) {
  return in.guard.kind == OperandKind::None && !in.mods.cc && !in.mods.carry_in && !in.mods.sat &&
         in.role == ptx::MRole::Code && in.ndst == 1 && in.dst[0].kind == OperandKind::Reg &&
         in.dst[1].kind == OperandKind::None;
}

bool int32(const Instr& in) {
  return (in.type == ptx::Type::S32 || in.type == ptx::Type::U32 || in.type == ptx::Type::B32);
}

bool isReg(const Operand& o) { return o.kind == OperandKind::Reg; }

}  // namespace

uint32_t fuseMultiplyAdd(MFunction& mf) {
  const uint32_t nv = static_cast<uint32_t>(mf.vbits.size());
  // Definitions and uses of every virtual register, over the function.
  std::vector<uint32_t> defs(nv, 0), uses(nv, 0);
  for (auto& bb : mf.fn.blocks)
    for (Instr& in : bb.instrs)
      forEachSlot(in, mf.fn, [&](const Slot& s) {
        if (*s.reg >= nv) return;
        ++(s.def ? defs : uses)[*s.reg];
        if (s.def && s.guarded) ++uses[*s.reg];
      });
  uint32_t fused = 0;
  for (auto& bb : mf.fn.blocks) {
    std::vector<Instr>& code = bb.instrs;
    std::vector<bool> drop(code.size(), false);
    for (size_t i = 0; i < code.size(); ++i) {
      const Instr& mul = code[i];
      if (mul.op != Op::Mul || mul.mods.mul != ptx::MulMode::Lo || !plain(mul) || !int32(mul) || mul.nsrc != 2 ||
          !isReg(mul.src[0]))
        continue;
      const uint32_t t = mul.dst[0].regs[0];
      if (t >= nv || defs[t] != 1 || uses[t] != 1) continue;
      const bool imm = mul.src[1].kind == OperandKind::Imm;
      if (!imm && !isReg(mul.src[1])) continue;
      // The one use, later in this block, with the factors unchanged until then.
      for (size_t j = i + 1; j < code.size(); ++j) {
        Instr& in = code[j];
        bool reads_t = false, writes_factor = false;
        forEachSlot(in, mf.fn, [&](const Slot& s) {
          if (!s.def && *s.reg == t) reads_t = true;
          if (s.def && (*s.reg == mul.src[0].regs[0] || (!imm && *s.reg == mul.src[1].regs[0])))
            writes_factor = true;
        });
        if (!reads_t) {
          if (writes_factor) break;
          continue;
        }
        if ((in.op != Op::Add && in.op != Op::Sub) || !plain(in) || !int32(in) || in.nsrc != 2) break;
        const bool t_first = isReg(in.src[0]) && in.src[0].regs[0] == t;
        const bool t_second = isReg(in.src[1]) && in.src[1].regs[0] == t;
        if (t_first == t_second) break;  // both (t + t): leave it
        // x + a*b, a*b + x; x - a*imm as x + a*(-imm). The other addend a
        // register or an immediate (one immediate per SASS instruction).
        if (in.op == Op::Sub && (!t_second || !imm)) break;
        const Operand x = t_first ? in.src[1] : in.src[0];
        if (imm && x.kind != OperandKind::Reg) break;
        if (x.kind != OperandKind::Reg && x.kind != OperandKind::Imm) break;
        Operand b = mul.src[1];
        if (in.op == Op::Sub) b.imm = static_cast<int64_t>(static_cast<int32_t>(-static_cast<uint32_t>(b.imm)));
        in.op = Op::Mad;
        in.mods.mul = ptx::MulMode::Lo;
        in.type = mul.type;
        in.nsrc = 3;
        in.src[0] = mul.src[0];
        in.src[1] = b;
        in.src[2] = x;
        drop[i] = true;
        ++fused;
        break;
      }
    }
    if (std::find(drop.begin(), drop.end(), true) == drop.end()) continue;
    std::vector<Instr> kept;
    kept.reserve(code.size());
    for (size_t i = 0; i < code.size(); ++i)
      if (!drop[i]) kept.push_back(std::move(code[i]));
    code = std::move(kept);
  }
  return fused;
}

}  // namespace rfsim::backend
