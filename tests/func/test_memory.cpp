// GlobalMemory: allocation placement, bounds and the host copies.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "func_helpers.h"
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

TEST_CASE("a shared address wraps at 32 bits like the hardware's", "[func]") {
  // nvcc -O2 (Rodinia nw) loads [%r4+68] with %r4 = base - 64: below 0 in
  // 32 bits, and back in range with the offset. Thread t reads s[1] + t.
  const std::string ptx = test::ptxKernel("wrap", ".param .u64 out", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[64];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  add.s32 %r5, %r1, 40;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  add.s32 %r6, %r4, -64;
  ld.shared.u32 %r7, [%r6+68];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
)");
  test::Gpu g(ptx, "wrap.ptx");
  const uint64_t out = g.zeros<uint32_t>(8);
  g.dev.launch("wrap", {1}, {8}, rt::KernelArgs().ptr(out));
  // Thread 0's %r6 is 0xffffffc0: +68 is shared address 4, s[1] = 41.
  const auto v = g.download<uint32_t>(out, 7);
  CHECK(v == std::vector<uint32_t>{41, 42, 43, 44, 45, 46, 47});
}

TEST_CASE("host memory lies in the host window, and registered memory is the application's own", "[func]") {
  GlobalMemory m;
  const uint64_t pinned = m.allocateMapped(100, AllocKind::Host);
  CHECK(isHostAddress(pinned));
  CHECK(!isHostAddress(m.allocate(100, AllocKind::Malloc)));
  CHECK(!isHostAddress(m.allocateMapped(100, AllocKind::Managed)));
  *reinterpret_cast<int*>(pinned) = 7;  // the host's pointer is the device's
  CHECK(*reinterpret_cast<int*>(m.translate(pinned, 4)) == 7);

  alignas(16) static int mine[64] = {};
  const uint64_t d = m.registerHost(mine + 1, 40);
  CHECK(isHostAddress(d));
  CHECK(d % 256 == reinterpret_cast<uint64_t>(mine + 1) % 256);  // the host's alignment
  CHECK(m.translate(d, 4) == reinterpret_cast<uint8_t*>(mine + 1));  // no copy
  const int v = 42;
  m.write(d + 4, &v, 4);
  CHECK(mine[2] == 42);
  CHECK(m.translate(d + 40, 1) == nullptr);  // past its end
  CHECK_THROWS_WITH(m.registerHost(mine + 5, 8), Catch::Matchers::Contains("overlaps memory registered"));
  CHECK_THROWS_AS(m.release(d, AllocKind::Host), Error);
  m.release(d, AllocKind::Registered);
  CHECK(m.translate(d, 4) == nullptr);
  CHECK(mine[2] == 42);  // the bytes stay the application's
}
