// The toy mechanism end to end (mech/toy): a variant compiled by a pass and
// chosen per launch, an issue gate and launch hook in every SM, an admission
// limit, per-launch statistics -- all on real workloads under timing, each
// output checked against its CPU reference.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "common/error.h"
#include "config/config_io.h"
#include "mech/mechanism.h"
#include "ptx/analysis/printer.h"
#include "ptx/ir.h"
#include "ptx/isa_ext.h"
#include "ptx/link.h"
#include "ptx/parser.h"
#include "sm/issue/op_class.h"
#include "runtime/runtime.h"
#include "stats/stats.h"
#include "workloads/workload.h"
#include "../mech_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

// The golden statistics of a workload's launches on v100: every GPU
// statistic of every launch, as recorded when the file was written. Their
// values are decisions: a change to the timing model that moves any of them
// must update the file in the same commit, deliberately, with
//   build/tests/test_mech "[.update-golden]"
std::filesystem::path goldenPath(const std::string& workload) {
  return std::filesystem::path(RFSIM_SOURCE_DIR) / "tests" / "mech" / "golden" / (workload + ".v100.json");
}

const char* const kGoldenWorkloads[] = {"saxpy", "sgemm", "fib"};

uint64_t stat(const stats::Group& g, const std::string& key) {
  const nlohmann::json j = stats::toFlatJson(g);
  REQUIRE(j.contains(key));
  return j[key].get<uint64_t>();
}

}  // namespace

TEST_CASE("toy: a mechanism whose hooks change nothing leaves every GPU statistic as it was",
          "[mech][toy][timing]") {
  // The gate is asked about every control-flow instruction and lets it
  // pass; no pass, no admission limit. The hooks must not perturb timing:
  // every statistic of every launch is bit for bit the baseline's.
  const std::string name = GENERATE(from_range(std::begin(kGoldenWorkloads), std::end(kGoldenWorkloads)));
  const Run base = run(v100("none"), name);
  const Run toy = run(v100("toy", {"mechanisms.toy.rename_pass=false"}), name);
  REQUIRE(base.passed);
  REQUIRE(toy.passed);
  REQUIRE(base.records.size() == toy.records.size());
  for (size_t i = 0; i < base.records.size(); ++i) {
    INFO(name << " launch " << i);
    CHECK(toy.records[i].variant == "base");
    CHECK(stats::toFlatJson(*toy.records[i].gpu) == stats::toFlatJson(*base.records[i].gpu));
    REQUIRE(toy.records[i].mechanisms.size() == 1);
  }
  // Both are the recorded baseline, bit for bit.
  std::ifstream in(goldenPath(name));
  REQUIRE(in.good());
  const nlohmann::json golden = nlohmann::json::parse(in);
  const std::string base_diff = differences(launchesFlat(base), golden);
  INFO("baseline vs " << goldenPath(name).string() << ":\n" << base_diff);
  CHECK(base_diff.empty());
  // The gate saw each control-flow warp instruction issue exactly once.
  uint64_t gated = 0;
  for (const auto& r : toy.records) gated += stat(*r.mechanisms[0], "toy.gated_issues");
  CHECK(gated == controlFlow(toy.totals));
  CHECK(gated > 0);
}

TEST_CASE("toy: a gate that changes nothing leaves fetch and dual issue as they were",
          "[mech][toy][timing]") {
  // Deeper I-buffers behind a slower I-cache than any configuration's, so
  // that a fill arriving while its warp waits on the scoreboard leaves room
  // for the next one (a mechanism's scoreboard-wait path once took it, the
  // baseline's did not: 3 cycles on sgemm), and dual issue, which a gate
  // that only observes must not break up (IssueGate::holdsPair).
  const std::vector<std::string> sets = {"pipeline.ibuffer_depth=4", "l1i.l0_size_kb=0", "l1i.latency=20",
                                         "pipeline.dual_issue=true"};
  const Run base = run(v100("none", sets), "sgemm");
  std::vector<std::string> toy_sets = sets;
  toy_sets.push_back("mechanisms.toy.rename_pass=false");
  const Run toy = run(v100("toy", toy_sets), "sgemm");
  REQUIRE(base.passed);
  REQUIRE(toy.passed);
  REQUIRE(base.records.size() == toy.records.size());
  for (size_t i = 0; i < base.records.size(); ++i) {
    INFO("launch " << i);
    CHECK(toy.records[i].cycles == base.records[i].cycles);
    CHECK(stats::toFlatJson(*toy.records[i].gpu) == stats::toFlatJson(*base.records[i].gpu));
  }
  CHECK(stat(*base.records[0].gpu, "gpu.sm.issue.dual_issues") > 0);
}

TEST_CASE("toy: the launch runs the variant its pass compiled, and the output is still right",
          "[mech][toy][timing]") {
  const Run toy = run(v100("toy"), "sgemm");
  CHECK(toy.passed);
  INFO(toy.detail);
  REQUIRE(!toy.records.empty());
  CHECK(toy.records[0].variant == "toy");
  CHECK(toy.records[0].cycles > 0);
}

TEST_CASE("toy: admission is decided per launch by the mechanism", "[mech][toy][timing]") {
  // One SM, so that saxpy's 64 blocks of 256 threads queue for it.
  const Run base = run(v100("none", {"gpu.num_sms=1"}), "saxpy");
  const Run one = run(v100("toy", {"gpu.num_sms=1", "mechanisms.toy.blocks_per_sm=1"}), "saxpy");
  REQUIRE(base.passed);
  REQUIRE(one.passed);
  REQUIRE(!base.records.empty());
  CHECK(base.records[0].blocks_per_sm > 1);
  CHECK(one.records[0].blocks_per_sm == 1);
  CHECK(stat(*one.records[0].gpu, "gpu.sm.max_resident_blocks") == 1);
  CHECK(stat(*base.records[0].gpu, "gpu.sm.max_resident_blocks") == base.records[0].blocks_per_sm);
  CHECK(one.records[0].cycles > base.records[0].cycles);
}

TEST_CASE("toy: traps spill before each call and fill after its frame, through the LDST unit and the L1D",
          "[mech][toy][timing][trap]") {
  const Run base = run(v100("none"), "fib");
  const Run toy = run(v100("toy", {"mechanisms.toy.rename_pass=false", "mechanisms.toy.trap_regs=3"}), "fib");
  REQUIRE(base.passed);
  REQUIRE(toy.passed);
  const uint64_t traps = total(toy, "toy.traps", true);
  const uint64_t calls = total(toy, "toy.gated_issues", true);  // bra/call/ret/exit, a bound
  CHECK(traps > 0);
  CHECK(traps % 2 == 0);  // one before each call, one after its frame
  CHECK(traps < calls);
  CHECK(total(toy, "toy.trap_ops_done", true) == 3 * traps);
  CHECK(total(toy, "gpu.sm.issue.trap_ops") == 3 * traps);
  CHECK(total(toy, "gpu.sm.ldst.trap_stores") == 3 * traps / 2);
  CHECK(total(toy, "gpu.sm.ldst.trap_loads") == 3 * traps / 2);
  // The L1D sees them as local stores and loads.
  CHECK(total(toy, "gpu.l1d.accesses_by_kind") == total(base, "gpu.l1d.accesses_by_kind") + 3 * traps);
  CHECK(total(toy, "gpu.sm.warp_instrs") == total(base, "gpu.sm.warp_instrs"));
  CHECK(toy.totals.cycles > base.totals.cycles);
}

TEST_CASE("toy: an activation hook holds warps entering a two-level scheduler's pool", "[mech][toy][timing]") {
  const std::vector<std::string> two_level = {"sm.scheduler=two_level"};
  const Run base = run(v100("none", two_level), "sgemm");
  std::vector<std::string> sets = two_level;
  sets.push_back("mechanisms.toy.rename_pass=false");
  sets.push_back("mechanisms.toy.activation_hold=30");
  const Run toy = run(v100("toy", sets), "sgemm");
  REQUIRE(base.passed);
  REQUIRE(toy.passed);
  const uint64_t act = total(toy, "toy.activations", true);
  CHECK(act > 0);
  CHECK(act == total(toy, "gpu.sm.issue.activations"));
  CHECK(total(toy, "toy.deactivations", true) == total(toy, "gpu.sm.issue.deactivations"));
  CHECK(toy.totals.cycles > base.totals.cycles);
}

TEST_CASE("toy: a register-file level with banks of its own serves every operand read", "[mech][toy][timing]") {
  const Run base = run(v100("none"), "sgemm");
  const Run toy = run(v100("toy", {"mechanisms.toy.rename_pass=false", "mechanisms.toy.rf_cache=true",
                                   "mechanisms.toy.rf_cache_banks=2", "mechanisms.toy.rf_cache_latency=6"}),
                      "sgemm");
  REQUIRE(base.passed);
  REQUIRE(toy.passed);
  // Every read the baseline's banks served, the level served instead.
  const uint64_t reads = total(base, "gpu.sm.opcoll.rf_reads");
  CHECK(reads > 0);
  CHECK(total(toy, "toy.level_reads", true) == reads);
  CHECK(total(toy, "gpu.sm.opcoll.rf_reads") == 0);
  CHECK(total(toy, "toy.level_writes", true) == total(toy, "gpu.sm.opcoll.rf_writes"));
  CHECK(total(toy, "toy.level_conflict_cycles", true) > 0);  // 2 banks, 1 port each
  CHECK(toy.totals.cycles > base.totals.cycles);
}

TEST_CASE("toy: ISA extensions: its own instruction before every call, its control field on the call",
          "[mech][toy][timing][isa]") {
  const Run base = run(v100("none"), "fib");
  const Run toy = run(v100("toy", {"mechanisms.toy.rename_pass=false", "mechanisms.toy.mark_pass=true"}), "fib");
  REQUIRE(base.passed);
  REQUIRE(toy.passed);
  REQUIRE(!toy.records.empty());
  CHECK(toy.records[0].variant == "toy");
  const uint64_t calls = toy.totals.warp_instrs_by_op[size_t(ptx::Op::Call)];
  const uint64_t marks = toy.totals.warp_instrs_by_op[size_t(ptx::Op::Ext)];
  CHECK(calls > 0);
  CHECK(marks == calls);  // one before every call, executed whenever the call is
  CHECK(base.totals.warp_instrs_by_op[size_t(ptx::Op::Ext)] == 0);
  CHECK(total(toy, "toy.marks_issued", true) == marks);  // the gate flagged and saw each
  CHECK(total(toy, "gpu.sm.warp_instrs") == total(base, "gpu.sm.warp_instrs") + marks);

  // The listing shows both: the mark, and the call's control field.
  const auto mechs = mech::instantiate(v100("toy", {"mechanisms.toy.rename_pass=false", "mechanisms.toy.mark_pass=true"}));
  const std::vector<backend::Variant> variants = mechs.at(0)->variants();
  REQUIRE(variants.size() == 1);
  backend::CompileOptions co;
  co.variant = &variants[0];
  const std::string listing = ptx::printModule(
      backend::compileModule(ptx::parseAndLink(workloadModules("fib")), co).machine);
  CHECK(listing.find("\tmark ") != std::string::npos);
  CHECK(listing.find("call.uni _Z3fibj; // {toy.tag=1}") != std::string::npos);
}

TEST_CASE("ISA extension tables: instructions and control fields by name, checked", "[mech][isa]") {
  mech::registerMechanisms();
  uint16_t id = 0;
  REQUIRE(ptx::findExtOp("toy.mark", &id) != nullptr);
  CHECK(ptx::extOp(id).mnemonic == "mark");
  CHECK(ptx::registerExtOp(ptx::extOp(id)) == id);  // the same again: the same entry
  ptx::ExtOpDesc other = ptx::extOp(id);
  other.timing = ptx::ExtTiming::Ldst;
  CHECK_THROWS_WITH(ptx::registerExtOp(other), Catch::Contains("registered twice"));
  CHECK_THROWS_WITH(ptx::registerExtOp({"mark", "mark", "", ptx::ExtTiming::Issue, 1}),
                    Catch::Contains("<mechanism>.<name>"));
  CHECK_THROWS_AS(ptx::extOp(0), Error);
  CHECK_THROWS_WITH(ptx::makeExtInstr(id, {1, 2}), Catch::Contains("at most 1"));
  const ptx::Instr m = ptx::makeExtInstr(id, {7});
  CHECK(m.op == ptx::Op::Ext);
  CHECK(m.src[0].imm == 7);
  // Timed where its entry says: an issue slot of the integer pipeline.
  CHECK(sm::classifyOp(m).unit == sm::UnitType::INT);

  const ptx::ControlField tag = ptx::registerControlField("toy.tag", 2);
  CHECK(tag.bits == 2);
  ptx::Instr in;
  tag.set(in, 3);
  CHECK(tag.get(in) == 3);
  CHECK_THROWS_WITH(tag.set(in, 4), Catch::Contains("does not fit"));
  CHECK(ptx::spellControl(in.ctrl) == "{toy.tag=3}");
  CHECK(ptx::spellControl(0).empty());
  CHECK_THROWS_WITH(ptx::registerControlField("toy.tag", 3), Catch::Contains("registered twice"));
  CHECK_THROWS_WITH(ptx::registerControlField("other.wide", 32), Catch::Contains("bits left"));
}

TEST_CASE("toy: traps need the gate", "[mech][toy]") {
  // A configuration error naming both keys, before anything runs.
  CHECK_THROWS_WITH(v100("toy", {"mechanisms.toy.trap_regs=2", "mechanisms.toy.gate=false"}),
                    Catch::Contains("keys 'mechanisms.toy.trap_regs' and 'mechanisms.toy.gate': traps need the gate"));
}

// Rewrites the golden files from the current baseline (hidden: run it by
// name when a change to the timing model is meant to move the statistics).
TEST_CASE("toy: update the golden statistics", "[.update-golden]") {
  for (const char* name : kGoldenWorkloads) {
    const Run base = run(v100("none"), name);
    REQUIRE(base.passed);
    std::filesystem::create_directories(goldenPath(name).parent_path());
    std::ofstream(goldenPath(name)) << launchesFlat(base).dump(1) << "\n";
  }
}
