// Directed rounding checked by brackets: for every mode the result must be
// one of the two representable neighbours of the exact result, on the side
// the mode asks for. The exact result comes from wider host arithmetic
// (double for f32, __float128 for f64) where that is exact.
#include <cmath>
#include <limits>

#include "sem_helpers.h"

using namespace semtest;

namespace {

struct Rng {
  uint64_t s = 0x243f6a8885a308d3ull;
  uint64_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s ^ (s >> 29);
  }
  float f32(int lo, int hi, bool positive = false) {
    const uint64_t r = next();
    const uint32_t e = static_cast<uint32_t>(127 + lo + static_cast<int>(r % static_cast<uint64_t>(hi - lo + 1)));
    const uint32_t sign = positive ? 0 : static_cast<uint32_t>(r >> 63) << 31;
    return bf(sign | (e << 23) | static_cast<uint32_t>((r >> 20) & 0x7fffff));
  }
  double f64(int lo, int hi, bool positive = false) {
    const uint64_t r = next();
    const uint64_t e = static_cast<uint64_t>(1023 + lo + static_cast<int>(r % static_cast<uint64_t>(hi - lo + 1)));
    const uint64_t sign = positive ? 0 : (next() >> 63) << 63;
    return bd(sign | (e << 52) | (next() & 0xfffffffffffffull));
  }
};

Instr fop(Op op, Type t, unsigned n, Round r) {
  Instr in = mk(op, t, n);
  in.mods.round = r;
  return in;
}

// rm <= exact <= rp, neighbours (or equal when exact), rz / rn consistent.
template <class F, class W>
void bracket(W exact, F rn, F rz, F rm, F rp) {
  REQUIRE(static_cast<W>(rm) <= exact);
  REQUIRE(static_cast<W>(rp) >= exact);
  if (static_cast<W>(rm) == exact) {
    REQUIRE(rp == rm);
  } else {
    REQUIRE(std::nextafter(rm, std::numeric_limits<F>::infinity()) == rp);
  }
  REQUIRE(rz == (exact < 0 ? rp : rm));
  REQUIRE((rn == rm || rn == rp));
  // nearest: no farther than the other neighbour
  const W dn = exact - static_cast<W>(rn), other = exact - static_cast<W>(rn == rm ? rp : rm);
  REQUIRE((dn < 0 ? -dn : dn) <= (other < 0 ? -other : other));
}

}  // namespace

TEST_CASE("f32 fma/div/sqrt under every rounding mode", "[semantics]") {
  Rng g;
  for (int i = 0; i < 5000; ++i) {
    // fma with the addend near the product: a*b + c is exact in double
    const float a = g.f32(-3, 3), b = g.f32(-3, 3);
    const float c = bf(fb(a * b) ^ (g.next() & 0x807fffffu));  // same binade as a*b, random sign/mantissa
    const double exact = static_cast<double>(a) * b + c;
    auto run3 = [&](Round r) { return bf(run(fop(Op::Fma, Type::F32, 3, r), {fb(a), fb(b), fb(c)})); };
    INFO(a << " * " << b << " + " << c);
    if (exact != 0) bracket<float, double>(exact, run3(Round::Rn), run3(Round::Rz), run3(Round::Rm), run3(Round::Rp));
  }
  for (int i = 0; i < 5000; ++i) {
    const float a = g.f32(-20, 20), b = g.f32(-20, 20);
    auto div = [&](Round r) { return bf(run(fop(Op::Div, Type::F32, 2, r), {fb(a), fb(b)})); };
    const float rm = div(Round::Rm), rp = div(Round::Rp), rz = div(Round::Rz), rn = div(Round::Rn);
    INFO(a << " / " << b);
    REQUIRE(rn == a / b);
    // q <= a/b  <=>  q*b <= a (b > 0), products exact in double
    const double da = a, db_ = b;
    if (b > 0) {
      REQUIRE(static_cast<double>(rm) * db_ <= da);
      REQUIRE(static_cast<double>(rp) * db_ >= da);
    } else {
      REQUIRE(static_cast<double>(rm) * db_ >= da);
      REQUIRE(static_cast<double>(rp) * db_ <= da);
    }
    if (static_cast<double>(rm) * db_ == da) {
      REQUIRE(rm == rp);
    } else {
      REQUIRE(std::nextafter(rm, INFINITY) == rp);
    }
    REQUIRE(rz == ((a < 0) != (b < 0) ? rp : rm));
  }
  for (int i = 0; i < 5000; ++i) {
    const float x = g.f32(-40, 40, true);
    auto sq = [&](Round r) { return bf(run(fop(Op::Sqrt, Type::F32, 1, r), {fb(x)})); };
    const float rm = sq(Round::Rm), rp = sq(Round::Rp), rz = sq(Round::Rz);
    INFO("sqrt " << x);
    REQUIRE(static_cast<double>(rm) * rm <= x);
    REQUIRE(static_cast<double>(rp) * rp >= x);
    REQUIRE(rz == rm);
    if (static_cast<double>(rm) * rm != x) REQUIRE(std::nextafter(rm, INFINITY) == rp);
  }
}

#if defined(__SIZEOF_FLOAT128__)
TEST_CASE("f64 add/mul/fma under every rounding mode (against __float128)", "[semantics]") {
  Rng g;
  using Q = __float128;
  for (int i = 0; i < 20000; ++i) {
    const int kind = i % 3;
    const double a = g.f64(-28, 28), b = g.f64(-28, 28);
    const double c = kind == 2 ? bd(db(a * b) ^ (g.next() & 0x800fffffffffffffull)) : 0;
    Q exact;
    Op op;
    unsigned n = 2;
    if (kind == 0) {
      exact = static_cast<Q>(a) + b;  // exponent gap <= 56: exact in 113 bits
      op = Op::Add;
    } else if (kind == 1) {
      exact = static_cast<Q>(a) * b;  // 106 bits: exact
      op = Op::Mul;
    } else {
      exact = static_cast<Q>(a) * b + c;  // addend in the product's binade: exact
      op = Op::Fma;
      n = 3;
    }
    if (exact == 0) continue;
    auto r = [&](Round m) { return bd(run(fop(op, Type::F64, n, m), {db(a), db(b), db(c)})); };
    INFO(kind << ": " << a << ", " << b << ", " << c);
    bracket<double, Q>(exact, r(Round::Rn), r(Round::Rz), r(Round::Rm), r(Round::Rp));
  }
}
#endif
