// Extension points (b) register-file level and bank latency, (c) register
// allocation, (d) issue gate, (e) warp launch hook / roles, (g) events, (h)
// scheduler activation, (i) traps of the SM (sm/core/hooks.h): each changes
// timing as intended
// without changing the output, and the baseline objects installed explicitly
// give the cycles and statistics of a run without them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <map>
#include <set>
#include <tuple>

#include "config/gpu_config.h"
#include "func/decode.h"
#include "runtime/runtime.h"
#include "workloads/workload.h"
#include "sm/core/hooks.h"
#include "gpu/gpu_top.h"
#include "gpu/kernel_runner.h"
#include "mem/tlm/hierarchy.h"
#include "sm_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

// saxpy, 4 blocks of 8 warps: several blocks resident at once by default.
Launch saxpy(func::GlobalMemory& mem) {
  const int n = 4096;
  Launch l{"saxpy", {4, 1, 1}, {256, 1, 1}, 0, {}, {}};
  const uint64_t x = buffer(mem, bytesOf<float>(n, [](size_t i) { return float(i % 29) * 0.5f; }));
  const uint64_t y = buffer(mem, bytesOf<float>(n, [](size_t i) { return float(i % 7) - 3; }));
  l.args = {arg(n), arg(2.5f), arg(x), arg(y)};
  l.outputs = {{y, n * 4}};
  return l;
}

struct Run {
  gpu::KernelRunResult r;
  nlohmann::json stats;
  std::vector<std::vector<uint8_t>> out;
  std::map<uint32_t, uint32_t> banks;  // slot -> bank of R5 after the run (last base of the slot)
};

Run run(const std::function<void(sm::Sm&)>& install = {}, const config::GpuConfig& cfg = config::GpuConfig{}) {
  Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
  const Launch l = saxpy(ld.mem);
  const func::LaunchSetup setup = ld.prog->setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
  rt::LaunchStats ls;
  stats::Group root(nullptr, "root");
  Run t;
  {
    // One SM (the hooks are the SM's), from an empty memory hierarchy (the
    // runner's own simulation).
    gpu::KernelRunner kr(cfg, *ld.prog, setup, ls, ld.tree_regs, &root, {gpu::KernelRunner::Mode::Loop, 1});
    if (install) install(kr.sm());
    t.r = kr.run();
    kr.sm().syncStats();
    t.stats = stats::toFlatJson(root);
    for (uint32_t s = 0; s < 32; ++s) t.banks[s] = kr.sm().bankOf(s, 5);
  }
  t.out = readOutputs(ld.mem, l);
  return t;
}

uint64_t stat(const Run& t, const std::string& k) { return t.stats.at("root.sm0." + test::smStat(k)).get<uint64_t>(); }

// Lets one block hold registers at a time.
class OneBlockAllocator final : public sm::WarpRegAllocator {
 public:
  bool canLaunch(uint32_t, uint32_t) override { return live_ == 0; }
  bool allocate(uint32_t, uint32_t slot, uint32_t, uint32_t rpt, uint32_t& base) override {
    ++live_;
    ++allocs;
    base = slot * rpt;
    return true;
  }
  void release(uint32_t) override {
    --live_;
    ++releases;
  }
  uint32_t allocs = 0, releases = 0;

 private:
  uint32_t live_ = 0;
};

// Shifts every warp's region by `shift` rows and keeps its own base table,
// which its translator reads (a CARS-like pair).
class ShiftedAllocator final : public sm::WarpRegAllocator {
 public:
  explicit ShiftedAllocator(uint32_t shift) : shift_(shift) {}
  bool canLaunch(uint32_t, uint32_t) override { return true; }
  bool allocate(uint32_t, uint32_t slot, uint32_t, uint32_t rpt, uint32_t& base) override {
    base = slot * rpt + shift_;
    bases[slot] = base;
    return true;
  }
  void release(uint32_t) override {}
  std::map<uint32_t, uint32_t> bases;

 private:
  uint32_t shift_;
};
class TableTranslator final : public sm::RegTranslator {
 public:
  explicit TableTranslator(const ShiftedAllocator& a) : a_(a) {}
  uint32_t translate(uint32_t warp, uint32_t reg) override {
    ++calls;
    auto it = a_.bases.find(warp);
    return (it == a_.bases.end() ? 0 : it->second) + reg;
  }
  uint64_t calls = 0;

 private:
  const ShiftedAllocator& a_;
};

// Refuses warp slot 0 before cycle `until`.
class HoldWarp0 final : public sm::IssueGate {
 public:
  explicit HoldWarp0(uint64_t until) : until_(until) {}
  bool mayIssue(uint32_t slot, const func::DInstr&, uint64_t now) override {
    if (slot == 0 && now < until_) {
      ++refused;
      return false;
    }
    return true;
  }
  void issued(uint32_t slot, const func::DInstr&, const func::StepInfo&, uint64_t now) override {
    if (slot == 0 && first_issue_0 == UINT64_MAX) first_issue_0 = now;
    ++issued_count;
  }
  uint64_t refused = 0, issued_count = 0, first_issue_0 = UINT64_MAX;

 private:
  uint64_t until_;
};

class RecordingLaunchHook final : public sm::WarpLaunchHook {
 public:
  uint32_t onWarpLaunch(uint32_t slot, rt::Dim3 c, uint32_t local) override {
    seen.push_back({c.x, c.y, c.z, local});
    slots.insert(slot);
    return local % 2;  // two roles
  }
  void onWarpExit(uint32_t) override { ++exits; }
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> seen;
  std::set<uint32_t> slots;
  uint32_t exits = 0;
};

// Traps every warp before its first instruction: spills R2, R3 and fills
// them back (extension point (i)).
class TrapAtStart final : public sm::IssueGate, public sm::TrapListener {
 public:
  sm::Sm* sm = nullptr;
  bool mayIssue(uint32_t slot, const func::DInstr&, uint64_t) override {
    if (trapped.count(slot)) return true;
    trapped.insert(slot);
    sm->trap(slot, {{true, 2, 0x40000, 0}, {true, 3, 0x40004, 1}, {false, 2, 0x40000, 2}, {false, 3, 0x40004, 3}},
             this);
    return false;
  }
  void issued(uint32_t slot, const func::DInstr&, const func::StepInfo&, uint64_t) override {
    if (!done.count(slot)) ++issued_before_done;
  }
  void trapOpDone(uint32_t, const sm::TrapOp& op, uint64_t) override {
    ++ops_done;
    cookies += op.cookie;
  }
  void trapDone(uint32_t slot, uint64_t) override { done.insert(slot); }
  std::set<uint32_t> trapped, done;
  uint64_t ops_done = 0, cookies = 0, issued_before_done = 0;
};

// Holds each warp entering the active pool `hold` cycles (extension point (h)).
class HoldOnActivation final : public sm::ActivationHook {
 public:
  explicit HoldOnActivation(uint64_t hold) : hold_(hold) {}
  uint64_t onActivate(uint32_t, uint64_t now) override {
    ++activations;
    return now + hold_;
  }
  void onDeactivate(uint32_t, uint64_t) override { ++deactivations; }
  uint64_t activations = 0, deactivations = 0;

 private:
  uint64_t hold_;
};

config::GpuConfig twoLevel() {
  config::GpuConfig c;
  c.sm.scheduler = config::SchedulerPolicy::TwoLevel;
  c.sm.active_warps = 8;
  return c;
}

}  // namespace

TEST_CASE("a trap's spills and fills are real memory operations of the warp", "[sm][hooks][trap]") {
  const Run plain = run();
  TrapAtStart g;
  const Run trapped = run([&](sm::Sm& s) {
    g.sm = &s;
    sm::SmHooks h;
    h.gates = {&g};
    s.install(h);
  });
  INFO("default " << plain.r.cycles << " cycles, trapped " << trapped.r.cycles);
  CHECK(trapped.out == plain.out);
  const uint64_t warps = 4 * 8;
  CHECK(g.trapped.size() == warps);
  CHECK(g.done.size() == warps);
  CHECK(g.issued_before_done == 0);  // a warp goes on only when its trap completed
  CHECK(g.ops_done == 4 * warps);
  CHECK(g.cookies == (0 + 1 + 2 + 3) * warps);
  CHECK(stat(trapped, "trap_ops") == 4 * warps);
  CHECK(stat(trapped, "trap_stores") == 2 * warps);
  CHECK(stat(trapped, "trap_loads") == 2 * warps);
  CHECK(stat(trapped, "mem_accesses") == stat(plain, "mem_accesses") + 4 * warps);
  CHECK(stat(trapped, "trap_wait_cycles") > 0);
  // Program instructions are not trap operations.
  CHECK(trapped.r.warp_instrs == plain.r.warp_instrs);
  CHECK(trapped.r.cycles > plain.r.cycles);
  // The spills read R2 and R3 through the banks; the fills write them.
  uint64_t reads = 0, reads0 = 0, writes = 0, writes0 = 0;
  for (const auto& [k, v] : trapped.stats.at("root.sm0.opcoll.rf_reads").items()) reads += v.get<uint64_t>();
  for (const auto& [k, v] : plain.stats.at("root.sm0.opcoll.rf_reads").items()) reads0 += v.get<uint64_t>();
  for (const auto& [k, v] : trapped.stats.at("root.sm0.opcoll.rf_writes").items()) writes += v.get<uint64_t>();
  for (const auto& [k, v] : plain.stats.at("root.sm0.opcoll.rf_writes").items()) writes0 += v.get<uint64_t>();
  CHECK(reads == reads0 + 2 * warps);
  CHECK(writes == writes0 + 2 * warps);
}

TEST_CASE("scheduler activation: a hook that holds nothing changes nothing, a hold delays", "[sm][hooks][activation]") {
  const Run plain = run({}, twoLevel());
  HoldOnActivation none(0);
  const Run quiet = run(
      [&](sm::Sm& s) {
        sm::SmHooks hk;
        hk.activation = &none;
        s.install(hk);
      },
      twoLevel());
  CHECK(quiet.r.cycles == plain.r.cycles);
  CHECK(quiet.stats == plain.stats);
  CHECK(none.activations > 0);
  CHECK(none.activations == stat(plain, "activations"));
  CHECK(none.deactivations == stat(plain, "deactivations"));
  // Every warp leaves the pool in the end (demoted or exited).
  CHECK(stat(plain, "activations") == stat(plain, "deactivations"));
  HoldOnActivation h(40);
  const Run held = run(
      [&](sm::Sm& s) {
        sm::SmHooks hk;
        hk.activation = &h;
        s.install(hk);
      },
      twoLevel());
  INFO("two-level " << plain.r.cycles << " cycles, held 40 per activation " << held.r.cycles);
  CHECK(held.out == plain.out);
  CHECK(held.r.cycles > plain.r.cycles);
  CHECK(h.activations == stat(held, "activations"));
  CHECK(h.deactivations == h.activations);
}

TEST_CASE("a slower main register file (regfile.bank_latency) delays every operand", "[sm][hooks][rflevel]") {
  const Run plain = run();
  config::GpuConfig slow;
  slow.regfile.bank_latency = 4;
  const Run s = run({}, slow);
  INFO("bank latency 1: " << plain.r.cycles << " cycles, 4: " << s.r.cycles);
  CHECK(s.out == plain.out);
  CHECK(s.r.cycles > plain.r.cycles);
  CHECK(s.r.warp_instrs == plain.r.warp_instrs);
}

TEST_CASE("baseline hook objects installed explicitly change nothing", "[sm][hooks]") {
  const Run plain = run();
  sm::BaselineRegAllocator a;
  sm::OpenIssueGate g;
  sm::NoRoleLaunchHook h;
  const Run base = run([&](sm::Sm& s) {
    sm::SmHooks hk;
    hk.allocator = &a;
    hk.gates = {&g};
    hk.launch = &h;
    s.install(hk);
  });
  CHECK(base.r.cycles == plain.r.cycles);
  CHECK(base.r.warp_instrs == plain.r.warp_instrs);
  // Every statistic but the ticks, the host's work: a gate installed keeps
  // the SM from skipping cycles it cannot prove idle.
  nlohmann::json bs = base.stats, ps = plain.stats;
  for (nlohmann::json* j : {&bs, &ps})
    for (auto it = j->begin(); it != j->end();) {
      const std::string& k = it.key();
      it = k.size() > 6 && k.compare(k.size() - 6, 6, ".ticks") == 0 ? j->erase(it) : std::next(it);
    }
  CHECK(bs == ps);
  CHECK(base.out == plain.out);
  CHECK(stat(plain, "gate_stalls") == 0);
}

TEST_CASE("hook bundles: a second one-per-SM hook is refused, gates chain, stage delays add", "[sm][hooks]") {
  const Run plain = run();
  OneBlockAllocator a1, a2;
  RecordingLaunchHook l1, l2;
  HoldOnActivation h1(0), h2(0);
  const Run once = run([&](sm::Sm& s) {
    sm::SmHooks first;
    first.allocator = &a1;
    first.launch = &l1;
    first.activation = &h1;
    s.install(first);
    s.install(first);  // the same hooks again: nothing changes
    sm::SmHooks alloc, launch, act;
    alloc.allocator = &a2;
    launch.launch = &l2;
    act.activation = &h2;
    CHECK_THROWS_WITH(s.install(alloc), Catch::Contains("warp register allocator is already installed"));
    CHECK_THROWS_WITH(s.install(launch), Catch::Contains("warp launch hook is already installed"));
    CHECK_THROWS_WITH(s.install(act), Catch::Contains("activation hook is already installed"));
  });
  CHECK(once.out == plain.out);
  CHECK(a1.allocs == 4 * 8);
  CHECK(a2.allocs == 0);
  CHECK(l2.seen.empty());

  // Two mechanisms' gates: a warp issues when both agree, each hears of
  // what it flagged.
  HoldWarp0 alone(plain.r.cycles), g1(plain.r.cycles);
  sm::OpenIssueGate g2;
  const Run one = run([&](sm::Sm& s) {
    sm::SmHooks h;
    h.gates = {&alone};
    s.install(h);
  });
  const Run two = run([&](sm::Sm& s) {
    sm::SmHooks h, k;
    h.gates = {&g1};
    k.gates = {&g2};
    s.install(h);
    s.install(k);
  });
  CHECK(two.r.cycles == one.r.cycles);
  CHECK(two.stats == one.stats);
  CHECK(g1.refused == alone.refused);

  // Extra stages add up: 1 + 2 cycles as 3 in one bundle.
  const Run split = run([&](sm::Sm& s) {
    sm::SmHooks h, k;
    h.stage_delay = 1;
    k.stage_delay = 2;
    s.install(h);
    s.install(k);
  });
  const Run whole = run([&](sm::Sm& s) {
    sm::SmHooks h;
    h.stage_delay = 3;
    s.install(h);
  });
  CHECK(split.r.cycles == whole.r.cycles);
  CHECK(split.r.cycles > plain.r.cycles);
  CHECK(split.out == plain.out);
}

TEST_CASE("an allocator that admits one block at a time delays the others", "[sm][hooks]") {
  const Run plain = run();
  OneBlockAllocator a;
  const Run one = run([&](sm::Sm& s) {
    sm::SmHooks h;
    h.allocator = &a;
    s.install(h);
  });
  INFO("default " << plain.r.cycles << " cycles, one block at a time " << one.r.cycles);
  CHECK(one.r.cycles > plain.r.cycles);
  CHECK(one.out == plain.out);
  CHECK(one.r.warp_instrs == plain.r.warp_instrs);
  CHECK(a.allocs == 4 * 8);
  CHECK(a.releases == 4 * 8);
  CHECK(stat(one, "blocks_launched") == 4);
}

TEST_CASE("an allocator and translator pair moves the warps' bases and banks", "[sm][hooks]") {
  // Banks by translated row.
  const auto install = [](sm::Sm& s, sm::SmHooks h = {}) {
    h.bank_index = sm::BankIndex::kTranslated;
    s.install(h);
  };
  const Run plain = run([&](sm::Sm& s) { install(s); });
  ShiftedAllocator a(1);
  TableTranslator t(a);
  const Run moved = run([&](sm::Sm& s) {
    sm::SmHooks h;
    h.allocator = &a;
    h.translator = &t;
    install(s, h);
  });
  CHECK(moved.out == plain.out);
  CHECK(t.calls > 0);
  REQUIRE(!a.bases.empty());
  for (const auto& [slot, base] : a.bases) {
    INFO("slot " << slot);
    CHECK(moved.banks.at(slot) != plain.banks.at(slot));
  }
  // The allocator alone, through the baseline translator, moves them too.
  ShiftedAllocator a2(1);
  const Run moved2 = run([&](sm::Sm& s) {
    sm::SmHooks h;
    h.allocator = &a2;
    install(s, h);
  });
  for (const auto& [slot, base] : a2.bases) CHECK(moved2.banks.at(slot) == moved.banks.at(slot));
  CHECK(moved2.out == plain.out);
}

TEST_CASE("an issue gate holding warp 0 delays it and counts the stall", "[sm][hooks]") {
  const Run plain = run();
  const uint64_t hold = plain.r.cycles;  // beyond the whole default run
  HoldWarp0 g(hold);
  const Run held = run([&](sm::Sm& s) {
    sm::SmHooks h;
    h.gates = {&g};
    s.install(h);
  });
  INFO("default " << plain.r.cycles << " cycles, held " << held.r.cycles);
  CHECK(held.out == plain.out);
  CHECK(held.r.cycles > hold);
  CHECK(g.first_issue_0 >= hold);
  CHECK(g.refused > 0);
  CHECK(stat(held, "gate_stalls") == g.refused);
  CHECK(g.issued_count == held.r.warp_instrs);
  // Scheduler 0 reports the gate's reason (Scoreboard) while only warp 0 is left.
  const uint64_t sb = held.stats.at("root.sm0.issue.stall_cycles").at("s0.scoreboard").get<uint64_t>();
  const uint64_t sb0 = plain.stats.at("root.sm0.issue.stall_cycles").at("s0.scoreboard").get<uint64_t>();
  CHECK(sb > sb0);
}

// Flags every instruction (to hear of each at issue) but may hold only
// branches (IssueGate::mayRefuse); refuses nothing.
class BranchesOnly final : public sm::IssueGate {
 public:
  bool mayRefuse(const func::DInstr& d) const override { return d.in->op == ptx::Op::Bra; }
  bool mayIssue(uint32_t, const func::DInstr& d, uint64_t) override {
    ++asked;
    if (d.in->op != ptx::Op::Bra) ++asked_other;
    return true;
  }
  void issued(uint32_t, const func::DInstr&, const func::StepInfo&, uint64_t) override { ++issued_count; }
  uint64_t asked = 0, asked_other = 0, issued_count = 0;
};

TEST_CASE("an issue gate is asked only about the flagged instructions it may refuse", "[sm][hooks]") {
  const Run plain = run();
  BranchesOnly g;
  const Run gated = run([&](sm::Sm& s) {
    sm::SmHooks h;
    h.gates = {&g};
    s.install(h);
  });
  CHECK(gated.r.cycles == plain.r.cycles);
  CHECK(gated.out == plain.out);
  CHECK(g.asked > 0);           // the kernel branches
  CHECK(g.asked_other == 0);    // nothing else was asked about
  CHECK(g.issued_count == gated.r.warp_instrs);  // but every instruction was heard of
}

TEST_CASE("the warp launch hook sees every warp of every block once and tags roles", "[sm][hooks]") {
  RecordingLaunchHook h;
  const Run plain = run();
  const Run tagged = run([&](sm::Sm& s) {
    sm::SmHooks hk;
    hk.launch = &h;
    s.install(hk);
  });
  CHECK(tagged.r.cycles == plain.r.cycles);
  CHECK(tagged.out == plain.out);
  REQUIRE(h.seen.size() == 4 * 8);
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> uniq(h.seen.begin(), h.seen.end());
  CHECK(uniq.size() == 4 * 8);
  for (uint32_t b = 0; b < 4; ++b)
    for (uint32_t w = 0; w < 8; ++w) CHECK(uniq.count({b, 0, 0, w}) == 1);
  CHECK(h.exits == 4 * 8);
  const auto& roles = tagged.stats.at("root.sm0.warp_instrs_by_role");
  INFO(roles.dump());
  uint64_t r0 = 0, r1 = 0, rest = 0;
  if (roles.is_array()) {
    r0 = roles.at(0).get<uint64_t>();
    r1 = roles.at(1).get<uint64_t>();
    for (size_t i = 2; i < roles.size(); ++i) rest += roles.at(i).get<uint64_t>();
  } else {
    r0 = roles.at("0").get<uint64_t>();
    r1 = roles.at("1").get<uint64_t>();
    for (auto it = roles.begin(); it != roles.end(); ++it)
      if (it.key() != "0" && it.key() != "1") rest += it.value().get<uint64_t>();
  }
  CHECK(r0 > 0);
  CHECK(r1 > 0);
  CHECK(rest == 0);
  CHECK(r0 + r1 == tagged.r.warp_instrs);
}

namespace {

// Starts the odd warps of every block at the kernel's final `ret` (label
// $L__BB0_3 of saxpy): they do none of the work.
class SkipOddWarps final : public sm::WarpLaunchHook {
 public:
  uint32_t onWarpLaunch(uint32_t, rt::Dim3, uint32_t local) override { return local % 2; }
  uint32_t startPc(uint32_t, const func::BlockStepper& block, uint32_t local) override {
    return local % 2 ? block.pcOfLabel("$L__BB0_3") : sm::kEntryPc;
  }
};

}  // namespace

TEST_CASE("a launch hook starts warps at their own pc", "[sm][hooks]") {
  const Run plain = run();
  SkipOddWarps h;
  const Run skip = run([&](sm::Sm& s) {
    sm::SmHooks hk;
    hk.launch = &h;
    s.install(hk);
  });
  CHECK(skip.r.warp_instrs < plain.r.warp_instrs);
  REQUIRE(skip.out.size() == 1);
  std::vector<float> y(4096), y_plain(4096);
  std::memcpy(y.data(), skip.out[0].data(), y.size() * 4);
  std::memcpy(y_plain.data(), plain.out[0].data(), y.size() * 4);
  for (size_t i = 0; i < y.size(); ++i) {
    const uint32_t local_warp = (i % 1024) % 256 / 32;  // 4 blocks of 256 threads, grid stride 1024
    const float y0 = float(i % 7) - 3;
    INFO("element " << i);
    if (local_warp % 2)
      REQUIRE(y[i] == y0);  // that warp started at the ret
    else
      REQUIRE(y[i] == y_plain[i]);
  }
  // Odd warps (role 1) issue one instruction each: the ret.
  CHECK(skip.stats.at("root.sm0.warp_instrs_by_role").at(1).get<uint64_t>() == 4 * 4);
}

namespace {

// Extension point (g): counts the events and checks that each warp's call
// depth moves as the events say.
struct EventCounter final : sm::SmEventHook {
  uint64_t calls = 0, returns = 0, released = 0, blocks = 0, bad_depth = 0, max_depth = 0;
  std::map<uint32_t, uint32_t> depth;  // per warp slot: frames as the events tell it
  void onCall(uint32_t w, const func::DInstr& d, uint32_t callee, uint32_t dep, uint64_t) override {
    ++calls;
    if (d.cls != func::Cls::Call || callee == UINT32_MAX) ++bad_depth;
    const uint32_t before = depth.count(w) ? depth[w] : 1;
    if (dep != before + 1) ++bad_depth;
    depth[w] = dep;
    max_depth = std::max<uint64_t>(max_depth, dep);
  }
  void onReturn(uint32_t, const func::DInstr& d, uint32_t, uint64_t) override {
    ++returns;
    if (d.cls != func::Cls::Ret) ++bad_depth;
  }
  void onFrameRelease(uint32_t w, uint32_t n, uint32_t dep, uint64_t) override {
    released += n;
    const uint32_t before = depth.count(w) ? depth[w] : 1;
    if (dep + n != before) ++bad_depth;
    depth[w] = dep;
  }
  void onBlockRetired(rt::Dim3, uint64_t) override { ++blocks; }
};

struct EventRun {
  bool passed = false;
  uint64_t cycles = 0, call_instrs = 0, blocks = 0;
  std::vector<std::unique_ptr<EventCounter>> counters;  // one per SM
};

EventRun runWithEvents(const std::string& workload, bool observe) {
  config::GpuConfig cfg;
  cfg.gpu.num_sms = 4;
  const workloads::Workload* w = workloads::find(workload);
  REQUIRE(w != nullptr);
  EventRun r;
  rt::DeviceOptions o;
  o.timing = true;
  o.gpu = &cfg;
  if (observe)
    o.sm_setup = [&r](sm::Sm& s, uint32_t) {
      r.counters.push_back(std::make_unique<EventCounter>());
      sm::SmHooks h;
      h.events = {r.counters.back().get()};
      s.install(h);
    };
  rt::Device dev(o);
  std::vector<std::filesystem::path> files;  // the workload's modules, linked
  for (const std::string& m : w->modules()) files.push_back(std::filesystem::path(RFSIM_SOURCE_DIR) / m);
  dev.loadModules(files);
  r.passed = w->run(dev, workloads::Size::Small).passed;
  r.cycles = dev.totals().cycles;
  r.call_instrs = dev.totals().warp_instrs_by_op[static_cast<size_t>(ptx::Op::Call)];
  r.blocks = dev.totals().blocks;
  return r;
}

}  // namespace

TEST_CASE("SM events: every call enters a frame that a release ends, depths agree, nothing changes",
          "[sm][hooks][events]") {
  for (const char* wl : {"fib", "deep_calls", "virtual_dispatch"}) {
    INFO(wl);
    const EventRun plain = runWithEvents(wl, false);
    const EventRun seen = runWithEvents(wl, true);
    REQUIRE(seen.passed);
    CHECK(seen.cycles == plain.cycles);  // an observer changes nothing
    uint64_t calls = 0, returns = 0, released = 0, blocks = 0, bad = 0, deepest = 0;
    for (const auto& c : seen.counters) {
      calls += c->calls;
      returns += c->returns;
      released += c->released;
      blocks += c->blocks;
      bad += c->bad_depth;
      deepest = std::max(deepest, c->max_depth);
      for (const auto& [slot, d] : c->depth) CHECK(d == 1);  // every frame ended by the end
    }
    CHECK(calls > 0);
    CHECK(calls <= seen.call_instrs);  // built-in calls enter no frame
    CHECK(released == calls);
    CHECK(returns >= released);        // a divergent return is seen once per part
    CHECK(bad == 0);
    CHECK(deepest >= 2);
    CHECK(blocks == seen.blocks);
  }
}

TEST_CASE("a static warp limit lets only the oldest warps issue", "[sm][swl]") {
  const Run plain = run();
  config::GpuConfig one;
  one.sm.warp_limit = 1;
  const Run limited = run({}, one);
  config::GpuConfig eight;
  eight.sm.warp_limit = 8;
  const Run some = run({}, eight);
  INFO("no limit " << plain.r.cycles << ", 8 warps " << some.r.cycles << ", 1 warp " << limited.r.cycles);
  CHECK(limited.out == plain.out);
  CHECK(some.out == plain.out);
  CHECK(limited.r.warp_instrs == plain.r.warp_instrs);
  // One warp at a time: far slower than 32 warps together.
  CHECK(limited.r.cycles > 4 * plain.r.cycles);
  CHECK(some.r.cycles > plain.r.cycles);
  CHECK(some.r.cycles < limited.r.cycles);
}
