// BankMap and the register-index translation hook.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "sm/opcoll/bank_map.h"

using namespace rfsim::sm;

TEST_CASE("bank map: GPGPU-Sim register_bank with and without the warp swizzle", "[oc]") {
  BankMap on({16, 1, 1});
  BankMap off({16, 0, 1});
  // R3 of warp 0 and warp 5: (3 + 0) % 16 = 3, (3 + 5) % 16 = 8.
  CHECK(on.bank(3, 0) == 3);
  CHECK(on.bank(3, 5) == 8);
  CHECK(on.bank(15, 3) == 2);  // (15 + 3) % 16
  CHECK(off.bank(3, 0) == 3);
  CHECK(off.bank(3, 5) == 3);
  BankMap two({8, 2, 1});
  CHECK(two.bank(1, 3) == 7);  // (1 + 2 * 3) % 8
}

TEST_CASE("bank map: sub-cores fold into the warp's slice of banks", "[oc]") {
  BankMap m({16, 1, 4});  // 4 banks per sub-core
  // warp 6 -> sub-core 2 (banks 8..11); (5 + 6) % 4 = 3 -> bank 11.
  CHECK(m.bank(5, 6) == 11);
  CHECK(m.bank(0, 0) == 0);
  CHECK_THROWS_AS(BankMap({16, 1, 3}), rfsim::Error);
  CHECK_THROWS_AS(BankMap({0, 1, 1}), rfsim::Error);
}

TEST_CASE("bank map: a pluggable function replaces the formula", "[oc]") {
  BankMap m(4, [](uint32_t index, uint32_t) { return (index / 2) % 4; });
  CHECK(m.bank(0, 9) == 0);
  CHECK(m.bank(3, 9) == 1);
  CHECK(m.bank(7, 0) == 3);
  BankMap bad(4, [](uint32_t, uint32_t) { return 4u; });
  CHECK_THROWS_AS(bad.bank(0, 0), rfsim::Error);
}

TEST_CASE("base-index translator: base[warp] + reg", "[oc]") {
  BaseIndexTranslator t(4);
  t.setBase(2, 96);
  CHECK(t.translate(2, 5) == 101);
  CHECK(t.translate(0, 5) == 5);
  CHECK_THROWS(t.setBase(4, 0));
}

TEST_CASE("bank map: the mask-and-shift path gives GPGPU-Sim's modulo formula", "[opcoll]") {
  // The formula as written out (register_bank(), folded per sub-core).
  auto formula = [](const BankMapParams& p, uint32_t index, uint32_t warp) {
    const uint64_t b = uint64_t(index) + uint64_t(p.swizzle) * warp;
    const uint32_t per = p.num_banks / p.sub_cores;
    return static_cast<uint32_t>(b % per + (warp % p.sub_cores) * per);
  };
  for (const BankMapParams p : {BankMapParams{16, 1, 1}, BankMapParams{8, 1, 4}, BankMapParams{32, 0, 4},
                                BankMapParams{64, 3, 2}, BankMapParams{24, 1, 4}, BankMapParams{12, 1, 1}}) {
    const BankMap m(p);
    for (uint32_t warp = 0; warp < 70; ++warp)
      for (uint32_t index : {0u, 1u, 5u, 31u, 254u, 1000u, 65535u, 4000000000u}) {
        INFO("banks " << p.num_banks << " swizzle " << p.swizzle << " sub-cores " << p.sub_cores << " index "
                      << index << " warp " << warp);
        CHECK(m.bank(index, warp) == formula(p, index, warp));
      }
  }
}
