// IPOLY hashing (Rau 1991, "Pseudo-randomly interleaved memory", ISCA):
// a number read as a polynomial over GF(2), reduced modulo an irreducible
// polynomial P_k of degree k, gives a k-bit index into 2^k banks, slices or
// sets. Every bit above the low k is XOR-folded into them, bit b contributing
// the pattern x^b mod P_k, so a stride of any power of two spreads over all
// 2^k indices; and since x is invertible modulo P_k, a number n = hi x 2^k +
// lo maps one-to-one onto (index, hi): lo = index XOR (hi x 2^k mod P_k).
// Used by the L2 slice map (mem/tlm/interconnect.h) and the L2's set index
// (l2.set_index: ipoly, mem/cache.h).
#pragma once

#include <array>
#include <cstdint>

namespace rfsim::mem {

class Ipoly {
 public:
  static constexpr uint32_t kMaxDegree = 16;

  // Primitive (so irreducible) polynomials over GF(2) of degree 1..16, bit i
  // the coefficient of x^i (the usual LFSR tables; tests/mem/test_ipoly.cpp
  // checks that x has order 2^k - 1 modulo each).
  static constexpr uint32_t kPolynomial[kMaxDegree + 1] = {
      0,       0x3,    0x7,    0xB,    0x13,   0x25,   0x43,   0x83,    0x11D,  // x+1 .. x^8+x^4+x^3+x^2+1
      0x211,   0x409,  0x805,  0x1053, 0x201B, 0x4443, 0x8003, 0x1100B};       // x^9+x^4+1 .. x^16+x^12+x^3+x+1

  // Degree k in 0..kMaxDegree (0: a single index, always 0).
  explicit Ipoly(uint32_t k = 0) : k_(k) {
    if (k_ == 0) return;
    const uint32_t p = kPolynomial[k_];
    for (uint32_t b = 0; b < 64; ++b) {
      if (b < k_) {
        residue_[b] = 1u << b;
      } else {
        uint32_t r = residue_[b - 1] << 1;
        if (r & (1u << k_)) r ^= p;
        residue_[b] = r;
      }
    }
  }

  uint32_t degree() const { return k_; }

  // v mod P_k over GF(2): an index in [0, 2^k).
  uint32_t operator()(uint64_t v) const {
    if (k_ == 0) return 0;
    uint32_t r = static_cast<uint32_t>(v & ((uint64_t{1} << k_) - 1));
    for (uint64_t h = v >> k_; h != 0; h &= h - 1) r ^= residue_[k_ + static_cast<uint32_t>(__builtin_ctzll(h))];
    return r;
  }

 private:
  uint32_t k_;
  std::array<uint32_t, 64> residue_{};  // x^b mod P_k
};

}  // namespace rfsim::mem
