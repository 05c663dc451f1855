// The toy mechanism end to end (mech/toy): a variant compiled by a pass and
// chosen per launch, an issue gate and launch hook in every SM, an admission
// limit, per-launch statistics -- all on real workloads under timing, each
// output checked against its CPU reference.
#include <catch2/catch.hpp>

#include <filesystem>
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
  const std::string name = GENERATE(as<std::string>{}, "saxpy", "sgemm", "fib");
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
