// Bit manipulation (PTX ISA 9.0, 9.7.1 popc..bmsk, 9.7.8 logic and shift):
// the lane semantics of the bit-field, permute, funnel-shift and find ops.
#include "func/semantics/detail.h"
#include "ptx/ir.h"

namespace rfsim::func::detail {

using namespace ptx;

// ---------------------------------------------------------------------------
// Bit manipulation (9.7.1 popc..bmsk, 9.7.8 logic and shift).

unsigned msb64(uint64_t x) { return 63u - static_cast<unsigned>(__builtin_clzll(x)); }

uint64_t shl(Type t, uint64_t a, uint64_t b) {  // shl 9.7.8.8: amounts > width clamp
  const unsigned n = widthOf(t);
  uint64_t sh = trunc(b, 32);
  return sh >= n ? 0 : trunc(a << sh, n);
}
uint64_t shr(Type t, uint64_t a, uint64_t b) {  // shr 9.7.8.9
  const unsigned n = widthOf(t);
  uint64_t sh = trunc(b, 32);
  if (isS(t)) {
    if (sh >= n) sh = n - 1;  // sign fill
    return trunc(static_cast<uint64_t>(sext(a, n) >> sh), n);
  }
  return sh >= n ? 0 : trunc(a, n) >> sh;
}

uint64_t brev(uint64_t x, unsigned n) {
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
  x = __builtin_bswap64(x);
  return n == 64 ? x : x >> 32;
}

uint64_t bfind(const Instr& in, uint64_t a) {  // bfind 9.7.1.16
  const Type t = in.type;
  const unsigned n = widthOf(t);
  uint64_t x = trunc(a, n);
  if (isS(t) && sext(x, n) < 0) x = trunc(~x, n);
  if (x == 0) return 0xffffffffu;
  // .shiftamt: the left shift that moves the found bit to the msb
  return in.mods.shiftamt ? n - 1 - msb64(x) : msb64(x);
}

uint64_t bfe(Type t, uint64_t a, uint64_t b, uint64_t c) {  // bfe 9.7.1.19
  const unsigned n = widthOf(t), msb = n - 1;
  const unsigned pos = b & 0xff, len = c & 0xff;
  const uint64_t x = trunc(a, n);
  bool sbit = false;
  if (isS(t) && len != 0) {
    unsigned top = pos + len - 1 < msb ? pos + len - 1 : msb;
    sbit = (x >> top) & 1;
  }
  unsigned k = pos > msb ? 0 : (len < n - pos ? len : n - pos);
  uint64_t d = k == 0 ? 0 : (x >> pos) & maskN(k);
  if (sbit) d |= ~maskN(k);
  return trunc(d, n);
}

uint64_t bfi(Type t, uint64_t f, uint64_t base, uint64_t c, uint64_t dl) {  // bfi 9.7.1.20
  const unsigned n = widthOf(t);
  const unsigned pos = c & 0xff, len = dl & 0xff;
  unsigned k = pos >= n ? 0 : (len < n - pos ? len : n - pos);
  if (k == 0) return trunc(base, n);
  uint64_t msk = maskN(k) << pos;
  return trunc((base & ~msk) | ((f << pos) & msk), n);
}

uint64_t prmt(uint64_t a, uint64_t b, uint64_t c) {  // prmt 9.7.9.7, default mode
  const uint64_t bytes = (trunc(b, 32) << 32) | trunc(a, 32);
  uint64_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    unsigned sel = (c >> (4 * i)) & 0xf;
    uint64_t byte = (bytes >> ((sel & 7) * 8)) & 0xff;
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return r;
}

uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, uint64_t lut) {  // lop3 9.7.8.6
  uint64_t r = 0;
  for (unsigned i = 0; i < 8; ++i) {
    if (!((lut >> i) & 1)) continue;
    r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  }
  return trunc(r, 32);
}

uint64_t shf(const Instr& in, uint64_t a, uint64_t b, uint64_t c) {  // shf 9.7.8.7
  uint64_t n = trunc(c, 32);
  n = in.mods.shift_clamp ? (n > 32 ? 32 : n) : (n & 31);
  const uint64_t v = (trunc(b, 32) << 32) | trunc(a, 32);
  if (in.mods.mul == MulMode::Hi) return trunc(v >> n, 32);  // .r
  return trunc((v << n) >> 32, 32);                         // .l
}

uint64_t bmsk(bool clamp, uint64_t a, uint64_t b) {  // bmsk 9.7.1.22 (the ISA's pseudo-code)
  a = trunc(a, 32), b = trunc(b, 32);
  const uint64_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
  uint64_t mask0 = (~0ull << a1) & 0xffffffffu;
  uint64_t mask1 = sum >= 32 ? 0 : (~0ull << sum) & 0xffffffffu;
  bool overflow = sum >= 32;
  if (clamp) {
    if (a >= 32) overflow = true, mask0 = 0;
    if (b >= 32) overflow = true;
  }
  if (overflow) mask1 = 0;
  else if (b1 == 0) mask1 = 0xffffffffu;
  return mask0 & ~mask1 & 0xffffffffu;
}

uint64_t fns(uint64_t mask, uint64_t base, uint64_t offset) {  // fns 9.7.1.17: n-th set bit from base
  const int64_t b = sext(base, 32), off = sext(offset, 32);
  if (b < 0 || b > 31) return 0xffffffffu;  // undefined in PTX: report "not found"
  if (off == 0) return ((mask >> b) & 1) ? static_cast<uint64_t>(b) : 0xffffffffu;
  int64_t count = (off < 0 ? -off : off) - 1;
  const int64_t inc = off > 0 ? 1 : -1;
  for (int64_t pos = b; pos >= 0 && pos < 32; pos += inc) {
    if ((mask >> pos) & 1) {
      if (count == 0) return static_cast<uint64_t>(pos);
      --count;
    }
  }
  return 0xffffffffu;
}

}  // namespace rfsim::func::detail
