// The toy mechanism end to end (mech/toy): a variant compiled by a pass and
// chosen per launch, an issue gate and launch hook in every SM, an admission
// limit, per-launch statistics -- all on real workloads under timing, each
// output checked against its CPU reference.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "config/config_io.h"
#include "mech/mechanism.h"
#include "ptx/ir.h"
#include "runtime/runtime.h"
#include "stats/stats.h"
#include "workloads/workload.h"

using namespace rfsim;

namespace {

config::GpuConfig v100(const std::string& mech, const std::vector<std::string>& sets = {}) {
  config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml");
  mech::select(c, mech);
  for (const auto& s : sets) config::applyOverride(c, s);
  config::validate(c, "test");
  return c;
}

struct Run {
  bool passed = false;
  std::string detail;
  rt::LaunchStats totals;
  std::vector<rt::LaunchRecord> records;
};

// One workload on one device under timing, with the mechanisms `cfg` enables.
Run run(const config::GpuConfig& cfg, const std::string& name) {
  const workloads::Workload* w = workloads::find(name);
  REQUIRE(w != nullptr);
  std::vector<std::unique_ptr<mech::Mechanism>> mechs = mech::instantiate(cfg);
  rt::DeviceOptions o;
  o.timing = true;
  o.gpu = &cfg;
  o.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
  for (auto& m : mechs) o.mechanisms.push_back(m.get());
  rt::Device dev(o);
  dev.loadModule(std::filesystem::path(RFSIM_SOURCE_DIR) / w->ptx);
  const workloads::Check check = w->run(dev, workloads::Size::Small);
  Run r;
  r.passed = check.passed;
  r.detail = check.detail;
  r.totals = dev.totals();
  r.records = dev.takeLaunchRecords();
  return r;
}

uint64_t controlFlow(const rt::LaunchStats& t) {
  uint64_t n = 0;
  for (ptx::Op op : {ptx::Op::Bra, ptx::Op::Call, ptx::Op::Ret, ptx::Op::Exit})
    n += t.warp_instrs_by_op[static_cast<size_t>(op)];
  return n;
}

// The golden statistics of a workload's launches on v100: every GPU
// statistic of every launch, as recorded when the file was written. Their
// values are decisions: a change to the timing model that moves any of them
// must update the file in the same commit, deliberately, with
//   build/tests/test_mech "[.update-golden]"
std::filesystem::path goldenPath(const std::string& workload) {
  return std::filesystem::path(RFSIM_SOURCE_DIR) / "tests" / "mech" / "golden" / (workload + ".v100.json");
}

nlohmann::json launchesFlat(const Run& r) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& rec : r.records) j.push_back(stats::toFlatJson(*rec.gpu));
  return j;
}

// The keys whose values differ, for the failure message.
std::string differences(const nlohmann::json& got, const nlohmann::json& want) {
  std::string d;
  if (got.size() != want.size()) return "launch count " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i)
    for (const auto& [k, v] : want[i].items())
      if (!got[i].contains(k) || got[i][k] != v)
        d += "launch " + std::to_string(i) + " " + k + ": " + (got[i].contains(k) ? got[i][k].dump() : "missing") +
             " (golden " + v.dump() + ")\n";
  for (size_t i = 0; i < got.size(); ++i)
    for (const auto& [k, v] : got[i].items())
      if (!want[i].contains(k)) d += "launch " + std::to_string(i) + " " + k + ": not in the golden file\n";
  return d;
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
