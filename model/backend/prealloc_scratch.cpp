// Scratch registers of multi-instruction operations (prealloc.h).
//
// The counts come from probes: one-line kernels compiled by ptxas 13 for
// sm_75 (tests/backend/probes/expansion.cu, regenerated with the other
// probes), each operation against the same kernel with a single-instruction
// operation in its place (a*b for a/b, __expf for sqrtf, ...): the
// difference in ptxas' register count is what the expansion adds.
// docs/backend.md lists the table with the measured counts.
#include "backend/prealloc.h"

namespace rfsim::backend {

using ptx::Op;

uint32_t expansionScratch(const ptx::Instr& in) {
  const bool f32 = in.type == ptx::Type::F32, f64 = in.type == ptx::Type::F64;
  const bool integer = !ptx::isFloat(in.type) && in.type != ptx::Type::Pred;
  const unsigned bits = ptx::typeBits(in.type);
  // A divisor known at compile time: multiply-high by a magic number.
  const bool const_divisor = in.nsrc >= 2 && in.src[1].kind == ptx::OperandKind::Imm;
  switch (in.op) {
    case Op::Div:
      if (f32) return in.mods.approx || in.mods.full ? 0 : 2;  // div.rn: FCHK, Newton step, slow-path call
      if (f64) return 8;                                        // div.rn.f64: DFMA iterations + slow path (ptxas: +13)
      if (integer && !const_divisor) return bits == 64 ? 8 : (ptx::isSigned(in.type) ? 4 : 2);
      return 0;
    case Op::Rem:
      if (integer && !const_divisor) return bits == 64 ? 8 : (ptx::isSigned(in.type) ? 3 : 2);
      return 0;
    case Op::Rcp:
      if (f32) return in.mods.approx ? 0 : 4;
      if (f64) return in.mods.approx ? 0 : 2;
      return 0;
    case Op::Sqrt:
      if (f32) return in.mods.approx ? 0 : 1;
      if (f64) return in.mods.approx ? 0 : 8;
      return 0;
    default:
      return 0;
  }
}

uint32_t addExpansionScratch(MFunction& mf) {
  uint32_t added = 0;
  for (auto& bb : mf.fn.blocks)
    for (auto& in : bb.instrs) {
      const uint32_t words = expansionScratch(in);
      if (!words || in.ndst != 1 || hasScratch(in) || in.dst[1].kind != ptx::OperandKind::None) continue;
      // Up to four elements: single words, or pairs when more are needed
      // (64-bit expansions work on pairs).
      const bool pairs = words > 4;
      const uint32_t n = pairs ? (words + 1) / 2 : words;
      ptx::Operand v;
      v.kind = ptx::OperandKind::Vec;
      v.vec_n = static_cast<uint8_t>(std::min<uint32_t>(n, 4));
      v.mbits = static_cast<uint8_t>(pairs ? 64 : 32);
      for (unsigned k = 0; k < v.vec_n; ++k) {
        const uint32_t t = mf.newVreg(pairs ? ptx::Type::B64 : ptx::Type::B32, pairs ? 64 : 32);
        mf.scratch_values.push_back(t);
        v.regs[k] = t;
        ++added;
      }
      in.dst[1] = v;
    }
  return added;
}

}  // namespace rfsim::backend
