// A launch's thread blocks on several host threads (func/parallel_blocks.cpp):
// the same memory, statistics and errors as on one, reductions raced by
// many blocks at once, and the kernels that must stay on one thread.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "config/gpu_config.h"
#include "config/config_io.h"
#include "func/memory.h"
#include "func/program.h"
#include "ptx/parser.h"
#include "runtime/runtime.h"
#include "workloads/workload.h"

using namespace rfsim;

namespace {

const char* kPtx = R"(
.version 7.0
.target sm_70
.address_size 64

// Every thread updates five counters with reductions (add, max, xor, a
// 64-bit add, min), stores 3 * its index, and takes a ticket from a shared
// counter of its block (its old value read: the block's own).
.visible .entry race(.param .u64 counters, .param .u64 out, .param .u64 out2)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .shared .u32 sc;
  ld.param.u64 %rd1, [counters];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [out2];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  red.global.add.u32 [%rd1], 1;
  red.global.max.s32 [%rd1+4], %r4;
  red.global.xor.b32 [%rd1+8], %r4;
  cvt.u64.u32 %rd4, %r4;
  red.global.add.u64 [%rd1+16], %rd4;
  xor.b32 %r5, %r4, 21845;
  red.global.min.u32 [%rd1+24], %r5;
  mul.lo.s32 %r6, %r4, 3;
  mul.wide.u32 %rd5, %r4, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r6;
  atom.shared.add.u32 %r7, [sc], %r3;
  add.s64 %rd7, %rd3, %rd5;
  st.global.u32 [%rd7], %r7;
  ret;
}

// A ticket from a global counter: the value a thread gets depends on the
// order of the blocks.
.visible .entry ticket(.param .u64 counter, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  atom.global.add.u32 %r5, [%rd1], 1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r5;
  ret;
}

// Blocks 5 and 9 store a megabyte past the buffer.
.visible .entry oob(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  setp.eq.u32 %p1, %r1, 5;
  setp.eq.u32 %p2, %r1, 9;
  or.pred %p3, %p1, %p2;
  @%p3 add.s64 %rd3, %rd3, 1048576;
  st.global.u32 [%rd3], %r3;
  ret;
}

.visible .entry spin(.param .u64 flag)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [flag];
  ld.volatile.global.u32 %r1, [%rd1];
  ret;
}

.visible .entry timed(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %clock;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

std::vector<uint8_t> arg(uint64_t v) {
  std::vector<uint8_t> b(8);
  std::memcpy(b.data(), &v, 8);
  return b;
}

// One launch of `kernel` on `threads` host threads from fresh memory: the
// bytes of every allocation afterwards, and the launch's counts.
struct Result {
  func::GlobalMemory::Snapshot memory;
  rt::LaunchStats stats;
};

Result launch(const std::string& kernel, unsigned threads, uint32_t blocks, uint32_t block_threads) {
  func::GlobalMemory mem;
  func::Limits lim;
  lim.threads = threads;
  func::Program prog(ptx::parseString(kPtx, "race.ptx"), mem, lim);
  const uint32_t n = blocks * block_threads;
  const uint64_t counters = mem.allocate(32, func::AllocKind::Malloc);
  const uint64_t out = mem.allocate(n * 4ull, func::AllocKind::Malloc);
  const uint64_t out2 = mem.allocate(n * 4ull, func::AllocKind::Malloc);
  mem.fill(counters, 0, 32);
  mem.fill(counters + 24, 0xff, 4);  // the min starts at the largest value
  std::vector<std::vector<uint8_t>> args{arg(counters), arg(out)};
  if (kernel == "race") args.push_back(arg(out2));
  if (kernel == "oob") args = {arg(out)};
  Result r;
  r.stats = prog.launch(kernel, {blocks, 1, 1}, {block_threads, 1, 1}, args);
  r.memory = mem.snapshot();
  return r;
}

std::string orderDependence(const std::string& kernel) {
  func::GlobalMemory mem;
  func::Program prog(ptx::parseString(kPtx, "race.ptx"), mem);
  for (const func::DFunction& f : prog.functions())
    if (f.fn->name == kernel) return prog.blockOrderDependence(f);
  FAIL("no kernel " << kernel);
  return {};
}

bool sameCounts(const rt::LaunchStats& a, const rt::LaunchStats& b) {
  return a.warp_instrs == b.warp_instrs && a.thread_instrs == b.thread_instrs &&
         a.warp_instrs_by_op == b.warp_instrs_by_op && a.warp_instrs_by_role == b.warp_instrs_by_role &&
         a.thread_instrs_by_role == b.thread_instrs_by_role && a.blocks == b.blocks && a.warps == b.warps;
}

}  // namespace

TEST_CASE("parallel blocks: reductions raced by 512 blocks on 8 threads give one thread's memory", "[func]") {
  REQUIRE(orderDependence("race").empty());
  const Result one = launch("race", 1, 512, 64);
  for (int rep = 0; rep < 3; ++rep) {
    const Result many = launch("race", 8, 512, 64);
    CHECK(many.memory == one.memory);
    CHECK(sameCounts(many.stats, one.stats));
  }
  // And the values themselves: 32768 threads, indices 0..32767.
  uint32_t c[8];
  std::memcpy(c, one.memory.front().second.data(), 32);
  CHECK(c[0] == 32768);
  CHECK(c[1] == 32767);
  CHECK(c[2] == 0);  // the xor of 0..32767
  CHECK((uint64_t{c[5]} << 32 | c[4]) == 32767ull * 32768 / 2);
  CHECK(c[6] == 0);  // some index xor 21845 is 0
}

TEST_CASE("parallel blocks: kernels whose result depends on the blocks' order stay on one thread", "[func]") {
  CHECK_THAT(orderDependence("ticket"), Catch::Contains("old value is read") && Catch::Contains("ticket"));
  CHECK_THAT(orderDependence("spin"), Catch::Contains("volatile"));
  CHECK_THAT(orderDependence("timed"), Catch::Contains("clock"));
  CHECK(orderDependence("oob").empty());
  // The tickets come out in the blocks' order, as on one thread.
  const Result one = launch("ticket", 1, 64, 32);
  const Result many = launch("ticket", 8, 64, 32);
  CHECK(many.memory == one.memory);
  uint32_t t[64];
  std::memcpy(t, one.memory[1].second.data() + 4 * 32 * 10, sizeof t);
  for (uint32_t i = 0; i < 64; ++i) CHECK(t[i] == 32 * 10 + i);
}

TEST_CASE("parallel blocks: the first failing block in one thread's order is the one reported", "[func]") {
  std::string want;
  try {
    launch("oob", 1, 64, 32);
  } catch (const Error& e) {
    want = e.what();
  }
  REQUIRE_THAT(want, Catch::Contains("kernel oob block (5,0,0)"));
  for (int rep = 0; rep < 3; ++rep) {
    std::string got;
    try {
      launch("oob", 8, 64, 32);
    } catch (const Error& e) {
      got = e.what();
    }
    CHECK(got == want);
  }
}

TEST_CASE("parallel blocks: workloads without races between blocks give one thread's results and counts on four", "[func]") {
  const config::GpuConfig base = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml");
  // Not bfs: its blocks read the flags other blocks of the launch set
  // (a race, docs/functional.md), so its counts may differ.
  for (const char* name : {"saxpy", "sgemm", "histogram", "nbody", "reduction", "fib", "cfd", "lt_hotspot",
                           "r2_mriq"}) {
    const workloads::Workload* w = workloads::find(name);
    if (w == nullptr) continue;
    INFO(name);
    std::vector<workloads::Check> checks;
    std::vector<rt::LaunchStats> totals;
    for (uint32_t threads : {1u, 4u}) {
      config::GpuConfig cfg = base;
      cfg.sim.threads = threads;
      rt::DeviceOptions o;
      o.gpu = &cfg;
      rt::Device dev(o);
      std::vector<std::filesystem::path> mods;
      for (const std::string& m : w->modules()) mods.push_back(std::string(RFSIM_SOURCE_DIR) + "/" + m);
      dev.loadModules(mods);
      checks.push_back(w->run(dev, workloads::Size::Small));
      totals.push_back(dev.totals());
    }
    CHECK(checks[0].passed);
    CHECK(checks[1].passed);
    CHECK(checks[1].detail == checks[0].detail);
    CHECK(sameCounts(totals[1], totals[0]));
  }
}
