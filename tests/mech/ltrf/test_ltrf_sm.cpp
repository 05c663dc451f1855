// LTRF in the SM (mech/ltrf/ltrf_sm.h): the address allocation unit and the
// WCB storage, the prefetch pass, and workloads on the Maxwell configuration
// in every mode with their values held where the hardware holds them --
// in the register-file cache's rows while cached, in the MRF's otherwise --
// so that a fetch that moves no value, or a live value dropped, breaks the
// output.
#include <catch2/catch.hpp>

#include <deque>
#include <random>

#include "backend/backend.h"
#include "common/error.h"
#include "mech/ltrf/ltrf_mechanism.h"
#include "mech/ltrf/ltrf_sm.h"
#include "mech/ltrf/renumber.h"
#include "ptx/machine.h"
#include "mech/ltrf/wcb.h"
#include "ptx/analysis/cfg.h"
#include "ptx/isa_ext.h"
#include "ptx/link.h"
#include "../mech_test_util.h"

using namespace rfsim;
using namespace rfsim::test;
using namespace rfsim::mech::ltrf;

namespace {

config::GpuConfig maxwell(const std::string& mode, const std::vector<std::string>& sets = {}) {
  config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/maxwell.yaml");
  mech::select(c, "ltrf");
  config::applyOverride(c, "mechanisms.ltrf.mode=" + mode);
  if (mode == "bl") config::applyOverride(c, "regfile.size_kb=272");
  for (const auto& s : sets) config::applyOverride(c, s);
  config::validate(c, "test");
  return c;
}

uint64_t ltrf(const Run& r, const std::string& key) { return total(r, "ltrf." + key, true, "ltrf"); }

}  // namespace

TEST_CASE("ltrf aau: allocation takes the unused queue's head, a free returns a bank to its tail", "[ltrf][aau]") {
  Aau a(4);
  uint8_t b = 0;
  REQUIRE(a.allocate(b));
  CHECK(b == 0);
  REQUIRE(a.allocate(b));
  CHECK(b == 1);
  REQUIRE(a.allocate(b));
  CHECK(b == 2);
  CHECK(a.free(1));
  CHECK(!a.free(1));  // not occupied any more
  CHECK(a.unusedQueue() == std::vector<uint8_t>{3, 1});
  CHECK(a.occupiedQueue() == std::vector<uint8_t>{0, 2});
  REQUIRE(a.allocate(b));
  CHECK(b == 3);
  REQUIRE(a.allocate(b));
  CHECK(b == 1);
  CHECK(!a.allocate(b));  // all four occupied
  CHECK(a.occupied() == 4);
}

TEST_CASE("ltrf aau: random allocate/free sequences against a queue model", "[ltrf][aau]") {
  std::mt19937 rng(7);
  for (uint32_t banks : {4u, 16u, 32u}) {
    Aau a(banks);
    std::deque<uint8_t> unused, occupied;
    for (uint32_t i = 0; i < banks; ++i) unused.push_back(static_cast<uint8_t>(i));
    for (int step = 0; step < 20000; ++step) {
      if (rng() % 2 && !occupied.empty()) {
        const uint8_t victim = occupied[rng() % occupied.size()];
        REQUIRE(a.free(victim));
        occupied.erase(std::find(occupied.begin(), occupied.end(), victim));
        unused.push_back(victim);
      } else {
        uint8_t b = 0;
        const bool ok = a.allocate(b);
        REQUIRE(ok == !unused.empty());
        if (ok) {
          REQUIRE(b == unused.front());
          unused.pop_front();
          occupied.push_back(b);
        }
      }
      REQUIRE(a.unusedQueue() == std::vector<uint8_t>(unused.begin(), unused.end()));
    }
  }
}

TEST_CASE("ltrf wcb: the storage of section 5.2, with 5-bit and 4-bit table entries", "[ltrf][wcb]") {
  CHECK(wcbStorageBits(64, 256, 5, 8) == 114880);
  CHECK(wcbStorageBits(64, 256, 4, 8) == 98496);
  OffsetAllocator o(8);
  uint8_t x = 0;
  for (int i = 0; i < 8; ++i) REQUIRE(o.allocate(x));
  CHECK(!o.allocate(x));
  o.free(3);
  REQUIRE(o.allocate(x));
  CHECK(x == 3);
}

TEST_CASE("ltrf: the prefetch pass puts a prefetch with the working set at every interval's entry",
          "[mech][ltrf][pass]") {
  mech::registerMechanisms();
  config::GpuConfig cfg = maxwell("ltrf_plus");
  auto m = mech::instantiate(cfg);
  const std::vector<backend::Variant> vs = m.at(0)->variants();
  REQUIRE(vs.size() == 1);
  uint16_t op = 0;
  REQUIRE(ptx::findExtOp("ltrf.prefetch", &op));
  for (const char* w : {"sgemm", "deep_calls", "bfs"}) {
    INFO(w);
    backend::CompileOptions o;
    backend::CompiledModule base = backend::compileModule(ptx::parseAndLink(workloadModules(w)), o);
    o.variant = &vs[0];
    const backend::CompiledModule lt = backend::compileModule(ptx::parseAndLink(workloadModules(w)), o);
    REQUIRE(base.machine.functions.size() == lt.machine.functions.size());
    for (size_t f = 0; f < lt.machine.functions.size(); ++f) {
      const ptx::Function& fn = lt.machine.functions[f];
      if (fn.blocks.empty()) continue;
      size_t prefetches = 0, instrs = 0;
      for (const auto& bb : fn.blocks)
        for (const auto& in : bb.instrs) {
          ++instrs;
          if (in.op != ptx::Op::Ext || in.ext != op) continue;
          ++prefetches;
          const RegBits s = prefetchSet(in);
          CHECK(s.count() > 0);
          CHECK(s.count() <= 16);
        }
      ptx::buildCfg(base.machine.functions[f]);
      CHECK(prefetches == prefetchEntries(base.machine.functions[f], 16).size());
      // The function's first instruction is a prefetch (its entry interval).
      CHECK(fn.blocks[0].instrs[0].op == ptx::Op::Ext);
      CHECK(instrs > prefetches);
    }
  }
}

TEST_CASE("ltrf: workloads run correctly in every mode with every operand from the cache", "[mech][ltrf][timing]") {
  for (const char* w : {"sgemm", "deep_calls", "bfs"}) {
    INFO(w);
    const Run bl = run(maxwell("bl"), w);
    REQUIRE(bl.passed);
    CHECK(ltrf(bl, "operand_mrf_reads") > 0);
    CHECK(ltrf(bl, "rfc_reads") == 0);
    const Run rfc = run(maxwell("rfc"), w);
    REQUIRE(rfc.passed);
    CHECK(ltrf(rfc, "rfc_hits") > 0);
    CHECK(ltrf(rfc, "rfc_misses") > 0);
    CHECK(ltrf(rfc, "activations") == ltrf(rfc, "deactivations"));
    for (const char* mode : {"ltrf", "ltrf_plus"}) {
      INFO(mode);
      const Run r = run(maxwell(mode), w);
      REQUIRE(r.passed);
      CHECK(ltrf(r, "prefetch_instrs") > 0);
      CHECK(ltrf(r, "fetched") > 0);
      CHECK(ltrf(r, "operand_mrf_reads") == 0);  // LTRF's collectors read only the cache
      CHECK(ltrf(r, "uncached_accesses") == 0);
      CHECK(ltrf(r, "activations") == ltrf(r, "deactivations"));
      CHECK(ltrf(r, "fetch_sets_conflict_free") <= ltrf(r, "fetch_sets"));
    }
  }
  // LTRF+ moves only live registers: less traffic than LTRF, which moves
  // whole working sets and never drops one.
  const Run a = run(maxwell("ltrf"), "sgemm");
  const Run b = run(maxwell("ltrf_plus"), "sgemm");
  CHECK(ltrf(a, "dropped_dead") == 0);
  CHECK(ltrf(a, "skipped_dead") == 0);
  CHECK(ltrf(b, "dropped_dead") > 0);
  CHECK(ltrf(b, "fetched") + ltrf(b, "written_back") < ltrf(a, "fetched") + ltrf(a, "written_back"));
}

TEST_CASE("ltrf: a pointer chase's deactivations write whole sets back and its activations fetch them again",
          "[mech][ltrf][timing]") {
  // LTRF (whole working sets): every long-latency load deactivates its
  // warp, which writes back everything cached and, on activation, fetches
  // the same set again: the two counts are equal. LTRF+ moves only live
  // registers, so less.
  const Run a = run(maxwell("ltrf", {"gpu.num_sms=1"}), "ubench_mem_latency");
  REQUIRE(a.passed);
  CHECK(ltrf(a, "deactivations") > 100);
  CHECK(ltrf(a, "deactivation_written") > 0);
  CHECK(ltrf(a, "activation_fetched") == ltrf(a, "deactivation_written"));
  const Run b = run(maxwell("ltrf_plus", {"gpu.num_sms=1"}), "ubench_mem_latency");
  REQUIRE(b.passed);
  CHECK(ltrf(b, "deactivation_written") < ltrf(a, "deactivation_written"));
  CHECK(ltrf(b, "activation_fetched") <= ltrf(b, "deactivation_written"));
}

TEST_CASE("ltrf: the choices the paper leaves open are keys -- long waits, activation, barriers, interval boundaries",
          "[mech][ltrf][timing]") {
  const Run base = run(maxwell("ltrf_plus"), "sgemm");
  REQUIRE(base.passed);
  // sm.long_wait l1d_miss: loads that hit the L1D no longer deactivate.
  const Run miss = run(maxwell("ltrf_plus", {"sm.long_wait=l1d_miss"}), "sgemm");
  CHECK(miss.passed);
  CHECK(ltrf(miss, "deactivations") < ltrf(base, "deactivations"));
  // sm.activate oldest_completed: another pool, the same output.
  const Run oc = run(maxwell("ltrf_plus", {"sm.activate=oldest_completed"}), "sgemm");
  CHECK(oc.passed);
  CHECK(oc.totals.cycles != base.totals.cycles);
  // sm.barrier_demotes false: sgemm's blocks have more warps than the pool,
  // and the warps at the barrier wait for pending ones that never come in --
  // why the default demotes them. The watchdog says so.
  CHECK_THROWS_WITH(run(maxwell("ltrf_plus", {"sm.barrier_demotes=false"}), "sgemm"),
                    Catch::Contains("SM deadlock") && Catch::Contains("at barrier"));
  // boundary whole_set: every prefetch moves its whole set, more traffic.
  const Run whole = run(maxwell("ltrf_plus", {"mechanisms.ltrf.boundary=whole_set"}), "sgemm");
  CHECK(whole.passed);
  CHECK(ltrf(whole, "fetched") > ltrf(base, "fetched"));
}

TEST_CASE("ltrf: values go through the cache -- a fetch that moves nothing or a dropped live value breaks the output",
          "[mech][ltrf][timing]") {
  auto outcome = [](const config::GpuConfig& c) {
    try {
      return run(c, "sgemm").passed;
    } catch (const Error&) {
      return false;  // e.g. a garbage address
    }
  };
  CHECK(outcome(maxwell("ltrf")));
  CHECK(!outcome(maxwell("ltrf", {"mechanisms.ltrf.fault=skip_fetch"})));
  CHECK(!outcome(maxwell("ltrf_plus", {"mechanisms.ltrf.fault=dead_all"})));
}

TEST_CASE("ltrf: configurations the mechanism cannot model are refused with the key", "[mech][ltrf][config]") {
  mech::registerMechanisms();
  auto make = [](const std::vector<std::string>& sets) {
    config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/maxwell.yaml");
    mech::select(c, "ltrf");
    for (const auto& s : sets) config::applyOverride(c, s);
    config::validate(c, "test");
    return mech::instantiate(c);
  };
  CHECK_NOTHROW(make({}));
  CHECK_THROWS_WITH(make({"mechanisms.ltrf.design_point=6"}), Catch::Contains("regfile.size_kb 2048"));
  CHECK_NOTHROW(make({"mechanisms.ltrf.design_point=6", "regfile.size_kb=2048"}));
  CHECK_THROWS_WITH(make({"mechanisms.ltrf.mrf_banks=24"}), Catch::Contains("mechanisms.ltrf.mrf_banks"));
  CHECK_THROWS_WITH(make({"sm.scheduler=gto"}), Catch::Contains("sm.scheduler"));
  CHECK_THROWS_WITH(make({"mechanisms.ltrf.mode=bl"}), Catch::Contains("regfile.size_kb 272"));
}

namespace {

// The paper's walk-through (section 4.3, Listing 1) as an allocated machine
// function: compare two 100-element arrays, R6 = 1 when they are equal.
ptx::Function listing1() {
  using ptx::Operand;
  using ptx::OperandKind;
  auto reg = [](uint32_t r) {
    Operand o;
    o.kind = OperandKind::Reg;
    o.regs[0] = r;
    o.mbits = 32;
    return o;
  };
  auto pred = [](uint32_t p) {
    Operand o;
    o.kind = OperandKind::Reg;
    o.regs[0] = ptx::mach::kPredBase + p;
    o.mbits = 1;
    return o;
  };
  auto imm = [](int64_t v) {
    Operand o;
    o.kind = OperandKind::Imm;
    o.imm = v;
    return o;
  };
  auto addr = [](uint32_t r) {
    Operand o;
    o.kind = OperandKind::Addr;
    o.regs[0] = r;
    o.mbits = 32;
    return o;
  };
  auto label = [](uint32_t b) {
    Operand o;
    o.kind = OperandKind::Label;
    o.block = b;
    return o;
  };
  auto ins = [](ptx::Op op, std::vector<Operand> d, std::vector<Operand> s, Operand guard = {}) {
    ptx::Instr in;
    in.op = op;
    in.type = ptx::Type::U32;
    in.ndst = static_cast<uint8_t>(d.size());
    in.nsrc = static_cast<uint8_t>(s.size());
    for (size_t i = 0; i < d.size(); ++i) in.dst[i] = d[i];
    for (size_t i = 0; i < s.size(); ++i) in.src[i] = s[i];
    in.guard = guard;
    return in;
  };
  using ptx::Op;
  ptx::Function fn;
  fn.name = "listing1";
  fn.is_entry = true;
  fn.blocks.resize(6);
  Operand not_p = pred(0);
  not_p.negate = true;
  fn.blocks[0].instrs = {ins(Op::Mov, {reg(0)}, {imm(0x100)}), ins(Op::Mov, {reg(1)}, {imm(0x300)}),
                         ins(Op::Mov, {reg(2)}, {imm(0)}), ins(Op::Mov, {reg(3)}, {imm(100)})};
  fn.blocks[1].label = "L1";
  fn.blocks[1].instrs = {ins(Op::Ld, {reg(4)}, {addr(0)}), ins(Op::Ld, {reg(5)}, {addr(1)}),
                         ins(Op::Setp, {pred(0)}, {reg(4), reg(5)}), ins(Op::Bra, {}, {label(4)}, not_p)};
  fn.blocks[1].instrs[0].space = fn.blocks[1].instrs[1].space = ptx::Space::Local;
  fn.blocks[2].instrs = {ins(Op::Add, {reg(0)}, {reg(0), imm(4)}), ins(Op::Add, {reg(1)}, {reg(1), imm(4)}),
                         ins(Op::Add, {reg(2)}, {reg(2), imm(1)}), ins(Op::Setp, {pred(1)}, {reg(2), reg(3)}),
                         ins(Op::Bra, {}, {label(1)}, pred(1))};
  fn.blocks[3].instrs = {ins(Op::Mov, {reg(6)}, {imm(1)}), ins(Op::Bra, {}, {label(5)})};
  fn.blocks[4].label = "L2";
  fn.blocks[4].instrs = {ins(Op::Mov, {reg(6)}, {imm(0)})};
  fn.blocks[5].label = "L3";
  fn.blocks[5].instrs = {ins(Op::Exit, {}, {})};
  ptx::buildCfg(fn);
  return fn;
}

}  // namespace

TEST_CASE("ltrf renumbering: the paper's walk-through (Listing 1, 4 banks of 2 registers, 4 per interval)",
          "[ltrf][renumber]") {
  ptx::Function fn = listing1();
  const BankMapping bm{4, 2};  // contiguous: R0, R1 in bank 0, R2, R3 in bank 1, ...
  const ConflictCount before = bankConflicts(fn, 4, bm);
  // The loop's interval names R0, R1, R4, R5: two conflicts (bank 0 twice,
  // bank 2 twice), as Fig. 8 shows.
  CHECK(before.conflict_free < before.intervals);
  CHECK(before.max_conflicts >= 1);
  const RenumberResult r = renumber(fn, 4, bm, 0);
  CHECK(r.kept);
  CHECK(r.moved > 0);
  CHECK(r.conflicts_after < r.conflicts_before);
  const ConflictCount after = bankConflicts(fn, 4, bm);
  INFO("intervals " << after.intervals << ", conflict-free " << after.conflict_free);
  CHECK(after.conflict_free == after.intervals);  // Fig. 10: every conflict resolved
  // Still eight registers (R0..R7): no register beyond the file.
  uint32_t highest = 0;
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs)
      for (unsigned k = 0; k < in.nsrc; ++k)
        if (in.src[k].kind == ptx::OperandKind::Reg || in.src[k].kind == ptx::OperandKind::Addr)
          if (in.src[k].regs[0] < ptx::mach::kRZ) highest = std::max(highest, in.src[k].regs[0]);
  CHECK(highest <= 7);
  // The two array pointers, live together in the loop, are in different banks.
  const uint32_t a = fn.blocks[1].instrs[0].src[0].regs[0], b = fn.blocks[1].instrs[1].src[0].regs[0];
  CHECK(bm.bank(a) != bm.bank(b));
  CHECK(fn.blocks[2].instrs[0].dst[0].regs[0] == a);  // a live range keeps one register
}

TEST_CASE("ltrf: the Verilated WCB lookup and AAUs in lockstep on every SM change nothing", "[mech][ltrf][timing][rtl]") {
  for (const char* w : {"sgemm", "deep_calls"}) {
    INFO(w);
    const Run ref = run(maxwell("ltrf_plus"), w);
    const Run rtl = run(maxwell("ltrf_plus", {"mechanisms.ltrf.rtl=true"}), w);
    REQUIRE(rtl.passed);
    CHECK(ltrf(rtl, "rtl_ops") > 1000);
    CHECK(ltrf(rtl, "rtl_lookups") > 1000);
    CHECK(ltrf(ref, "rtl_ops") == 0);
    CHECK(rtl.totals.cycles == ref.totals.cycles);
  }
}

TEST_CASE("ltrf: a prefetch that does not complete in time is caught by the watchdog with the WCBs in the report",
          "[mech][ltrf][timing]") {
  std::string why;
  try {
    run(maxwell("ltrf_plus", {"mechanisms.ltrf.mrf_latency=256", "pipeline.watchdog_cycles=300", "gpu.num_sms=1"}),
        "sgemm");
  } catch (const Error& e) {
    why = e.what();
  }
  CHECK_THAT(why, Catch::Contains("deadlock") && Catch::Contains("ltrf warp slot 0") && Catch::Contains("offset"));
}
