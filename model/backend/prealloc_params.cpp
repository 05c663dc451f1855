// Kernel parameters and .const variables as constant-bank operands (prealloc.h).
//
// On sm_70/sm_75 a kernel's parameters are in constant bank 0 from offset
// 0x160 (0x140 before Volta) and SASS reads them as instruction operands,
// `IMAD.WIDE R2, R0, 0x4, c[0x0][0x160]`; ptxas turns `ld.param` of a kernel
// parameter into no instruction at all and counts no register for it. Our
// machine program names the parameter itself, `[param + offset]`, which the
// functional model reads from the launch's parameter buffer
// (func/decode.cpp, DKind::ParamVal). A module's .const variables are in
// constant bank 3 (`FFMA R5, R0, c[0x3][0x8], R5` for `x * cc[1] + cc[2]`,
// tests/backend/probes' cubins; cfd's cell_flux reads its 15 `ld.const`
// values in 10 FFMA and 5 FMUL, under -rdc with the bank and offset left to
// the linker): an `ld.const` at a fixed address is no register either, and
// the functional model reads the operand from the variable's memory
// (DKind::ConstVal).
#include <fmt/format.h>

#include "backend/prealloc.h"
#include "common/error.h"

namespace rfsim::backend {

namespace {

using ptx::Op;
using ptx::OperandKind;

// Instructions that take a constant-bank operand on the hardware: the ALU,
// FMA, conversion and move classes (SASS IADD3/IMAD/LOP3/SHF/ISETP/SEL/
// FADD/FFMA/FSETP/DADD/DFMA/I2F/F2I/MOV all accept c[bank][offset]).
bool takesConstOperand(const ptx::Instr& in) {
  if (in.mods.vec != 1) return false;
  switch (in.op) {
    case Op::Mov: case Op::Cvt:
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Mad: case Op::Mul24: case Op::Mad24:
    case Op::Min: case Op::Max: case Op::Fma: case Op::Sad: case Op::Abs: case Op::Neg:
    case Op::And: case Op::Or: case Op::Xor: case Op::Not: case Op::Cnot: case Op::Shl: case Op::Shr:
    case Op::Bfe: case Op::Bfi: case Op::Prmt: case Op::Lop3: case Op::Shf: case Op::Popc: case Op::Clz:
    case Op::Brev: case Op::Copysign:
    case Op::Setp: case Op::Set: case Op::Selp: case Op::Slct:
      return true;
    default:
      return false;
  }
}

// A value the hardware need not keep in a register: a kernel parameter
// (constant bank 0) or an immediate.
struct ParamValue {
  bool is = false;
  bool imm = false;            // an immediate: `off` is its value (a float's IEEE bits)
  uint32_t sym = ptx::kNoSym;  // a parameter: the symbol and byte offset
  int64_t off = 0;
  unsigned bits = 0;
};

ptx::Operand constOperand(const ParamValue& p) {
  ptx::Operand o;
  if (p.imm) {
    o.kind = OperandKind::Imm;
    o.imm = p.off;
    return o;
  }
  o.kind = OperandKind::Addr;
  o.sym = p.sym;
  o.imm = p.off;
  o.mbits = static_cast<uint8_t>(p.bits);
  return o;
}

// A source that is not a register: an immediate or a constant-bank operand.
bool nonRegister(const ptx::Operand& o) {
  return o.kind == OperandKind::Imm || (o.kind == OperandKind::Addr && o.regs[0] == ptx::kNoReg);
}

}  // namespace

FoldStats foldParamOperands(MFunction& mf, const ptx::Module& m, bool params, bool imms, bool consts) {
  FoldStats st;
  ptx::Function& fn = mf.fn;
  params = params && fn.is_entry;
  if (!params && !imms && !consts) return st;
  // Virtual registers are the ids below nv (physIds and kNoReg lie far above;
  // the moves made below get ids from nv up).
  const uint32_t nv = static_cast<uint32_t>(mf.vbits.size());
  std::vector<uint32_t> defs(nv, 0);
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      forEachSlot(in, fn, [&](const Slot& s) {
        if (s.def && *s.reg < nv) ++defs[*s.reg];
      });

  // The parameter values: a single unguarded definition by ld.param of one
  // of this kernel's own parameters (a whole 32- or 64-bit value), or by a
  // cvta.to.global or move of such a value (cvta.to.global is the identity
  // on global addresses).
  std::vector<ParamValue> pv(nv);
  auto folds = [&](uint32_t v) { return v < nv && pv[v].is; };
  auto singleDst = [&](const ptx::Instr& in) -> uint32_t {
    if (in.guard.kind == OperandKind::Reg || in.ndst != 1 || in.dst[0].kind != OperandKind::Reg) return ptx::kNoReg;
    const uint32_t d = in.dst[0].regs[0];
    return d < nv && defs[d] == 1 ? d : ptx::kNoReg;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& bb : fn.blocks)
      for (auto& in : bb.instrs) {
        const uint32_t d = singleDst(in);
        if (d == ptx::kNoReg || pv[d].is) continue;
        const unsigned bits = in.dst[0].mbits;
        if (imms && in.op == Op::Mov && in.nsrc == 1 && in.src[0].kind == OperandKind::Imm &&
            (bits == 32 || bits == 64)) {
          pv[d] = {true, true, ptx::kNoSym, in.src[0].imm, bits};
          changed = true;
        } else if (in.op == Op::Ld && in.nsrc == 1 && in.mods.vec == 1 && !in.mods.volatile_ &&
                   !in.mods.relaxed_or_stronger &&
                   ((params && in.space == ptx::Space::Param) || (consts && in.space == ptx::Space::Const))) {
          // One of this kernel's parameters, or a .const variable at a fixed
          // address: constant memory no kernel writes, so reading it where it
          // is used gives the same value.
          const ptx::Operand& a = in.src[0];
          if (a.kind != OperandKind::Addr || a.regs[0] != ptx::kNoReg || a.sym == ptx::kNoSym) continue;
          const ptx::Symbol& s = m.symbols.at(a.sym);
          const bool ours = in.space == ptx::Space::Param
                                ? s.space == ptx::Space::Param && s.owner == static_cast<int32_t>(mf.index)
                                : s.space == ptx::Space::Const;
          if (!ours || (bits != 32 && bits != 64) || ptx::typeBits(in.type) != bits) continue;
          pv[d] = {true, false, a.sym, a.imm, bits};
          changed = true;
        } else if ((in.op == Op::Mov || (in.op == Op::Cvta && in.mods.to && in.space == ptx::Space::Global)) &&
                   in.nsrc == 1 && in.src[0].kind == OperandKind::Reg && !in.src[0].negate) {
          const uint32_t s = in.src[0].regs[0];
          if (!folds(s) || pv[s].bits != bits || in.src[0].mbits != bits) continue;
          pv[d] = pv[s];
          changed = true;
        }
      }
  }
  for (uint32_t v = 0; v < nv; ++v) st.values += pv[v].is;
  if (!st.values) return st;

  // Every use reads the parameter: folded into the instruction, or through
  // a move right before it. The definitions go.
  for (auto& bb : fn.blocks) {
    std::vector<ptx::Instr> out;
    out.reserve(bb.instrs.size());
    for (auto& in : bb.instrs) {
      const uint32_t d = singleDst(in);
      if (d != ptx::kNoReg && folds(d)) continue;  // a folded value's definition
      // SASS has one immediate or constant-bank operand per instruction.
      bool folded = false;
      for (unsigned k = 0; k < in.nsrc; ++k) folded |= nonRegister(in.src[k]);
      if (takesConstOperand(in))
        for (unsigned k = 0; k < in.nsrc; ++k) {
          ptx::Operand& o = in.src[k];
          if (o.kind != OperandKind::Reg || o.negate || !folds(o.regs[0])) continue;
          if (folded || o.mbits != pv[o.regs[0]].bits) continue;
          o = constOperand(pv[o.regs[0]]);
          folded = true;
          ++st.folded;
        }
      forEachSlot(in, fn, [&](const Slot& s) {
        if (s.def || !folds(*s.reg)) return;
        const ParamValue& p = pv[*s.reg];
        const uint32_t t = mf.newVreg(p.bits == 64 ? ptx::Type::B64 : ptx::Type::B32, p.bits);
        ptx::Instr mv;
        mv.op = Op::Mov;
        mv.type = p.bits == 64 ? ptx::Type::B64 : ptx::Type::B32;
        mv.ndst = 1;
        mv.nsrc = 1;
        mv.dst[0] = regOperand(t, p.bits);
        mv.src[0] = constOperand(p);
        mv.loc = in.loc;
        out.push_back(mv);
        *s.reg = t;
        ++st.moves;
      });
      out.push_back(std::move(in));
    }
    bb.instrs = std::move(out);
  }
  return st;
}

}  // namespace rfsim::backend
