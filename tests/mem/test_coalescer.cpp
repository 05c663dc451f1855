#include <catch2/catch.hpp>

#include <string>

#include "common/error.h"
#include "func/stepper.h"
#include "mem/coalescer.h"

using namespace rfsim::mem;
using rfsim::func::MemAccess;
using rfsim::ptx::Space;

namespace {

// Lane i at base + i * stride, all 32 lanes active unless `mask` says.
MemAccess strided(uint64_t base, uint64_t stride, uint8_t bytes, uint8_t elems = 1, Space sp = Space::Global,
                  uint32_t mask = 0xffffffffu) {
  MemAccess a;
  a.space = sp;
  a.bytes = bytes;
  a.elems = elems;
  a.mask = mask;
  for (uint32_t i = 0; i < 32; ++i) a.addr[i] = base + i * stride;
  return a;
}

RequestList run(const MemAccess& a, const CoalescerParams& p = {}) {
  RequestList out;
  Coalescer(p).coalesce(a, out);
  return out;
}

}  // namespace

TEST_CASE("coalescer: unit stride 4 B is one line, four sectors", "[mem]") {
  const RequestList r = run(strided(0x1000, 4, 4));
  REQUIRE(r.size() == 1);
  CHECK(r[0].line_addr == 0x1000);
  CHECK(r[0].sector_mask == 0xf);
  CHECK(r[0].bytes == 128);
  CHECK(r[0].lanes == 0xffffffffu);
  CHECK(r[0].kind == AccessKind::GlobalLoad);
  CHECK_FALSE(r[0].write);
}

TEST_CASE("coalescer: stride 8 B spans two lines in lane order", "[mem]") {
  const RequestList r = run(strided(0x2000, 8, 4));
  REQUIRE(r.size() == 2);
  CHECK(r[0].line_addr == 0x2000);
  CHECK(r[1].line_addr == 0x2080);
  for (const LineRequest& q : r) {
    CHECK(q.sector_mask == 0xf);  // every 32 B sector holds 4 of the lanes' words
    CHECK(q.bytes == 64);
  }
  CHECK(r[0].lanes == 0x0000ffffu);
  CHECK(r[1].lanes == 0xffff0000u);
}

TEST_CASE("coalescer: stride 128 B is 32 lines of one sector", "[mem]") {
  const RequestList r = run(strided(0x10000 + 32, 128, 4));
  REQUIRE(r.size() == 32);
  for (uint32_t i = 0; i < 32; ++i) {
    CHECK(r[i].line_addr == 0x10000 + 128 * i);
    CHECK(r[i].sector_mask == 0x2);  // offset 32: sector 1
    CHECK(r[i].bytes == 4);
    CHECK(r[i].lanes == 1u << i);
  }
}

TEST_CASE("coalescer: all lanes at one address are one sector", "[mem]") {
  const RequestList r = run(strided(0x3064, 0, 4));
  REQUIRE(r.size() == 1);
  CHECK(r[0].line_addr == 0x3000);
  CHECK(r[0].sector_mask == 0x8);  // 0x64 = 100: sector 3
  CHECK(r[0].bytes == 32 * 4);     // requested bytes count every lane
}

TEST_CASE("coalescer: only active lanes count, no lane, no request", "[mem]") {
  // Lanes 8..15 only: offsets 32..63 of the line, sector 1.
  RequestList r = run(strided(0x4000, 4, 4, 1, Space::Global, 0x0000ff00u));
  REQUIRE(r.size() == 1);
  CHECK(r[0].sector_mask == 0x2);
  CHECK(r[0].bytes == 32);
  CHECK(r[0].lanes == 0x0000ff00u);
  // Lanes 0 and 31 of a stride-8 access: two lines, one sector each.
  r = run(strided(0x4000, 8, 4, 1, Space::Global, 0x80000001u));
  REQUIRE(r.size() == 2);
  CHECK(r[0].line_addr == 0x4000);
  CHECK(r[0].sector_mask == 0x1);
  CHECK(r[1].line_addr == 0x4080);
  CHECK(r[1].sector_mask == 0x8);  // 31 * 8 = 248 = 128 + 120
  CHECK(run(strided(0x4000, 4, 4, 1, Space::Global, 0)).empty());
}

TEST_CASE("coalescer: 8-byte elements and float4 vectors", "[mem]") {
  RequestList r = run(strided(0x5000, 8, 8));
  REQUIRE(r.size() == 2);
  CHECK(r[0].sector_mask == 0xf);
  CHECK(r[1].sector_mask == 0xf);
  CHECK(r[0].bytes + r[1].bytes == 256);
  // ld.global.v4.f32: 16 B per lane, 512 B per warp = four full lines.
  r = run(strided(0x6000, 16, 4, 4));
  REQUIRE(r.size() == 4);
  for (uint32_t i = 0; i < 4; ++i) {
    CHECK(r[i].line_addr == 0x6000 + 128 * i);
    CHECK(r[i].sector_mask == 0xf);
    CHECK(r[i].bytes == 128);
    CHECK(r[i].lanes == 0xffu << (8 * i));
  }
}

TEST_CASE("coalescer: a misaligned element counts every sector and line it straddles", "[mem]") {
  MemAccess a = strided(0, 0, 8, 1, Space::Global, 0x3u);
  a.addr[0] = 0x7000 + 28;   // bytes 28..35: sectors 0 and 1
  a.addr[1] = 0x7000 + 124;  // bytes 124..131: sector 3 of this line, sector 0 of the next
  const RequestList r = run(a);
  REQUIRE(r.size() == 2);
  CHECK(r[0].line_addr == 0x7000);
  CHECK(r[0].sector_mask == 0xb);
  CHECK(r[0].bytes == 8 + 4);
  CHECK(r[0].lanes == 0x3u);
  CHECK(r[1].line_addr == 0x7080);
  CHECK(r[1].sector_mask == 0x1);
  CHECK(r[1].bytes == 4);
  CHECK(r[1].lanes == 0x2u);
}

TEST_CASE("coalescer: the kind splits global, local, atomic and other traffic", "[mem]") {
  MemAccess a = strided(0x100, 4, 4, 1, Space::Local);
  CHECK(run(a)[0].kind == AccessKind::LocalLoad);
  a.write = true;
  RequestList r = run(a);
  CHECK(r[0].kind == AccessKind::LocalStore);
  CHECK(r[0].write);
  CHECK(r[0].line_addr == 0x100);  // local addresses coalesce as given
  a.space = Space::Global;
  CHECK(run(a)[0].kind == AccessKind::GlobalStore);
  a.atomic = true;
  r = run(a);
  CHECK(r[0].kind == AccessKind::Atomic);
  CHECK(r[0].atomic);
  a = strided(0x100, 4, 4, 1, Space::Const);
  CHECK(run(a)[0].kind == AccessKind::Other);
  a.space = Space::Param;
  CHECK(run(a)[0].kind == AccessKind::Other);
  CHECK(accessKindOf(Space::Generic, false, false) == AccessKind::Other);
  CHECK(std::string(accessKindName(AccessKind::LocalStore)) == "local_store");
}

TEST_CASE("coalescer: shared memory is not the coalescer's", "[mem]") {
  RequestList r = run(strided(0x100, 4, 4));
  REQUIRE(r.size() == 1);
  Coalescer().coalesce(strided(0x100, 4, 4, 1, Space::Shared), r);  // replaces the previous result
  CHECK(r.empty());
}

TEST_CASE("coalescer: other geometries and bad parameters", "[mem]") {
  CoalescerParams p;
  p.line_bytes = 64;
  p.sector_bytes = 16;
  const RequestList r = run(strided(0x40, 4, 4), p);
  REQUIRE(r.size() == 2);
  CHECK(r[0].sector_mask == 0xf);
  CHECK(r[1].line_addr == 0x80);
  p = CoalescerParams{};
  p.line_bytes = 96;
  CHECK_THROWS_WITH(Coalescer(p), Catch::Contains("line_bytes 96"));
  p = CoalescerParams{};
  p.sector_bytes = 256;
  CHECK_THROWS_WITH(Coalescer(p), Catch::Contains("sector_bytes 256"));
  p = CoalescerParams{};
  p.sector_bytes = 8;
  CHECK_THROWS_WITH(Coalescer(p), Catch::Contains("16 sectors per line"));
  MemAccess a = strided(0, 4, 3);
  RequestList out;
  CHECK_THROWS_AS(Coalescer().coalesce(a, out), rfsim::Error);
  a = strided(0, 4, 4, 3);
  CHECK_THROWS_AS(Coalescer().coalesce(a, out), rfsim::Error);
  a = strided(0, 4, 4, 1, Space::None);
  CHECK_THROWS_AS(Coalescer().coalesce(a, out), rfsim::Error);
  p.line_bytes = 32;
  a = strided(0, 16, 16, 4);  // 64 B per lane, longer than a 32 B line
  CHECK_THROWS_WITH(Coalescer(p).coalesce(a, out), Catch::Contains("exceed line_bytes 32"));
}
