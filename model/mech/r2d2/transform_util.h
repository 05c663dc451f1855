// Helpers shared by R2D2's transformation (transform.cpp) and its
// multi-write cases (multiwrite.cpp): operands, instructions, and the operand
// slots that read a linear value. Internal to the pass.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "mech/r2d2/linearity.h"
#include "ptx/ir.h"
#include "ptx/isa_ext.h"

namespace rfsim::mech::r2d2::detail {

using ptx::Instr;
using ptx::Op;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;

inline uint16_t extId(const char* name) {
  uint16_t id = 0;
  if (!ptx::findExtOp(name, &id)) throw Error(fmt::format("r2d2: ISA extension {} is not registered", name));
  return id;
}

inline Operand regOp(uint32_t r) {
  Operand o;
  o.kind = OperandKind::Reg;
  o.regs[0] = r;
  return o;
}
inline Operand immOp(int64_t v) {
  Operand o;
  o.kind = OperandKind::Imm;
  o.imm = v;
  return o;
}
inline Operand sregOp(ptx::SReg s, uint8_t dim) {
  Operand o;
  o.kind = OperandKind::SReg;
  o.sreg = s;
  o.dim = dim;
  return o;
}

inline Instr make(Op op, Type t, uint32_t dst, std::initializer_list<Operand> srcs, ptx::SrcLoc loc) {
  Instr in;
  in.op = op;
  in.type = t;
  in.ndst = 1;
  in.dst[0] = regOp(dst);
  for (const Operand& s : srcs) in.src[in.nsrc++] = s;
  if (op == Op::Mul || op == Op::Mad) in.mods.mul = ptx::MulMode::Lo;
  in.loc = loc;
  return in;
}

// Every register an instruction reads, by slot (so a pass can rename one;
// `I` is Instr or const Instr).
template <class I, class F> void forEachRead(I& in, F&& f) {
  for (int s = 0; s < in.nsrc; ++s) {
    auto& o = in.src[s];
    if ((o.kind == OperandKind::Reg || o.kind == OperandKind::Addr) && o.regs[0] != ptx::kNoReg) f(o, 0, s);
    if (o.kind == OperandKind::Vec)
      for (int k = 0; k < o.vec_n; ++k)
        if (o.regs[k] != ptx::kNoReg) f(o, k, s);
  }
  if (in.guard.kind == OperandKind::Reg) f(in.guard, 0, -1);
  // A store's or atomic's address operand is a source; a vector destination of
  // ld names only written registers.
}

// The grouping key of a use (Fig. 8): its width and index parts; the
// constant is the use's own (an offset or an added coefficient). A read with
// a uniform offset adds no coefficient: its key has the constant's symbolic
// part too, so that its group differs from it by an integer at most.
inline std::string groupKey(const CoefVec& v, uint32_t bits, bool uniform, const std::vector<LaunchSymbol>& syms) {
  std::string k = fmt::format("{}{}", uniform ? "u" : "", bits);
  if (uniform) k += "|" + v.e[kC].withoutConstant().str(syms);
  for (int e = kTx; e < kNumElems; ++e) k += "|" + v.e[e].str(syms);
  return k;
}

// An operand slot that reads a linear value.
struct Use {
  uint32_t block, index;
  int src;       // operand slot
  int elem;      // Vec element
  bool address;  // the base of a memory operand
  uint32_t reg, bits;
  CoefVec vec;
  int lr = -1;       // its linear register (-1: keeps its code)
  int64_t fold = 0;  // added to the memory operand's offset
  int coef = -1;     // a coefficient the address adder adds (-1: none)
  // A loop update's read (multiwrite.h): the uniform offset register the
  // address adds (lr + uniform: no coefficient then), and its loop.
  uint32_t uniform = ptx::kNoReg;
  int loop = -1;
  int divergent = -1;  // a divergent definition's move (multiwrite.h)
};

// Uses that share a linear register.
struct Group {
  std::string key;
  CoefVec vec;
  uint32_t bits;
  std::vector<size_t> uses;
};

}  // namespace rfsim::mech::r2d2::detail
