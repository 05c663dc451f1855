// Whole kernels compiled by nvcc (kernels.cu -> kernels_ptx.h) against CPU
// references.
#include <catch2/catch.hpp>

#include <numeric>

#include "func_helpers.h"
#include "kernels_ptx.h"

using namespace rfsim;
using rfsim::test::Gpu;

TEST_CASE("saxpy over several blocks with a partial last block", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * i;
    y[i] = 1.0f + i;
  }
  const uint64_t dx = g.upload(x), dy = g.upload(y);
  const auto st = g.dev.launch("saxpy", {4}, {256}, rt::KernelArgs().i32(n).f32(2.0f).ptr(dx).ptr(dy));
  const auto out = g.download<float>(dy, n);
  for (int i = 0; i < n; ++i) REQUIRE(out[i] == 2.0f * x[i] + y[i]);
  CHECK(st.blocks == 4);
  CHECK(st.threads == 1024);
  CHECK(st.warps == 32);
  CHECK(st.warp_instrs > 0);
  CHECK(st.warp_instrs_by_op[static_cast<size_t>(ptx::Op::Fma)] == 1000 / 32 + 1);
}

TEST_CASE("recursive device function (fib) called from a divergent branch", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const int n = 200;
  const uint64_t out = g.zeros<int>(n);
  g.dev.launch("fib_kernel", {2}, {128}, rt::KernelArgs().ptr(out).i32(n));
  const auto v = g.download<int>(out, n);
  auto fib = [](int k) {
    int a = 0, b = 1;
    for (int i = 0; i < k; ++i) std::swap(a, b), b += a;
    return a;
  };
  for (int i = 0; i < n; ++i) REQUIRE(v[i] == fib(i % 13));
}

TEST_CASE("block reduction: dynamic shared memory / barriers / shfl.down / atom.add", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const int n = 3000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 50;
  const uint64_t din = g.upload(in), dout = g.zeros<int>(1);
  g.dev.launch("reduce", {(n + 255) / 256}, {256}, rt::KernelArgs().ptr(din).ptr(dout).i32(n), 256 * 4);
  CHECK(g.download<int>(dout, 1)[0] == std::accumulate(in.begin(), in.end(), 0));
}

TEST_CASE("data-dependent loop trip counts with nested divergence (collatz)", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const int n = 500;
  std::vector<unsigned> in(n);
  std::iota(in.begin(), in.end(), 1u);
  const uint64_t din = g.upload(in), dout = g.zeros<unsigned>(n);
  g.dev.launch("collatz", {4}, {128}, rt::KernelArgs().ptr(din).ptr(dout).i32(n));
  const auto v = g.download<unsigned>(dout, n);
  for (int i = 0; i < n; ++i) {
    unsigned x = in[i], s = 0;
    while (x != 1) {
      if (x & 1) {
        if (x % 3 == 0) s += 100;
        x = 3 * x + 1;
      } else {
        x >>= 1;
      }
      ++s;
    }
    REQUIRE(v[i] == s);
  }
}

TEST_CASE("shfl.sync up/down/bfly/idx with segments / vote.sync ballot/any/all", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const uint64_t out = g.zeros<int>(64 * 8);
  g.dev.launch("shuffles", {1}, {64}, rt::KernelArgs().ptr(out));
  const auto v = g.download<int>(out, 64 * 8);
  for (int t = 0; t < 64; ++t) {
    const int lane = t & 31, base = t - lane;
    const int* o = &v[t * 8];
    INFO("thread " << t);
    CHECK(o[0] == (lane >= 3 ? t - 3 : t));
    CHECK(o[1] == (lane + 5 <= 31 ? t + 5 : t));
    CHECK(o[2] == base + (lane ^ 6));
    CHECK(o[3] == base + ((lane * 7) & 31));
    CHECK(o[4] == base + (lane & ~7) + 2);
    CHECK(o[5] == ((lane & 15) + 3 <= 15 ? t + 3 : t));
    unsigned ballot = 0;
    for (int l = 0; l < 32; ++l)
      if ((base + l) % 3 == 0) ballot |= 1u << l;
    CHECK(static_cast<unsigned>(o[6]) == ballot);
    CHECK(o[7] == ((base == 0 ? 1 : 0) | 2));
  }
}

TEST_CASE("atomics on global memory: every operation and width / in lane order", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  std::vector<unsigned> u(10, 0);
  u[2] = 0xffffffffu;
  u[3] = 0xffffffffu;
  const uint64_t du = g.upload(u), ds = g.zeros<int>(3), dw = g.zeros<unsigned long long>(1),
                 df = g.zeros<float>(1), dold = g.zeros<int>(64);
  g.dev.launch("atomics", {1}, {64}, rt::KernelArgs().ptr(du).ptr(ds).ptr(dw).ptr(df).ptr(dold));
  const auto uo = g.download<unsigned>(du, 10);
  const auto so = g.download<int>(ds, 3);
  const auto old = g.download<int>(dold, 64);
  for (int t = 0; t < 64; ++t) CHECK(old[t] == t);  // lane order, warp 0 first
  CHECK(uo[0] == 64);
  CHECK(so[0] == -2016);
  CHECK(so[1] == -63);
  CHECK(so[2] == 63);
  CHECK(uo[1] == 189);
  CHECK(uo[2] == 1000);
  CHECK(uo[3] == 0);
  CHECK(uo[4] == 0xffffffffu);
  CHECK(uo[5] == 0);
  CHECK(uo[6] == 4);
  CHECK(uo[7] == 6);
  CHECK(uo[8] == 63);
  CHECK(uo[9] == 128);  // the atomicCAS retry loop
  CHECK(g.download<unsigned long long>(dw, 1)[0] == (2016ull << 33));
  CHECK(g.download<float>(df, 1)[0] == 32.0f);
}

TEST_CASE("shared-memory atomics: histogram over a grid-stride loop", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const int n = 5000;
  std::vector<unsigned char> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<unsigned char>((i * 7919) >> 3);
  const uint64_t din = g.upload(in), dbins = g.zeros<unsigned>(16);
  g.dev.launch("histogram", {4}, {128}, rt::KernelArgs().ptr(din).ptr(dbins).i32(n));
  std::vector<unsigned> ref(16, 0);
  for (unsigned char c : in) ++ref[c & 15];
  CHECK(g.download<unsigned>(dbins, 16) == ref);
}

TEST_CASE("generic pointers into shared / local and global memory", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  std::vector<int> in(40);
  std::iota(in.begin(), in.end(), 100);
  const uint64_t din = g.upload(in), dout = g.zeros<int>(32);
  g.dev.launch("generic_ptrs", {1}, {32}, rt::KernelArgs().ptr(din).ptr(dout));
  const auto v = g.download<int>(dout, 32);
  for (int t = 0; t < 32; ++t) {
    const int want = t % 3 == 0 ? 3 * t + 3 : t % 3 == 1 ? 30 * t + 3 : in[t] + in[t + 1] + in[t + 2];
    REQUIRE(v[t] == want);
  }
}

TEST_CASE("indirect calls through a function-pointer table / divergent targets", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const uint64_t dout = g.zeros<int>(64);
  g.dev.launch("indirect", {1}, {64}, rt::KernelArgs().ptr(dout));
  const auto v = g.download<int>(dout, 64);
  for (int t = 0; t < 64; ++t) REQUIRE(v[t] == (t % 3 == 0 ? t + 3 : t % 3 == 1 ? t * 3 : t - 3));
}

TEST_CASE("device-side malloc and free", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const uint64_t dout = g.zeros<int>(64);
  g.dev.launch("device_heap", {1}, {64}, rt::KernelArgs().ptr(dout));
  const auto v = g.download<int>(dout, 64);
  for (int t = 0; t < 64; ++t) REQUIRE(v[t] == 6 * t);
}

TEST_CASE("threads exiting before a barrier do not hold it up", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const uint64_t dout = g.zeros<int>(64);
  g.dev.launch("early_exit", {1}, {64}, rt::KernelArgs().ptr(dout));
  const auto v = g.download<int>(dout, 64);
  for (int t = 0; t < 40; ++t) REQUIRE(v[t] == 39 - t);
  for (int t = 40; t < 64; ++t) REQUIRE(v[t] == 0);
}

TEST_CASE("bar.red: __syncthreads_count/and/or", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const uint64_t dout = g.zeros<int>(3);
  g.dev.launch("sync_count", {1}, {128}, rt::KernelArgs().ptr(dout));
  CHECK(g.download<int>(dout, 3) == std::vector<int>{32, 1, 1});
}

TEST_CASE("recursion keeps each frame's local array", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const uint64_t dout = g.zeros<int>(64);
  g.dev.launch("recursion_locals", {1}, {64}, rt::KernelArgs().ptr(dout));
  const auto v = g.download<int>(dout, 64);
  for (int t = 0; t < 64; ++t) {
    int want = 0;
    for (int m = 0; m <= t % 20; ++m) want += m * 10 + m % 8;
    REQUIRE(v[t] == want);
  }
}

TEST_CASE("__constant__ and __device__ variables through symbolAddress", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const std::vector<float> c{1.0f, 2.0f, 3.0f, 4.0f};
  g.dev.memcpyHtoD(g.dev.symbolAddress("coef"), c.data(), 16);
  const uint64_t out = g.zeros<float>(64);
  g.dev.launch("const_and_globals", {2}, {64}, rt::KernelArgs().ptr(out));
  const auto v = g.download<float>(out, 64);
  for (int t = 0; t < 64; ++t) REQUIRE(v[t] == c[t % 4] * t);
  int counter = 0;
  g.dev.memcpyDtoH(&counter, g.dev.symbolAddress("counter"), 4);
  CHECK(counter == 128);
  CHECK_THROWS_WITH(g.dev.symbolAddress("nope"), Catch::Matchers::Contains("no .global or .const variable"));
}

TEST_CASE("vector loads and stores", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  std::vector<float> in(4 * 32);
  std::iota(in.begin(), in.end(), 0.0f);
  const uint64_t din = g.upload(in), dout = g.zeros<float>(4 * 32), dp = g.zeros<int>(2 * 32);
  g.dev.launch("vectors", {1}, {32}, rt::KernelArgs().ptr(din).ptr(dout).ptr(dp));
  const auto o = g.download<float>(dout, 128);
  const auto p = g.download<int>(dp, 64);
  for (int t = 0; t < 32; ++t) {
    for (int k = 0; k < 4; ++k) REQUIRE(o[t * 4 + k] == in[t * 4 + 3 - k]);
    REQUIRE(p[t * 2] == t);
    REQUIRE(p[t * 2 + 1] == -t);
  }
}

namespace {
int switchyRef(int x) {
  int acc = 0;
  for (int k = 0; k < (x & 15); ++k) {
    switch ((x + k) % 7) {
      case 0: acc += 3; break;
      case 1: acc ^= k; continue;
      case 2: acc *= 3; break;
      case 3: if (acc > 100) goto done; acc += 11; break;
      case 4: acc -= 1; break;
      case 5: acc += k * k; break;
      default: acc = acc / 2 + 1; break;
    }
    if (acc & 1) acc += 7;
  }
done:
  return acc;
}
}  // namespace

TEST_CASE("switch in a loop with continue and goto: per-thread paths", "[func]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const int n = 3000;
  std::vector<int> in(n);
  uint32_t s = 12345;
  for (int& x : in) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<int>(s >> 8);
  }
  const uint64_t din = g.upload(in), dout = g.zeros<int>(n);
  g.dev.launch("switchy", {(n + 127) / 128}, {128}, rt::KernelArgs().ptr(din).ptr(dout).i32(n));
  const auto v = g.download<int>(dout, n);
  for (int i = 0; i < n; ++i) REQUIRE(v[i] == switchyRef(in[i]));
}
