// GlobalMemory: allocation placement, bounds and the host copies.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "func/memory.h"

using namespace rfsim;
using namespace rfsim::func;

TEST_CASE("allocations are 256-byte aligned / never at 0 / and separated by a guard", "[func]") {
  GlobalMemory m;
  const uint64_t a = m.allocate(100, AllocKind::Malloc);
  const uint64_t b = m.allocate(256, AllocKind::Malloc);
  CHECK(a == kGlobalBase);
  CHECK(a % 256 == 0);
  CHECK(b % 256 == 0);
  CHECK(b >= a + 256 + 256);
  CHECK(m.translate(a, 4) != nullptr);
  CHECK(m.translate(a + 96, 4) != nullptr);
  CHECK(m.translate(a + 97, 4) == nullptr);   // straddles the end
  CHECK(m.translate(a + 100, 1) == nullptr);  // just past the end
  CHECK(m.translate(b - 1, 1) == nullptr);    // the guard before b
  CHECK(m.translate(0, 1) == nullptr);
  CHECK(m.describe(a + 200) == " (allocation " + hex(a) + " + 100 bytes)");
  CHECK(m.describe(16) == " (no allocation)");
  CHECK(m.liveBytes() == 356);
}

TEST_CASE("freed addresses are not reused and double frees fail", "[func]") {
  GlobalMemory m;
  const uint64_t a = m.allocate(64, AllocKind::Malloc);
  m.release(a, AllocKind::Malloc);
  CHECK(m.translate(a, 4) == nullptr);
  const uint64_t b = m.allocate(64, AllocKind::Malloc);
  CHECK(b != a);
  CHECK_THROWS_AS(m.release(a, AllocKind::Malloc), Error);
  CHECK_THROWS_AS(m.release(b + 4, AllocKind::Malloc), Error);
  CHECK_THROWS_AS(m.release(b, AllocKind::Heap), Error);  // not a device-heap block
}

TEST_CASE("host copies and capacity", "[func]") {
  GlobalMemory m(1024);
  const uint64_t a = m.allocate(16, AllocKind::Malloc);
  const uint32_t v = 0xdeadbeef;
  m.write(a + 12, &v, 4);
  uint32_t r = 0;
  m.read(&r, a + 12, 4);
  CHECK(r == v);
  CHECK_THROWS_WITH(m.write(a + 13, &v, 4), Catch::Matchers::Contains("memcpy to device of 4 bytes at"));
  m.fill(a, 0xff, 16);
  m.read(&r, a, 4);
  CHECK(r == 0xffffffffu);
  CHECK_THROWS_WITH(m.allocate(2000, AllocKind::Malloc), Catch::Matchers::Contains("out of device memory"));
}
