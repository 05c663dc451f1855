// atom/red's arithmetic: the value an atomic leaves in memory (semantics.h).
#include <cstring>

#include "func/semantics/semantics.h"

namespace rfsim::func {

uint64_t atomicResult(ptx::AtomOp op, ptx::Type t, uint64_t old, uint64_t b, uint64_t c) {
  using ptx::AtomOp;
  using ptx::Type;
  const bool wide = ptx::typeBits(t) == 64;
  const bool sgn = ptx::isSigned(t);
  auto sx = [&](uint64_t v) { return wide ? static_cast<int64_t>(v) : static_cast<int64_t>(static_cast<int32_t>(v)); };
  switch (op) {
    case AtomOp::Add:
      if (t == Type::F32) {
        float x, y;
        const uint32_t ox = static_cast<uint32_t>(old), bx = static_cast<uint32_t>(b);
        std::memcpy(&x, &ox, 4);
        std::memcpy(&y, &bx, 4);
        x += y;
        uint32_t r;
        std::memcpy(&r, &x, 4);
        return r;
      }
      if (t == Type::F64) {
        double x, y;
        std::memcpy(&x, &old, 8);
        std::memcpy(&y, &b, 8);
        x += y;
        uint64_t r;
        std::memcpy(&r, &x, 8);
        return r;
      }
      return old + b;
    case AtomOp::Min: return sgn ? (sx(b) < sx(old) ? b : old) : (b < old ? b : old);
    case AtomOp::Max: return sgn ? (sx(b) > sx(old) ? b : old) : (b > old ? b : old);
    case AtomOp::Exch: return b;
    case AtomOp::Cas: return old == b ? c : old;
    case AtomOp::And: return old & b;
    case AtomOp::Or: return old | b;
    case AtomOp::Xor: return old ^ b;
    case AtomOp::Inc: return old >= b ? 0 : old + 1;
    case AtomOp::Dec: return (old == 0 || old > b) ? b : old - 1;
    case AtomOp::None: break;
  }
  return old;
}

}  // namespace rfsim::func
