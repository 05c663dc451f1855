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

// A chain through the blocks: block b reads idx[b], which block b-1 sets,
// reads data at that index (far out of bounds while idx[b] still holds its
// start value) and loops as long as the value says.
.visible .entry relay(.param .u64 idx, .param .u64 data, .param .u64 out, .param .u32 nb)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [idx];
  ld.param.u64 %rd2, [data];
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r10, [nb];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r3, [%rd5];
  mul.wide.u32 %rd6, %r3, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r4, [%rd7];
  and.b32 %r5, %r4, 7;
  mov.u32 %r6, %r2;
  mov.u32 %r7, 0;
LOOP:
  setp.ge.u32 %p1, %r7, %r5;
  @%p1 bra DONE;
  mad.lo.u32 %r6, %r6, 3, %r7;
  add.u32 %r7, %r7, 1;
  bra LOOP;
DONE:
  mov.u32 %r11, %ntid.x;
  mad.lo.s32 %r12, %r1, %r11, %r2;
  mul.wide.u32 %rd8, %r12, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.global.u32 [%rd9], %r6;
  add.u32 %r13, %r4, %r1;
  rem.u32 %r14, %r13, %r10;
  st.global.u32 [%rd5+4], %r14;
  ret;
}

// Floating-point reductions from every thread onto a few words: their bits
// depend on the order of the additions.
.visible .entry fsum(.param .u64 acc)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .f64 %fd<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [acc];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r1, %r3, %r2;
  add.u32 %r4, %r4, 1;
  cvt.rn.f32.u32 %f1, %r4;
  rcp.rn.f32 %f2, %f1;
  red.global.add.f32 [%rd1], %f2;
  mul.f32 %f3, %f1, 0f3DCCCCCD;
  and.b32 %r5, %r1, 3;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  red.global.add.f32 [%rd3+4], %f3;
  cvt.f64.f32 %fd1, %f2;
  red.global.add.f64 [%rd1+24], %fd1;
  ret;
}

// Like bfs: each block reads (volatile) the flag of the block before it,
// which that block sets in the same launch, and sets its own; stores a word
// per thread (generic) and reads a neighbour's after a barrier; stores a
// float word of its own and then reduces into it; adds to a word every block
// adds to; and loops as long as the flag says.
.visible .entry mix(.param .u64 flags, .param .u64 acc, .param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [flags];
  ld.param.u64 %rd2, [acc];
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r1, %r3, %r2;
  sub.u32 %r5, %r1, 1;
  min.u32 %r5, %r5, %r1;
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.volatile.global.u32 %r6, [%rd5];
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd1, %rd6;
  add.u32 %r7, %r6, %r1;
  add.u32 %r7, %r7, 1;
  st.global.u32 [%rd7], %r7;
  mul.lo.u32 %r8, %r6, %r2;
  mul.wide.u32 %rd8, %r4, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.u32 [%rd9], %r8;
  bar.sync 0;
  xor.b32 %r9, %r4, 1;
  mul.wide.u32 %rd10, %r9, 4;
  add.s64 %rd11, %rd3, %rd10;
  ld.u32 %r10, [%rd11];
  add.s64 %rd12, %rd2, %rd6;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 st.global.f32 [%rd12+16], 0f3F800000;
  bar.sync 0;
  cvt.rn.f32.u32 %f1, %r10;
  mul.f32 %f2, %f1, 0f3DCCCCCD;
  red.global.add.f32 [%rd12+16], %f2;
  red.global.add.f32 [%rd2], %f2;
  and.b32 %r11, %r6, 7;
  mov.u32 %r12, 0;
L:
  setp.ge.u32 %p2, %r12, %r11;
  @%p2 bra E;
  add.u32 %r12, %r12, 1;
  bra L;
E:
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

// `max_warp_instrs`: sim.max_instructions; when the launch stops there, its
// message goes to `*stopped` and the memory it left is still returned.
Result launch(const std::string& kernel, unsigned threads, uint32_t blocks, uint32_t block_threads,
              uint64_t max_warp_instrs = UINT64_MAX, std::string* stopped = nullptr) {
  func::GlobalMemory mem;
  func::Limits lim;
  lim.threads = threads;
  lim.max_warp_instrs = max_warp_instrs;
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
  try {
    r.stats = prog.launch(kernel, {blocks, 1, 1}, {block_threads, 1, 1}, args);
  } catch (const Error& e) {
    if (stopped == nullptr) throw;
    *stopped = e.what();
  }
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
         a.thread_instrs_by_role == b.thread_instrs_by_role && a.blocks == b.blocks && a.warps == b.warps &&
         a.threads == b.threads && a.cycles == b.cycles && a.launches == b.launches;
}

// One launch of the chain, float and mixed kernels from fresh memory.
Result launchRacing(const std::string& kernel, unsigned threads, uint32_t blocks, uint32_t block_threads) {
  func::GlobalMemory mem;
  func::Limits lim;
  lim.threads = threads;
  func::Program prog(ptx::parseString(kPtx, "race.ptx"), mem, lim);
  const uint32_t n = blocks * block_threads;
  std::vector<std::vector<uint8_t>> args;
  if (kernel == "relay") {
    const uint64_t idx = mem.allocate((blocks + 1) * 4ull, func::AllocKind::Malloc);
    const uint64_t data = mem.allocate(blocks * 4ull, func::AllocKind::Malloc);
    const uint64_t out = mem.allocate(n * 4ull, func::AllocKind::Malloc);
    mem.fill(idx, 0xff, (blocks + 1) * 4ull);  // unset: an index far out of bounds
    mem.fill(idx, 0, 4);
    std::vector<uint32_t> d(blocks);
    for (uint32_t i = 0; i < blocks; ++i) d[i] = i * 2654435761u;
    mem.write(data, d.data(), blocks * 4ull);
    std::vector<uint8_t> nb(4);
    std::memcpy(nb.data(), &blocks, 4);
    args = {arg(idx), arg(data), arg(out), nb};
  } else if (kernel == "fsum") {
    const uint64_t acc = mem.allocate(32, func::AllocKind::Malloc);
    mem.fill(acc, 0, 32);
    args = {arg(acc)};
  } else {
    const uint64_t flags = mem.allocate(blocks * 4ull, func::AllocKind::Malloc);
    const uint64_t acc = mem.allocate(16 + blocks * 4ull, func::AllocKind::Malloc);
    const uint64_t out = mem.allocate(n * 4ull, func::AllocKind::Malloc);
    mem.fill(flags, 0, blocks * 4ull);
    mem.fill(acc, 0, 16 + blocks * 4ull);
    args = {arg(flags), arg(acc), arg(out)};
  }
  Result r;
  r.stats = prog.launch(kernel, {blocks, 1, 1}, {block_threads, 1, 1}, args);
  r.memory = mem.snapshot();
  return r;
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
  CHECK(orderDependence("spin").empty());  // a volatile load is logged like any other
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

TEST_CASE("parallel blocks: blocks that read what earlier blocks of the launch write give one thread's results",
          "[func]") {
  for (const char* kernel : {"relay", "fsum", "mix"}) {
    INFO(kernel);
    REQUIRE(orderDependence(kernel).empty());
    const Result one = launchRacing(kernel, 1, 256, 64);
    CHECK(one.stats.parallel_launches == 0);
    uint64_t reexecuted = 0;
    for (unsigned threads : {2u, 4u}) {
      for (int rep = 0; rep < 3; ++rep) {
        INFO(threads << " threads, run " << rep);
        const Result many = launchRacing(kernel, threads, 256, 64);
        CHECK(many.memory == one.memory);
        CHECK(sameCounts(many.stats, one.stats));
        CHECK(many.stats.parallel_launches == 1);
        reexecuted += many.stats.reexecuted_blocks;
      }
    }
    // The float sums meet no read: no block runs twice.
    if (std::string(kernel) == "fsum") CHECK(reexecuted == 0);
  }
  // The chain's values: each block passed on (data[idx[b]] + b) % 256.
  const Result one = launchRacing("relay", 1, 256, 64);
  std::vector<uint32_t> idx(257);
  std::memcpy(idx.data(), one.memory[0].second.data(), idx.size() * 4);
  for (uint32_t b = 0; b < 256; ++b) CHECK(idx[b + 1] == (idx[b] * 2654435761u + b) % 256);
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

TEST_CASE("parallel blocks: a launch stopped at sim.max_instructions stops where one thread stops", "[func]") {
  // 512 blocks of 2 warps; the limit falls inside a block about a third of
  // the way through, and at the last instruction of the launch.
  const Result whole = launch("race", 1, 512, 64);
  const uint64_t total = whole.stats.warp_instrs;
  REQUIRE(total > 3000);
  for (const uint64_t limit : {total / 3 + 1, total - 1}) {
    INFO("limit " << limit << " of " << total);
    std::string want;
    const Result one = launch("race", 1, 512, 64, limit, &want);
    REQUIRE_THAT(want, Catch::Contains("sim.max_instructions"));
    for (const unsigned threads : {2u, 8u}) {
      INFO(threads << " threads");
      std::string got;
      const Result many = launch("race", threads, 512, 64, limit, &got);
      CHECK(got == want);
      CHECK(many.memory == one.memory);  // the blocks before the stop, and none after it
    }
  }
  // At the launch's own count it is not stopped, on any number of threads.
  std::string none;
  const Result exact = launch("race", 8, 512, 64, total, &none);
  CHECK(none.empty());
  CHECK(exact.memory == whole.memory);
}

TEST_CASE("parallel blocks: workloads give one thread's results and counts on four", "[func]") {
  const config::GpuConfig base = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml");
  // bfs: its blocks read the flags other blocks of the launch set.
  for (const char* name : {"bfs", "saxpy", "sgemm", "histogram", "nbody", "reduction", "fib", "cfd", "lt_hotspot",
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
