#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <vector>

#include "config/config_io.h"
#include "sm/issue/exec_unit.h"
#include "sm/issue/op_class.h"
#include "sm/issue/scheduler.h"
#include "sm/issue/scoreboard.h"
#include "sm/issue/shared_banks.h"

using namespace rfsim::sm;
namespace cfgns = rfsim::config;

namespace {

std::vector<WarpStatus> statuses(std::initializer_list<Stall> s) {
  std::vector<WarpStatus> v;
  for (Stall x : s) v.push_back(WarpStatus{x, false, false});
  return v;
}

std::unique_ptr<WarpScheduler> make(const char* name, uint32_t nwarps, uint32_t active = 2) {
  SchedulerParams p;
  p.max_warps = 8;
  p.active_warps = active;
  auto s = SchedulerRegistry::withBuiltins().create(name, p);
  for (uint32_t w = 0; w < nwarps; ++w) s->addWarp(w, w);
  return s;
}

rfsim::ptx::Instr ins(rfsim::ptx::Op op, rfsim::ptx::Type t, rfsim::ptx::Space sp = rfsim::ptx::Space::None) {
  rfsim::ptx::Instr i;
  i.op = op;
  i.type = t;
  i.space = sp;
  return i;
}

}  // namespace

TEST_CASE("scoreboard: RAW, WAW, release, RZ and long-latency count", "[issue]") {
  Scoreboard sb(4);
  const uint32_t d[] = {5, 6};  // a 64-bit pair R5:R6 ... as two ids
  sb.reserve(1, d, 2, true);
  const uint32_t r5[] = {5}, r7[] = {7}, rz[] = {255}, p0[] = {256};
  CHECK(sb.hazard(1, r5, 1, nullptr, 0));   // RAW
  CHECK(sb.hazard(1, r7, 1, d, 1));         // WAW on R5
  CHECK_FALSE(sb.hazard(1, r7, 1, r7, 1));  // independent
  CHECK_FALSE(sb.hazard(0, r5, 1, r5, 1));  // other warp
  CHECK(sb.pendingLongLatency(1) == 1);
  const uint32_t r8[] = {8};
  sb.reserve(1, r8, 1);                      // a short op's result
  CHECK(sb.longHazardOf(1, r5, 1, r7, 1));   // depends on the long op
  CHECK(sb.longHazardOf(1, r7, 1, d + 1, 1));  // WAW on its R6
  CHECK_FALSE(sb.longHazardOf(1, r8, 1, r7, 1));  // waits on the short one only
  sb.release(1, r8, 1);
  CHECK_THROWS(sb.reserve(1, r5, 1));        // issuing past WAW is a bug
  sb.release(1, d, 2, true);
  CHECK_FALSE(sb.hazard(1, r5, 1, r5, 1));
  CHECK_FALSE(sb.longHazardOf(1, r5, 1, d, 2));
  CHECK(sb.pendingLongLatency(1) == 0);
  sb.reserve(2, rz, 1);                      // RZ is never reserved
  CHECK_FALSE(sb.hazard(2, rz, 1, nullptr, 0));
  CHECK(sb.reservedCount(2) == 0);
  sb.reserve(2, p0, 1);                      // predicates are
  CHECK(sb.hazard(2, p0, 1, nullptr, 0));
  sb.clear(2);
  CHECK(sb.reservedCount(2) == 0);
}

TEST_CASE("lrr rotates from the warp after the last issued", "[issue]") {
  auto s = make("lrr", 4);
  auto all = statuses({Stall::None, Stall::None, Stall::None, Stall::None});
  CHECK(s->cycle(all.data()).warp == 0);
  CHECK(s->cycle(all.data()).warp == 1);
  CHECK(s->cycle(all.data()).warp == 2);
  auto some = statuses({Stall::None, Stall::None, Stall::Scoreboard, Stall::Scoreboard});
  CHECK(s->cycle(some.data()).warp == 0);  // wraps past 3 (stalled)
  CHECK(s->cycle(some.data()).warp == 1);
  CHECK(s->issuedCycles() == 5);
}

TEST_CASE("gto is greedy, then falls back to the oldest ready warp", "[issue]") {
  auto s = make("gto", 4);
  auto st = statuses({Stall::Scoreboard, Stall::None, Stall::None, Stall::None});
  CHECK(s->cycle(st.data()).warp == 1);  // oldest ready
  st[0].stall = Stall::None;
  CHECK(s->cycle(st.data()).warp == 1);  // greedy: 1 is still ready, 0 is older but waits
  st[1].stall = Stall::Scoreboard;
  CHECK(s->cycle(st.data()).warp == 0);  // 1 stalls: oldest ready
  CHECK(s->cycle(st.data()).warp == 0);
}

TEST_CASE("two-level: demotion on long latency, promotion of the oldest ready pending warp", "[issue]") {
  auto s = make("two_level", 4, 2);
  std::vector<WarpStatus> st = statuses({Stall::None, Stall::None, Stall::None, Stall::None});
  // Active pool {0, 1}: LRR among them only.
  CHECK(s->cycle(st.data()).warp == 0);
  CHECK(s->cycle(st.data()).warp == 1);
  CHECK(s->cycle(st.data()).warp == 0);
  // Warp 0 waits on a load: demoted, warp 2 (oldest ready pending) promoted.
  st[0] = WarpStatus{Stall::Scoreboard, false, true};
  CHECK(s->cycle(st.data()).warp == 1);
  CHECK(s->cycle(st.data()).warp == 2);
  // A short scoreboard stall does not demote: 1 and 2 stall, 3 stays pending.
  st[1] = WarpStatus{Stall::Scoreboard, false, false};
  st[2] = WarpStatus{Stall::UnitBusy, false, false};
  Pick p = s->cycle(st.data());
  CHECK(p.warp == -1);
  CHECK(p.stall == Stall::UnitBusy);
  // The load returns: warp 0 is ready but pending until a slot frees.
  st[0] = WarpStatus{Stall::None, false, false};
  CHECK(s->cycle(st.data()).warp == -1);
  st[2] = WarpStatus{Stall::Barrier, false, false};  // barrier demotes: 0 is promoted (older than 3)
  CHECK(s->cycle(st.data()).warp == 0);
}

TEST_CASE("two-level: the oldest warp out of its long wait activated, barriers kept in the pool (sm.activate, "
          "sm.barrier_demotes)", "[issue]") {
  SchedulerParams p;
  p.max_warps = 8;
  p.active_warps = 1;
  p.ready_first = false;
  p.barrier_demotes = false;
  auto s = SchedulerRegistry::withBuiltins().create("two_level", p);
  for (uint32_t w = 0; w < 4; ++w) s->addWarp(w, w);
  // Warp 0 waits on a load, 1 briefly, 2 is ready: warp 1, the oldest out of
  // a long wait, takes the slot though 2 is ready (oldest_ready would take 2).
  std::vector<WarpStatus> st = statuses({Stall::Scoreboard, Stall::UnitBusy, Stall::None, Stall::None});
  st[0].long_latency = true;
  CHECK(s->cycle(st.data()).warp == -1);
  CHECK(s->activations() == 1);
  st[1] = WarpStatus{Stall::None, false, false};
  CHECK(s->cycle(st.data()).warp == 1);
  // At a barrier it stays in the pool: nothing else is activated.
  st[1] = WarpStatus{Stall::Barrier, false, false};
  CHECK(s->cycle(st.data()).warp == -1);
  CHECK(s->deactivations() == 0);
  CHECK(s->activations() == 1);
}

TEST_CASE("stall reason: the most specific over the warps, NoWarp when empty", "[issue]") {
  auto s = make("lrr", 4);
  auto st = statuses({Stall::Barrier, Stall::IbufferEmpty, Stall::Scoreboard, Stall::Barrier});
  CHECK(s->cycle(st.data()).stall == Stall::Scoreboard);
  st[3].stall = Stall::CollectorFull;
  CHECK(s->cycle(st.data()).stall == Stall::CollectorFull);
  st[0].stall = Stall::UnitBusy;
  CHECK(s->cycle(st.data()).stall == Stall::UnitBusy);
  auto low = statuses({Stall::Barrier, Stall::IbufferEmpty, Stall::Barrier, Stall::Barrier});
  CHECK(s->cycle(low.data()).stall == Stall::IbufferEmpty);
  CHECK(s->stallCycles(Stall::UnitBusy) == 1);
  auto empty = make("gto", 0);
  CHECK(empty->cycle(st.data()).stall == Stall::NoWarp);
  // Every pair of stalls but None (which issues): the one stallRank ranks higher.
  auto two = make("gto", 2);
  for (unsigned a = 1; a < unsigned(Stall::Count_); ++a)
    for (unsigned b = 1; b < unsigned(Stall::Count_); ++b) {
      auto pair = statuses({Stall(a), Stall(b)});
      const Stall want = stallRank(Stall(a)) >= stallRank(Stall(b)) ? Stall(a) : Stall(b);
      CHECK(two->cycle(pair.data()).stall == want);
      // The same from the caller's set of stalls (IssueStage passes it), by gto and lrr.
      const uint32_t seen = 1u << a | 1u << b;
      CHECK(two->cycle(pair.data(), 0, seen).stall == want);
      CHECK(make("lrr", 2)->cycle(pair.data(), 0, seen).stall == want);
    }
}

TEST_CASE("scheduler registry: plug-in by name, dual issue, partition", "[issue]") {
  SchedulerRegistry r = SchedulerRegistry::withBuiltins();
  CHECK(r.names() == std::vector<std::string>{"gto", "lrr", "two_level"});
  CHECK_THROWS_WITH(r.create("fifo", SchedulerParams{}), Catch::Matchers::Contains("known: gto, lrr, two_level"));
  r.add("oldest", makeGto);
  CHECK(std::string(r.create("oldest", SchedulerParams{})->name()) == "gto");
  SchedulerParams p;
  p.dual_issue = true;
  auto s = r.create("lrr", p);
  s->addWarp(3, 0);
  std::vector<WarpStatus> st(8);
  st[3] = WarpStatus{Stall::None, true, false};
  Pick k = s->cycle(st.data());
  CHECK(k.warp == 3);
  CHECK(k.dual);
  CHECK(s->dualIssues() == 1);
  CHECK(schedulerOf(5, 4) == 1);
  CHECK(schedulerOf(8, 4) == 0);
}

TEST_CASE("execution unit: latency, initiation interval, pipeline count", "[issue]") {
  ExecUnit u(2, 16);  // two pipelines
  CHECK(u.canAccept(0));
  u.accept(10, 0, 4, 2);
  CHECK(u.canAccept(0));  // second pipeline
  u.accept(11, 0, 4, 2);
  CHECK_FALSE(u.canAccept(0));
  CHECK_FALSE(u.canAccept(1));  // ii 2
  CHECK(u.canAccept(2));
  uint64_t tag = 0;
  CHECK_FALSE(u.popDone(3, tag));
  CHECK(u.nextDone() == 4);
  CHECK(u.popDone(4, tag));
  CHECK(tag == 10);
  CHECK(u.popDone(4, tag));
  CHECK(tag == 11);
  CHECK_FALSE(u.popDone(4, tag));
  // Different latencies complete out of order.
  u.accept(20, 10, 100, 8);
  u.accept(21, 10, 5, 2);
  CHECK(u.popDone(15, tag));
  CHECK(tag == 21);
  CHECK_FALSE(u.popDone(109, tag));
  CHECK(u.popDone(110, tag));
  CHECK(tag == 20);
  ExecUnit small(1, 1);  // capacity bound
  small.accept(1, 0, 50, 1);
  CHECK_FALSE(small.canAccept(5));
}

TEST_CASE("shared memory bank conflicts: the fast path agrees with counting every bank's words", "[issue]") {
  // The reference: per phase of 128 bytes' worth of lanes, the most distinct
  // 4-byte words that fall into one bank.
  auto reference = [](const uint64_t* addr, uint32_t mask, uint32_t bytes, uint32_t banks) {
    const uint32_t words = bytes <= 4 ? 1 : bytes / 4, lanes = bytes <= 4 ? 32 : 32 / words;
    uint32_t total = 0;
    for (uint32_t first = 0; first < 32; first += lanes) {
      std::vector<std::vector<uint64_t>> per(banks);
      uint32_t degree = 0;
      for (uint32_t l = first; l < first + lanes; ++l)
        if (mask >> l & 1u)
          for (uint32_t k = 0; k < words; ++k) {
            const uint64_t w = addr[l] / 4 + k;
            auto& v = per[w % banks];
            if (std::find(v.begin(), v.end(), w) == v.end()) v.push_back(w);
            degree = std::max<uint32_t>(degree, uint32_t(v.size()));
          }
      total += degree;
    }
    return total;
  };
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  uint64_t a[32];
  for (int trial = 0; trial < 4000; ++trial) {
    const uint32_t bytes = std::array<uint32_t, 5>{1, 2, 4, 8, 16}[next() % 5];
    const uint32_t banks = std::array<uint32_t, 4>{32, 16, 64, 24}[next() % 4];
    const uint32_t span = std::array<uint32_t, 3>{64, 512, 8192}[next() % 3];  // few words: many repeats
    for (auto& x : a) x = 0x1000 + (next() % span) / bytes * bytes;
    const uint32_t mask = next() % 4 == 0 ? ~0u : static_cast<uint32_t>(next() ^ (next() << 16));
    INFO("trial " << trial << " bytes " << bytes << " banks " << banks << " mask " << mask);
    CHECK(sharedConflictDegree(a, mask, bytes, banks) == reference(a, mask, bytes, banks));
  }
}

TEST_CASE("shared memory bank conflicts", "[issue]") {
  uint64_t a[32];
  auto stride = [&](uint64_t s, uint64_t bytes) {
    for (int i = 0; i < 32; ++i) a[i] = 0x1000 + i * s * bytes;
  };
  stride(1, 4);
  CHECK(sharedConflictDegree(a, ~0u, 4, 32) == 1);
  stride(2, 4);
  CHECK(sharedConflictDegree(a, ~0u, 4, 32) == 2);
  stride(32, 4);
  CHECK(sharedConflictDegree(a, ~0u, 4, 32) == 32);
  stride(0, 4);  // broadcast
  CHECK(sharedConflictDegree(a, ~0u, 4, 32) == 1);
  for (int i = 0; i < 32; ++i) a[i] = 0x1000 + (i % 2) * 4;  // two words, each read by 16 lanes
  CHECK(sharedConflictDegree(a, ~0u, 4, 32) == 1);
  for (int i = 0; i < 32; ++i) a[i] = i < 16 ? 0x1000 : 0x1080;  // two words in bank 0
  CHECK(sharedConflictDegree(a, ~0u, 4, 32) == 2);
  CHECK(sharedConflictDegree(a, 0x0000ffffu, 4, 32) == 1);
  for (int i = 0; i < 32; ++i) a[i] = i == 31 ? 0x1080 : 0x1000 + i * 4;  // lane 31 meets lane 0 in bank 0
  CHECK(sharedConflictDegree(a, ~0u, 4, 32) == 2);
  CHECK(sharedConflictDegree(a, 0x7fffffffu, 4, 32) == 1);
  stride(1, 8);  // 8-byte stride 1: two half-warp phases, each conflict-free
  CHECK(sharedConflictDegree(a, ~0u, 8, 32) == 2);
  CHECK(sharedConflictDegree(a, 0x0000ffffu, 8, 32) == 1);  // one half-warp only
  stride(2, 8);  // 8-byte stride 2: in a half-warp lanes i and i+8 share banks: 2 passes per phase
  CHECK(sharedConflictDegree(a, ~0u, 8, 32) == 4);
  stride(1, 16);
  CHECK(sharedConflictDegree(a, ~0u, 16, 32) == 4);
  stride(1, 4);
  CHECK(sharedConflictDegree(a, 0, 4, 32) == 0);
  CHECK(sharedConflictDegree(a, 0x3u, 4, 32) == 1);
  CHECK_THROWS(sharedConflictDegree(a, ~0u, 3, 32));
}

TEST_CASE("shared memory phases: the passes an access takes without a conflict", "[issue]") {
  CHECK(sharedPhases(~0u, 4) == 1);
  CHECK(sharedPhases(~0u, 8) == 2);
  CHECK(sharedPhases(0x0000ffffu, 8) == 1);  // one half-warp
  CHECK(sharedPhases(~0u, 16) == 4);
  CHECK(sharedPhases(0x00ff00ffu, 16) == 2);  // quarter-warps 0 and 2
  CHECK(sharedPhases(0, 4) == 0);
}

TEST_CASE("classify: unit and latency class of opcodes", "[issue]") {
  using rfsim::ptx::Op;
  using rfsim::ptx::Space;
  using rfsim::ptx::Type;
  CHECK(classify(ins(Op::Add, Type::S32)) == UnitType::INT);
  CHECK(classify(ins(Op::Add, Type::F32)) == UnitType::SP);
  CHECK(classify(ins(Op::Add, Type::F64)) == UnitType::DP);
  CHECK(classify(ins(Op::Fma, Type::F16x2)) == UnitType::SP);
  CHECK(classifyOp(ins(Op::Mad, Type::S32)).lat == LatClass::IntMad);
  CHECK(classifyOp(ins(Op::Mul, Type::U32)).lat == LatClass::IntMul);
  CHECK(classifyOp(ins(Op::Fma, Type::F64)).lat == LatClass::Fp64Fma);
  CHECK(classifyOp(ins(Op::Div, Type::F32)).unit == UnitType::SFU);
  CHECK(classifyOp(ins(Op::Div, Type::F32)).lat == LatClass::Fp32Div);
  CHECK(classifyOp(ins(Op::Div, Type::S32)).lat == LatClass::IntDiv);
  CHECK(classifyOp(ins(Op::Div, Type::F64)).lat == LatClass::Fp64Div);
  CHECK(classifyOp(ins(Op::Sqrt, Type::F64)).unit == UnitType::DP);
  CHECK(classifyOp(ins(Op::Ex2, Type::F32)).lat == LatClass::Sfu);
  CHECK(classify(ins(Op::Rsqrt, Type::F32)) == UnitType::SFU);
  CHECK(classifyOp(ins(Op::Ld, Type::U32, Space::Shared)).lat == LatClass::Shared);
  CHECK(classifyOp(ins(Op::Ld, Type::U32, Space::Global)).lat == LatClass::Memory);
  CHECK(classify(ins(Op::St, Type::F64, Space::Local)) == UnitType::LDST);
  CHECK(classify(ins(Op::Atom, Type::U32, Space::Global)) == UnitType::LDST);
  CHECK(classify(ins(Op::Shfl, Type::B32)) == UnitType::LDST);
  CHECK(classify(ins(Op::Bra, Type::None)) == UnitType::INT);
  CHECK(classify(ins(Op::Ret, Type::None)) == UnitType::INT);
  CHECK(classify(ins(Op::Lop3, Type::B32)) == UnitType::INT);
  rfsim::ptx::Instr cvt = ins(Op::Cvt, Type::F32);
  cvt.type2 = Type::F64;
  CHECK(classify(cvt) == UnitType::DP);
  rfsim::ptx::Instr setp = ins(Op::Setp, Type::F32);
  CHECK(classifyOp(setp).lat == LatClass::Fp32Add);

  const cfgns::GpuConfig v100;
  OpTiming t = opTiming(ins(Op::Fma, Type::F32), v100);
  CHECK(t.latency == 5);
  CHECK(t.ii == 2);
  t = opTiming(ins(Op::Ld, Type::U32, Space::Shared), v100);
  CHECK(t.latency == v100.shared.latency);
  t = opTiming(ins(Op::Add, Type::F64), v100);
  CHECK(t.unit == UnitType::DP);
  cfgns::GpuConfig maxwellish = v100;  // no INT/DP units: they fall back to SP
  maxwellish.pipeline.int_units = 0;
  maxwellish.pipeline.dp_units = 0;
  CHECK(opTiming(ins(Op::Add, Type::S32), maxwellish).unit == UnitType::SP);
  CHECK(opTiming(ins(Op::Add, Type::F64), maxwellish).unit == UnitType::SP);
  CHECK(opTiming(ins(Op::Add, Type::F64), maxwellish).latency == 8);
}

TEST_CASE("pipeline configuration of the named configs matches the cited sources", "[issue]") {
  const auto path = [](const char* n) { return std::string(RFSIM_SOURCE_DIR) + "/configs/" + n + ".yaml"; };
  for (const char* volta : {"v100", "titanv"}) {
    INFO(volta);
    const auto p = cfgns::loadConfig(path(volta)).pipeline;  // GPGPU-Sim SM7_QV100 / SM7_TITANV
    CHECK(p.sp_units == 4);
    CHECK(p.int_units == 4);
    CHECK(p.sfu_units == 4);
    CHECK(p.dp_units == 4);
    CHECK(p.int_add_latency == 4);
    CHECK(p.int_mad_latency == 5);
    CHECK(p.int_div_latency == 145);
    CHECK(p.fp32_fma_latency == 5);
    CHECK(p.fp32_div_latency == 39);
    CHECK(p.sfu_latency == 100);
    CHECK(p.sfu_ii == 8);
    CHECK(p.fp64_fma_latency == 8);
    CHECK(p.fp64_div_latency == 330);
    CHECK(p.fp64_div_ii == 130);
    CHECK(p.num_collectors == 8);
    CHECK(p.collector_mode == cfgns::CollectorMode::General);
    CHECK_FALSE(p.dual_issue);
  }
  const auto m = cfgns::loadConfig(path("maxwell")).pipeline;  // GPGPU-Sim GeForceGTX750Ti
  CHECK(m.sp_units == 8);
  CHECK(m.sfu_units == 32);
  CHECK(m.int_units == 0);
  CHECK(m.dp_units == 0);
  CHECK(m.int_add_latency == 6);
  CHECK(m.int_mul_latency == 13);
  CHECK(m.int_div_latency == 210);
  CHECK(m.fp32_fma_latency == 6);
  CHECK(m.fp32_div_latency == 374);
  CHECK(m.fp64_add_ii == 8);
  CHECK(m.dual_issue);
  CHECK(m.collector_mode == cfgns::CollectorMode::PerUnit);
  CHECK(m.num_collectors == 6);
}

namespace {
// Holds each activated warp `hold` cycles and records what it heard.
struct RecordingActivation final : ActivationHook {
  explicit RecordingActivation(uint64_t h) : hold(h) {}
  uint64_t onActivate(uint32_t warp, uint64_t now) override {
    activated.push_back({warp, now});
    return now + hold;
  }
  void onDeactivate(uint32_t warp, uint64_t now) override { deactivated.push_back({warp, now}); }
  uint64_t hold;
  std::vector<std::pair<uint32_t, uint64_t>> activated, deactivated;
};
}  // namespace

TEST_CASE("two-level: activation hook holds a warp entering the pool, hears demotions and exits", "[issue]") {
  auto s = make("two_level", 4, 2);
  RecordingActivation h(3);
  s->setActivationHook(&h);
  std::vector<WarpStatus> st = statuses({Stall::None, Stall::None, Stall::None, Stall::None});
  // Cycle 10: warps 0 and 1 enter the pool and are held until cycle 13.
  Pick p = s->cycle(st.data(), 10);
  CHECK(p.warp == -1);
  CHECK(p.stall == Stall::Scoreboard);
  REQUIRE(h.activated.size() == 2);
  CHECK(h.activated[0] == std::make_pair(0u, uint64_t(10)));
  CHECK(h.activated[1] == std::make_pair(1u, uint64_t(10)));
  CHECK(s->heldUntil(0) == 13);
  CHECK(s->nextRelease(10) == 13);
  CHECK(s->cycle(st.data(), 12).warp == -1);
  CHECK(s->cycle(st.data(), 13).warp == 0);
  CHECK(s->cycle(st.data(), 14).warp == 1);
  CHECK(s->nextRelease(14) == UINT64_MAX);
  // Warp 0 waits on a load: demoted (heard), warp 2 activated and held.
  st[0] = WarpStatus{Stall::Scoreboard, false, true};
  CHECK(s->cycle(st.data(), 20).warp == 1);
  REQUIRE(h.deactivated.size() == 1);
  CHECK(h.deactivated[0] == std::make_pair(0u, uint64_t(20)));
  CHECK(h.activated.back() == std::make_pair(2u, uint64_t(20)));
  CHECK(s->cycle(st.data(), 21).warp == 1);  // 2 held until 23
  CHECK(s->cycle(st.data(), 23).warp == 2);
  // A warp that exits while active is heard leaving.
  s->removeWarp(1);
  CHECK(h.deactivated.back().first == 1u);
  CHECK(s->activations() == 3);
  CHECK(s->deactivations() == 2);
}

TEST_CASE("lrr and gto have no pool: the activation hook is never called", "[issue]") {
  for (const char* name : {"lrr", "gto"}) {
    auto s = make(name, 4, 2);
    RecordingActivation h(5);
    s->setActivationHook(&h);
    std::vector<WarpStatus> st = statuses({Stall::None, Stall::None, Stall::None, Stall::None});
    CHECK(s->cycle(st.data(), 1).warp >= 0);
    CHECK(h.activated.empty());
  }
}
