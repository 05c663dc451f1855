// BlockStepper (func/stepper.h): an external scheduler stepping warps one
// instruction at a time, in any order, over several resident blocks, gives
// the same memory as Program::launch; StepInfo describes each step; machine
// instructions list the physical registers they read and write.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>

#include "backend/backend.h"
#include "func/memory.h"
#include "func/program.h"
#include "func/stepper.h"
#include "func_helpers.h"
#include "ptx/link.h"
#include "ptx/parser.h"
#include "workloads/workload.h"

using namespace rfsim;
using func::BlockStepper;
using func::StepInfo;
using func::WarpStatus;

namespace {

// A module compiled through the back end (as rt::Device does by default),
// with its own global memory; several modules are linked first (ptx/link.h).
struct Loaded {
  func::GlobalMemory mem;
  std::unique_ptr<func::Program> prog;
  explicit Loaded(const std::vector<std::filesystem::path>& files, bool machine = true) {
    ptx::Module m = ptx::parseAndLink(files);
    if (machine) m = backend::compileModule(m).machine;
    prog = std::make_unique<func::Program>(std::move(m), mem);
  }
  explicit Loaded(const std::filesystem::path& ptx, bool machine = true)
      : Loaded(std::vector<std::filesystem::path>{ptx}, machine) {}
};

template <class T>
std::vector<uint8_t> arg(T v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// One launch: its arguments, made in a fresh memory (allocation addresses
// are deterministic, so two memories get the same ones), and the buffers to compare.
struct Launch {
  std::string kernel;
  rt::Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  std::vector<std::vector<uint8_t>> args;
  std::vector<std::pair<uint64_t, size_t>> outputs;
};
using MakeLaunch = std::function<Launch(func::GlobalMemory&)>;

uint64_t buffer(func::GlobalMemory& mem, const std::vector<uint8_t>& bytes) {
  const uint64_t a = mem.allocate(bytes.size(), func::AllocKind::Malloc);
  mem.write(a, bytes.data(), bytes.size());
  return a;
}

template <class T, class F>
std::vector<uint8_t> bytesOf(size_t n, F gen) {
  std::vector<uint8_t> b(n * sizeof(T));
  for (size_t i = 0; i < n; ++i) {
    const T v = gen(i);
    std::memcpy(b.data() + i * sizeof(T), &v, sizeof(T));
  }
  return b;
}

std::vector<std::vector<uint8_t>> readOutputs(func::GlobalMemory& mem, const Launch& l) {
  std::vector<std::vector<uint8_t>> out;
  for (auto [a, n] : l.outputs) {
    out.emplace_back(n);
    mem.read(out.back().data(), a, n);
  }
  return out;
}

enum class Order { RoundRobin, Reverse, Random, Greedy };

// Every block of the launch resident at once, warps stepped in `order`
// until all finish; fails the test on a block that can make no progress.
rt::LaunchStats stepAll(func::Program& prog, const Launch& l, Order order) {
  const func::LaunchSetup setup = prog.setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
  rt::LaunchStats stats;
  std::vector<std::unique_ptr<BlockStepper>> blocks;
  for (uint32_t z = 0; z < l.grid.z; ++z)
    for (uint32_t y = 0; y < l.grid.y; ++y)
      for (uint32_t x = 0; x < l.grid.x; ++x)
        blocks.push_back(std::make_unique<BlockStepper>(prog, setup, stats, rt::Dim3{x, y, z}));
  std::vector<std::pair<size_t, uint32_t>> slots;
  for (size_t b = 0; b < blocks.size(); ++b)
    for (uint32_t w = 0; w < blocks[b]->numWarps(); ++w) slots.emplace_back(b, w);
  if (order == Order::Reverse) std::reverse(slots.begin(), slots.end());
  std::mt19937 rng(12345);
  StepInfo info;
  for (;;) {
    std::vector<size_t> ready;
    for (size_t i = 0; i < slots.size(); ++i)
      if (blocks[slots[i].first]->status(slots[i].second) == WarpStatus::Ready) ready.push_back(i);
    if (ready.empty()) break;
    switch (order) {
      case Order::RoundRobin: case Order::Reverse:
        for (size_t i : ready)
          if (blocks[slots[i].first]->status(slots[i].second) == WarpStatus::Ready)
            blocks[slots[i].first]->step(slots[i].second, info);
        break;
      case Order::Random: {
        const size_t i = ready[std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng)];
        blocks[slots[i].first]->step(slots[i].second, info);
        break;
      }
      case Order::Greedy: {  // the first ready warp until it stops (barrier or end)
        auto& b = *blocks[slots[ready[0]].first];
        const uint32_t w = slots[ready[0]].second;
        while (b.status(w) == WarpStatus::Ready) b.step(w, info);
        break;
      }
    }
  }
  for (auto& b : blocks) {
    std::string stuck;
    for (uint32_t w = 0; w < b->numWarps(); ++w)
      if (b->status(w) != WarpStatus::Done) stuck += b->describeWarp(w) + "; ";
    INFO(stuck);
    REQUIRE(b->done());
  }
  blocks.clear();
  return stats;
}

// A workload's PTX modules, as rfsim run loads them: its kernels' unit and
// the units it links.
std::vector<std::filesystem::path> modules(const std::string& workload) {
  const workloads::Workload* w = workloads::find(workload);
  if (!w) throw std::runtime_error("no workload " + workload);
  std::vector<std::filesystem::path> files;
  for (const std::string& m : w->modules()) files.push_back(std::filesystem::path(RFSIM_SOURCE_DIR) / m);
  return files;
}

struct Case {
  std::string name;
  std::vector<std::filesystem::path> ptx;
  MakeLaunch make;
};

std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back({"sgemm", modules("sgemm"), [](func::GlobalMemory& mem) {
                 const int n = 32;
                 Launch l{"sgemm_tiled", {2, 2, 1}, {16, 16, 1}, 0, {}, {}};
                 auto mat = [&](int seed) {
                   return buffer(mem, bytesOf<float>(n * n, [=](size_t i) { return float((i * 7 + seed) % 13) - 6; }));
                 };
                 const uint64_t a = mat(1), b = mat(2), c = mat(3);
                 l.args = {arg(n), arg(n), arg(n), arg(1.5f), arg(a), arg(b), arg(0.5f), arg(c)};
                 l.outputs = {{c, n * n * 4}};
                 return l;
               }});
  v.push_back({"reduction", modules("reduction"), [](func::GlobalMemory& mem) {
                 const uint32_t n = 1000;
                 Launch l{"reduce_sum", {4, 1, 1}, {128, 1, 1}, 128 * 4, {}, {}};
                 const uint64_t in = buffer(mem, bytesOf<float>(n, [](size_t i) { return float(i % 17) * 0.25f; }));
                 const uint64_t out = buffer(mem, std::vector<uint8_t>(16, 0));
                 l.args = {arg(in), arg(out), arg(n)};
                 l.outputs = {{out, 16}};
                 return l;
               }});
  v.push_back({"histogram", modules("histogram"), [](func::GlobalMemory& mem) {
                 const uint32_t n = 5000;
                 Launch l{"histogram256", {3, 1, 1}, {128, 1, 1}, 0, {}, {}};
                 const uint64_t data = buffer(mem, bytesOf<uint8_t>(n, [](size_t i) { return uint8_t(i * i * 31 + i); }));
                 const uint64_t bins = buffer(mem, std::vector<uint8_t>(256 * 4, 0));
                 l.args = {arg(data), arg(n), arg(bins)};
                 l.outputs = {{bins, 256 * 4}};
                 return l;
               }});
  v.push_back({"fib", modules("fib"), [](func::GlobalMemory& mem) {
                 const int count = 80;
                 Launch l{"fib_kernel", {2, 1, 1}, {64, 1, 1}, 0, {}, {}};
                 const uint64_t nn = buffer(mem, bytesOf<uint32_t>(count, [](size_t i) { return uint32_t(i % 12); }));
                 const uint64_t out = buffer(mem, std::vector<uint8_t>(count * 4, 0));
                 l.args = {arg(nn), arg(out), arg(count)};
                 l.outputs = {{out, count * 4}};
                 return l;
               }});
  v.push_back({"block_scan", modules("shfl_reduce"), [](func::GlobalMemory& mem) {
                 const int n = 300;
                 Launch l{"block_scan", {2, 1, 1}, {256, 1, 1}, 0, {}, {}};
                 const uint64_t in = buffer(mem, bytesOf<int>(n, [](size_t i) { return int(i % 9) - 3; }));
                 const uint64_t out = buffer(mem, std::vector<uint8_t>(n * 4, 0));
                 l.args = {arg(in), arg(out), arg(n)};
                 l.outputs = {{out, n * 4}};
                 return l;
               }});
  return v;
}

}  // namespace

TEST_CASE("stepping warps in any order gives launch()'s memory", "[stepper]") {
  for (const Case& c : cases()) {
    Loaded ref(c.ptx);
    const Launch lr = c.make(ref.mem);
    const rt::LaunchStats rs = ref.prog->launch(lr.kernel, lr.grid, lr.block, lr.args, lr.dynamic_shared);
    const auto want = readOutputs(ref.mem, lr);
    INFO(c.name);
    REQUIRE(std::any_of(want[0].begin(), want[0].end(), [](uint8_t b) { return b != 0; }));
    for (Order o : {Order::RoundRobin, Order::Reverse, Order::Random, Order::Greedy}) {
      INFO(c.name << ", order " << static_cast<int>(o));
      Loaded run(c.ptx);
      const Launch l = c.make(run.mem);
      REQUIRE(l.args == lr.args);  // the same addresses
      const rt::LaunchStats s = stepAll(*run.prog, l, o);
      CHECK(readOutputs(run.mem, l) == want);
      CHECK(s.warp_instrs == rs.warp_instrs);
      CHECK(s.thread_instrs == rs.thread_instrs);
      CHECK(s.warp_instrs_by_role == rs.warp_instrs_by_role);
    }
  }
}

namespace {

// 64 threads (two warps): a coalesced load, a shared store, a barrier, a
// divergent branch (lanes 0..4 of each warp skip the add), a store.
const std::string kProbe = test::ptxKernel("probe", ".param .u64 in, .param .u64 out", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  .shared .align 4 .b32 sh[65];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  mov.u64 %rd6, sh;
  add.s64 %rd7, %rd6, %rd3;
  st.shared.u32 [%rd7], %r2;
  bar.sync 0;
  and.b32 %r6, %r1, 31;
  setp.lt.u32 %p1, %r6, 5;
  @%p1 bra SKIP;
  ld.shared.u32 %r3, [%rd7+4];
  add.s32 %r2, %r2, %r3;
SKIP:
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r2;
  ret;
)");

struct Probe {
  Loaded p;
  uint64_t in = 0, out = 0;
  func::LaunchSetup setup;
  rt::LaunchStats stats;
  explicit Probe(bool machine = true) : p(test::writePtx(kProbe, "probe.ptx"), machine) {
    in = buffer(p.mem, bytesOf<uint32_t>(64, [](size_t i) { return uint32_t(i * 3); }));
    out = buffer(p.mem, std::vector<uint8_t>(64 * 4, 0));
    setup = p.prog->setupLaunch("probe", {1, 1, 1}, {64, 1, 1}, {arg(in), arg(out)});
  }
};

// Steps `w` until an instruction for which `pred` holds has executed.
template <class P>
StepInfo stepUntil(BlockStepper& b, uint32_t w, P pred) {
  StepInfo s;
  for (int guard = 0; guard < 1000; ++guard) {
    REQUIRE(b.status(w) == WarpStatus::Ready);
    b.step(w, s);
    if (pred(s)) return s;
  }
  FAIL("instruction not found");
  return s;
}

}  // namespace

TEST_CASE("StepInfo describes addresses, shared offsets, divergence and barriers", "[stepper]") {
  const bool machine = GENERATE(true, false);
  INFO((machine ? "machine program" : "virtual registers"));
  Probe pr(machine);
  BlockStepper b(*pr.p.prog, pr.setup, pr.stats, {0, 0, 0});
  REQUIRE(b.numWarps() == 2);
  REQUIRE(b.peek(0) != nullptr);
  CHECK(b.activeMask(0) == ~0u);

  for (uint32_t w = 0; w < 2; ++w) {
    const StepInfo ld = stepUntil(b, w, [](const StepInfo& s) {
      return s.is_mem && !s.mem.write && s.mem.space == ptx::Space::Global;
    });
    CHECK(ld.in->op == ptx::Op::Ld);
    CHECK(ld.mem.mask == ~0u);
    CHECK(ld.executed == ~0u);
    CHECK(ld.mem.bytes == 4);
    CHECK(ld.mem.elems == 1);
    for (uint32_t l = 0; l < 32; ++l) CHECK(ld.mem.addr[l] == pr.in + 4 * (32 * w + l));
    const StepInfo st = stepUntil(b, w, [](const StepInfo& s) { return s.is_mem && s.mem.write; });
    CHECK(st.mem.space == ptx::Space::Shared);
    CHECK_FALSE(st.mem.atomic);
    for (uint32_t l = 0; l < 32; ++l) CHECK(st.mem.addr[l] == 4 * (32 * w + l));
  }
  // Warp 0 reaches the barrier first and waits until warp 1 arrives.
  const StepInfo bar0 = stepUntil(b, 0, [](const StepInfo& s) { return s.in->op == ptx::Op::Bar; });
  CHECK(bar0.barrier);
  CHECK(b.status(0) == WarpStatus::AtBarrier);
  CHECK(b.peek(0) == nullptr);
  CHECK_THAT(b.describeWarp(0), Catch::Matchers::Contains("barrier 0"));
  CHECK(b.status(1) == WarpStatus::Ready);
  StepInfo bar1;
  b.step(1, bar1);
  CHECK(bar1.in->op == ptx::Op::Bar);
  CHECK_FALSE(bar1.barrier);  // the last to arrive: released at once
  CHECK(b.status(0) == WarpStatus::Ready);
  CHECK(b.status(1) == WarpStatus::Ready);

  const StepInfo bra = stepUntil(b, 0, [](const StepInfo& s) { return s.branch; });
  CHECK(bra.divergent);
  CHECK(bra.active == ~0u);
  CHECK(bra.executed == 0x1fu);
  CHECK(bra.simt_depth >= 2);
  CHECK(b.activeMask(0) != ~0u);

  StepInfo s;
  for (uint32_t w = 0; w < 2; ++w)
    while (b.status(w) == WarpStatus::Ready) {
      b.step(w, s);
      if (b.status(w) == WarpStatus::Done) CHECK(s.exited);
    }
  CHECK(b.done());
  std::vector<uint32_t> got(64);
  pr.p.mem.read(got.data(), pr.out, 64 * 4);
  for (uint32_t t = 0; t < 64; ++t) {
    const uint32_t want = (t % 32) < 5 ? 3 * t : 3 * t + (t < 63 ? 3 * (t + 1) : 0);
    CHECK(got[t] == want);
  }
  CHECK(pr.stats.warp_instrs > 0);
}

TEST_CASE("machine instructions list the registers they read and write", "[stepper]") {
  Probe pr(true);
  const auto& fns = pr.p.prog->functions();
  bool pair_read = false, pair_write = false;
  for (const func::DFunction& f : fns)
    for (const func::DInstr& d : f.code) {
      if (d.in == &f.implicit_ret) continue;
      auto has = [](const auto& list, uint8_t n, uint32_t id) {
        return std::find(list.begin(), list.begin() + n, id) != list.begin() + n;
      };
      for (uint8_t i = 0; i < d.nreads; ++i) CHECK(d.reads[i] != ptx::mach::kRZ);
      for (uint8_t i = 0; i < d.nwrites; ++i) CHECK(d.writes[i] != ptx::mach::kRZ);
      const ptx::Instr& in = *d.in;
      if (in.guard.kind == ptx::OperandKind::Reg) CHECK(has(d.reads, d.nreads, in.guard.regs[0]));
      for (unsigned k = 0; k < in.nsrc; ++k) {
        const ptx::Operand& o = in.src[k];
        if ((o.kind == ptx::OperandKind::Reg || o.kind == ptx::OperandKind::Addr) && o.regs[0] != ptx::kNoReg &&
            o.regs[0] != ptx::mach::kRZ) {
          CHECK(has(d.reads, d.nreads, o.regs[0]));
          if (o.mbits == 64) {
            CHECK(has(d.reads, d.nreads, o.regs[0] + 1));
            pair_read = true;
          }
        }
      }
      for (unsigned k = 0; k < in.ndst; ++k) {
        const ptx::Operand& o = in.dst[k];
        if (o.kind == ptx::OperandKind::Reg && o.regs[0] != ptx::mach::kRZ) {
          CHECK(has(d.writes, d.nwrites, o.regs[0]));
          if (o.mbits == 64) {
            CHECK(has(d.writes, d.nwrites, o.regs[0] + 1));
            pair_write = true;
          }
        }
      }
    }
  CHECK(pair_read);   // the 64-bit address of the global load
  CHECK(pair_write);  // mul.wide's 64-bit result
  // The global load reads both registers of its address pair.
  for (const func::DInstr& d : fns[0].code)
    if (d.in->op == ptx::Op::Ld && d.in->space == ptx::Space::Global) {
      REQUIRE(d.in->src[0].mbits == 64);
      CHECK(d.nreads >= 2);
      CHECK(d.nwrites == 1);
    }
  // Calls (fib: direct, recursive; virtual_dispatch: indirect) read their
  // register arguments and an indirect call's target pair, and write their results.
  bool indirect = false, direct = false;
  for (const char* w : {"fib", "virtual_dispatch"}) {
    Loaded l(modules(w));
    for (const func::DFunction& f : l.prog->functions())
      for (const func::DInstr& d : f.code) {
        if (d.cls != func::Cls::Call) continue;
        auto has = [](const auto& list, uint8_t n, uint32_t id) {
          return std::find(list.begin(), list.begin() + n, id) != list.begin() + n;
        };
        for (uint32_t r : d.call->machine_uses) CHECK((r == ptx::mach::kRZ || has(d.reads, d.nreads, r)));
        for (uint32_t r : d.call->machine_defs) CHECK((r == ptx::mach::kRZ || has(d.writes, d.nwrites, r)));
        if (d.call->indirect) {
          indirect = true;
          CHECK(has(d.reads, d.nreads, d.call->target_reg));
          CHECK(has(d.reads, d.nreads, d.call->target_reg + 1));
        } else {
          direct = direct || !d.call->machine_uses.empty();
        }
      }
  }
  CHECK(direct);
  CHECK(indirect);
  // PTX programs: no lists.
  Probe virt(false);
  for (const func::DInstr& d : virt.p.prog->functions()[0].code) CHECK(d.nreads + d.nwrites == 0);
}

TEST_CASE("blocks of one launch step independently", "[stepper]") {
  const Case c = cases()[1];  // reduction: shared memory and a barrier per step of the tree
  Loaded ref(c.ptx);
  const Launch lr = c.make(ref.mem);
  const rt::LaunchStats rs = ref.prog->launch(lr.kernel, lr.grid, lr.block, lr.args, lr.dynamic_shared);
  const auto want = readOutputs(ref.mem, lr);

  Loaded run(c.ptx);
  const Launch l = c.make(run.mem);
  const func::LaunchSetup setup = run.prog->setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
  rt::LaunchStats stats;
  std::vector<std::unique_ptr<BlockStepper>> bs;
  for (uint32_t x = 0; x < 4; ++x) bs.push_back(std::make_unique<BlockStepper>(*run.prog, setup, stats, rt::Dim3{x, 0, 0}));
  // Block 0's warp 0 waits at the first barrier while blocks 3, 2, 1 run to completion.
  StepInfo s;
  while (bs[0]->status(0) == WarpStatus::Ready) bs[0]->step(0, s);
  CHECK(bs[0]->status(0) == WarpStatus::AtBarrier);
  for (int x = 3; x >= 1; --x) {
    for (bool any = true; any;) {
      any = false;
      for (uint32_t w = 0; w < bs[x]->numWarps(); ++w)
        if (bs[x]->status(w) == WarpStatus::Ready) {
          bs[x]->step(w, s);
          any = true;
        }
    }
    CHECK(bs[x]->done());
    CHECK(bs[0]->status(0) == WarpStatus::AtBarrier);  // other blocks' barriers are not block 0's
  }
  CHECK(stats.warp_instrs == rs.warp_instrs / 4 * 3);  // the finished blocks' counts (equal blocks)
  for (bool any = true; any;) {
    any = false;
    for (uint32_t w = bs[0]->numWarps(); w-- > 0;)
      if (bs[0]->status(w) == WarpStatus::Ready) {
        bs[0]->step(w, s);
        any = true;
      }
  }
  CHECK(bs[0]->done());
  CHECK(bs[0]->ctaid().x == 0);
  CHECK(bs[3]->ctaid().x == 3);
  CHECK(readOutputs(run.mem, l) == want);
  CHECK(stats.warp_instrs == rs.warp_instrs);
}
