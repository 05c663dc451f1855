// mem::Ipoly (mem/ipoly.h): every polynomial of the table is primitive, and
// the hash is a one-to-one map of (index, high part) that spreads any
// power-of-two stride over all indices.
#include <catch2/catch.hpp>

#include <set>

#include "mem/ipoly.h"

using rfsim::mem::Ipoly;

TEST_CASE("ipoly: each table polynomial is primitive (x has order 2^k - 1)", "[mem][ipoly]") {
  for (uint32_t k = 1; k <= Ipoly::kMaxDegree; ++k) {
    const uint32_t p = Ipoly::kPolynomial[k];
    INFO("degree " << k);
    REQUIRE(p >> k == 1u);  // degree exactly k
    uint32_t r = 1, order = 0;
    do {
      r <<= 1;
      if (r & (1u << k)) r ^= p;
      ++order;
    } while (r != 1 && order <= (1u << k));
    CHECK(order == (1u << k) - 1);
  }
}

TEST_CASE("ipoly: the low bits pass through and a power-of-two stride covers every index", "[mem][ipoly]") {
  for (uint32_t k : {1u, 5u, 6u, 8u, 12u}) {
    const Ipoly h(k);
    const uint64_t n = uint64_t{1} << k;
    INFO("degree " << k);
    for (uint64_t v = 0; v < n; ++v) REQUIRE(h(v) == v);
    for (uint32_t shift : {uint32_t(k), k + 3, 17u, 40u}) {
      std::set<uint32_t> seen;
      for (uint64_t i = 0; i < n; ++i) seen.insert(h(i << shift));
      CHECK(seen.size() == n);
    }
    // (index, high part) -> value is one-to-one: lo = index XOR h(hi << k).
    for (uint64_t hi : {uint64_t{1}, uint64_t{12345}, uint64_t{1} << 30})
      for (uint64_t lo = 0; lo < n; ++lo) CHECK((h((hi << k) | lo) ^ h(hi << k)) == lo);
  }
  CHECK(Ipoly(0)(0xdeadbeef) == 0);
}
