// Functional throughput (hidden: run with `test_func "[.bench]"`): warp
// instructions per host second on million-thread kernels.
#include <catch2/catch.hpp>

#include <cstdio>
#include <ctime>
#include <numeric>

#include "func_helpers.h"
#include "kernels_ptx.h"

using namespace rfsim;
using rfsim::test::Gpu;

namespace {
// Rates per second of process CPU time (the wall time is in host_seconds; on
// a loaded machine the two differ).
template <class F>
void report(const char* what, F&& launch) {
  const std::clock_t c0 = std::clock();
  const rt::LaunchStats s = launch();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  std::printf("%-24s %11llu warp instrs %13llu thread instrs  cpu %6.3f s (wall %6.3f s)  %5.1f M warp instr/s  "
              "%6.1f M thread instr/s\n",
              what, static_cast<unsigned long long>(s.warp_instrs), static_cast<unsigned long long>(s.thread_instrs),
              cpu, s.host_seconds, s.warp_instrs / cpu / 1e6, s.thread_instrs / cpu / 1e6);
}
}  // namespace

TEST_CASE("functional throughput: saxpy", "[.bench]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const int n = 1 << 20;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  const uint64_t dx = g.upload(x), dy = g.upload(y);
  report("saxpy 1M threads", [&] { return g.dev.launch("saxpy", {n / 256}, {256}, rt::KernelArgs().i32(n).f32(3.0f).ptr(dx).ptr(dy)); });
}

TEST_CASE("functional throughput: reduce / collatz / fib", "[.bench]") {
  Gpu g(test::kKernelsPtx, "kernels.ptx");
  const int n = 1 << 20;
  std::vector<int> in(n, 1);
  const uint64_t din = g.upload(in), dout = g.zeros<int>(1);
  report("reduce 1M threads", [&] { return g.dev.launch("reduce", {n / 256}, {256}, rt::KernelArgs().ptr(din).ptr(dout).i32(n), 1024); });
  CHECK(g.download<int>(dout, 1)[0] == n);
  const int m = 1 << 18;
  std::vector<unsigned> cin(m);
  std::iota(cin.begin(), cin.end(), 1u);
  const uint64_t dc = g.upload(cin), ds = g.zeros<unsigned>(m);
  report("collatz 256K threads", [&] { return g.dev.launch("collatz", {m / 256}, {256}, rt::KernelArgs().ptr(dc).ptr(ds).i32(m)); });
  const uint64_t dfib = g.zeros<int>(m);
  report("fib (recursive) 256K", [&] { return g.dev.launch("fib_kernel", {m / 256}, {256}, rt::KernelArgs().ptr(dfib).i32(m)); });
}
