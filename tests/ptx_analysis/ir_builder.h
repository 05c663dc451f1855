// Hand-built IR for the analysis tests, so they do not depend on the parser.
#pragma once

#include <string>
#include <vector>

#include "ptx/analysis/cfg.h"
#include "ptx/ir.h"

namespace rfsim::ptx::test {

inline Operand reg(uint32_t r, bool negate = false) {
  Operand o;
  o.kind = OperandKind::Reg;
  o.regs[0] = r;
  o.negate = negate;
  return o;
}
inline Operand imm(int64_t v) {
  Operand o;
  o.kind = OperandKind::Imm;
  o.imm = v;
  return o;
}
inline Operand label(uint32_t block) {
  Operand o;
  o.kind = OperandKind::Label;
  o.block = block;
  return o;
}
inline Operand sym(uint32_t s) {
  Operand o;
  o.kind = OperandKind::Sym;
  o.sym = s;
  return o;
}

// Guard: 0 none, +1 `@%p0`, -1 `@!%p0` (register 0 is the predicate %p0).
inline Instr guardWith(Instr in, int guard) {
  if (guard) in.guard = reg(0, guard < 0);
  return in;
}
inline Instr bra(uint32_t target, int guard = 0) {
  Instr in;
  in.op = Op::Bra;
  in.nsrc = 1;
  in.src[0] = label(target);
  return guardWith(in, guard);
}
inline Instr ret(int guard = 0) {
  Instr in;
  in.op = Op::Ret;
  return guardWith(in, guard);
}
inline Instr exit_(int guard = 0) {
  Instr in;
  in.op = Op::Exit;
  return guardWith(in, guard);
}
// add.s32 %r1, %r1, 1
inline Instr work() {
  Instr in;
  in.op = Op::Add;
  in.type = Type::S32;
  in.ndst = 1;
  in.dst[0] = reg(1);
  in.nsrc = 2;
  in.src[0] = reg(1);
  in.src[1] = imm(1);
  return in;
}

// A function of the given blocks (a block with no instruction gets one
// `work()`), its CFG built. Registers: %p0 (pred), %r1 (s32).
inline Function makeFunction(std::vector<std::vector<Instr>> blocks, const std::string& name = "f") {
  Function fn;
  fn.name = name;
  fn.regs = {{"%p0", Type::Pred}, {"%r1", Type::S32}};
  for (size_t b = 0; b < blocks.size(); ++b) {
    BasicBlock bb;
    if (b > 0) bb.label = "$L" + std::to_string(b);
    bb.instrs = blocks[b].empty() ? std::vector<Instr>{work()} : blocks[b];
    fn.blocks.push_back(std::move(bb));
  }
  buildCfg(fn);
  return fn;
}

using Blocks = std::vector<uint32_t>;

}  // namespace rfsim::ptx::test
