// rtl/ltrf_wcb.sv, Verilated (mech/ltrf/wcb_rtl.h): random operations and
// lookups against the C++ reference of the same units (wcb.h: the AAU
// queues, the warp-offset queues and the address table), and its waveform.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "mech/ltrf/wcb.h"
#include "mech/ltrf/wcb_rtl.h"

using namespace rfsim::mech::ltrf;

namespace {

// The reference: what LtrfSm keeps, without the timing.
struct Ref {
  explicit Ref(const WcbRtlParams& p) : p(p), aau(p.num_warps, Aau(p.num_banks)), wcb(p.num_warps), offsets(p.num_offsets) {}
  WcbRtlParams p;
  std::vector<Aau> aau;
  std::vector<Wcb> wcb;
  OffsetAllocator offsets;

  WcbRtl::Result op(WcbRtl::Op op, uint32_t w, uint32_t r) {
    WcbRtl::Result x;
    Wcb& c = wcb[w];
    switch (op) {
      case WcbRtl::Op::Alloc: {
        uint8_t b = 0;
        if (c.valid.test(r) || !aau[w].allocate(b)) return x;
        c.bank[r] = b;
        c.valid.set(r);
        return {true, b, 0};
      }
      case WcbRtl::Op::Free:
        if (!c.valid.test(r)) return x;
        aau[w].free(c.bank[r]);
        c.valid.reset(r);
        return {true, c.bank[r], 0};
      case WcbRtl::Op::Act: {
        uint8_t o = 0;
        if (c.offset != Wcb::kNone || !offsets.allocate(o)) return x;
        c.offset = o;
        return {true, 0, o};
      }
      case WcbRtl::Op::Deact: {
        if (c.offset == Wcb::kNone) return x;
        const uint8_t o = c.offset;
        offsets.free(o);
        c.offset = Wcb::kNone;
        return {true, 0, o};
      }
      case WcbRtl::Op::Launch:
        if (c.offset != Wcb::kNone) offsets.free(c.offset);
        c.clear();
        aau[w].reset(p.num_banks);
        return {true, 0, 0};
      default:
        return x;
    }
  }
};

}  // namespace

TEST_CASE("ltrf wcb rtl: 200 000 random operations and lookups against the reference", "[ltrf][rtl]") {
  const WcbRtlParams p = WcbRtl::built();
  WcbRtl rtl;
  Ref ref(p);
  std::mt19937 rng(11);
  // A few warps and registers, so that queues fill and empty.
  const uint32_t warps = 6, regs = 24;
  for (int i = 0; i < 200000; ++i) {
    const uint32_t w = rng() % warps, r = rng() % regs;
    const uint32_t k = rng() % 100;
    const WcbRtl::Op op = k < 40   ? WcbRtl::Op::Alloc
                          : k < 75 ? WcbRtl::Op::Free
                          : k < 87 ? WcbRtl::Op::Act
                          : k < 98 ? WcbRtl::Op::Deact
                                   : WcbRtl::Op::Launch;
    const WcbRtl::Result want = ref.op(op, w, r);
    const WcbRtl::Result got = rtl.op(op, w, r);
    INFO("operation " << i << " kind " << int(op) << " warp " << w << " reg " << r);
    REQUIRE(got.ok == want.ok);
    if (want.ok && (op == WcbRtl::Op::Alloc || op == WcbRtl::Op::Free)) REQUIRE(got.bank == want.bank);
    if (want.ok && (op == WcbRtl::Op::Act || op == WcbRtl::Op::Deact)) REQUIRE(got.offset == want.offset);
    const uint32_t lw = rng() % warps, lr = rng() % regs;
    const Wcb& c = ref.wcb[lw];
    const bool hit = c.valid.test(lr) && c.offset != Wcb::kNone;
    const WcbRtl::Lookup l = rtl.lookup(lw, lr, i & 1);
    REQUIRE(l.hit == hit);
    if (hit) {
      REQUIRE(l.bank == c.bank[lr]);
      REQUIRE(l.offset == c.offset);
      REQUIRE(l.index == uint32_t{c.offset} * p.num_banks + c.bank[lr]);
    }
  }
  CHECK(rtl.ops() == 200000);
}

TEST_CASE("ltrf wcb rtl: a prefetch, a deactivation and a reactivation in its waveform", "[ltrf][rtl]") {
  const auto dir = std::filesystem::temp_directory_path() / "rfsim_ltrf_wcb_wave";
  std::filesystem::create_directories(dir);
  const auto vcd = dir / "wcb.vcd";
  {
    WcbRtl rtl;
    rtl.traceTo(vcd, 0, 100);
    uint64_t cycle = 0;
    rtl.setCycle(cycle++);
    rtl.op(WcbRtl::Op::Launch, 0, 0);
    rtl.setCycle(cycle++);
    REQUIRE(rtl.op(WcbRtl::Op::Act, 0, 0).ok);
    rtl.setCycle(cycle++);
    for (uint32_t r : {2u, 3u, 8u}) REQUIRE(rtl.op(WcbRtl::Op::Alloc, 0, r).ok);  // a prefetch of R2, R3, R8
    CHECK(rtl.lookup(0, 8).hit);
    rtl.setCycle(cycle++);
    for (uint32_t r : {2u, 3u, 8u}) REQUIRE(rtl.op(WcbRtl::Op::Free, 0, r).ok);  // deactivation: slots freed,
    REQUIRE(rtl.op(WcbRtl::Op::Deact, 0, 0).ok);                                   // the offset returned
    CHECK(!rtl.lookup(0, 8).hit);
    rtl.setCycle(cycle++);
    REQUIRE(rtl.op(WcbRtl::Op::Act, 0, 0).ok);  // reactivation: the set fetched again
    for (uint32_t r : {2u, 3u, 8u}) REQUIRE(rtl.op(WcbRtl::Op::Alloc, 0, r).ok);
    // The unused queue went round: the freed banks come back after the rest.
    CHECK(rtl.lookup(0, 2).bank == 3);
    rtl.closeTrace();
  }
  std::ifstream in(vcd);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  CHECK(text.find("op_i") != std::string::npos);
  CHECK(text.find("count_q") != std::string::npos);
  CHECK(text.find("valid_q") != std::string::npos);
  CHECK(text.find("#4000") != std::string::npos);  // the reactivation, in the fifth cycle: 1 ns a cycle
  std::filesystem::remove_all(dir);
}
