// Shared by the mechanism tests: the V100 configuration with a mechanism
// selected, one workload run on a device under timing, and statistics
// summed over a run's launches.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "config/config_io.h"
#include "mech/mechanism.h"
#include "ptx/ir.h"
#include "runtime/runtime.h"
#include "stats/stats.h"
#include "workloads/workload.h"

namespace rfsim::test {
// An inline namespace of its own: the GPU tests include this header beside
// sm_test_util.h's, whose Run and workloadModules have the same names, and
// one binary linking both must not merge them (an ODR violation that
// corrupted memory).
inline namespace mech_util {

inline config::GpuConfig v100(const std::string& mech, const std::vector<std::string>& sets = {}) {
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

// A workload's PTX modules: its kernels' unit and the units it links
// (ptx/link.h), as rfsim run loads them.
inline std::vector<std::filesystem::path> workloadModules(const std::string& name) {
  const workloads::Workload* w = workloads::find(name);
  REQUIRE(w != nullptr);
  std::vector<std::filesystem::path> files;
  for (const std::string& m : w->modules()) files.push_back(std::filesystem::path(RFSIM_SOURCE_DIR) / m);
  return files;
}

// The workloads with tag `tag`, in the registry's order.
inline std::vector<std::string> tagged(const std::string& tag) {
  std::vector<std::string> names;
  for (const auto& w : workloads::all())
    if (std::find(w.tags.begin(), w.tags.end(), tag) != w.tags.end()) names.push_back(w.name);
  return names;
}

// One workload on one device under timing, with the mechanisms `cfg` enables.
inline Run run(const config::GpuConfig& cfg, const std::string& name) {
  const workloads::Workload* w = workloads::find(name);
  REQUIRE(w != nullptr);
  std::vector<std::unique_ptr<mech::Mechanism>> mechs = mech::instantiate(cfg);
  rt::DeviceOptions o;
  o.timing = true;
  o.gpu = &cfg;
  o.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
  for (auto& m : mechs) o.mechanisms.push_back(m.get());
  rt::Device dev(o);
  dev.loadModules(workloadModules(name));
  const workloads::Check check = w->run(dev, workloads::Size::Small);
  Run r;
  r.passed = check.passed;
  r.detail = check.detail;
  r.totals = dev.totals();
  r.records = dev.takeLaunchRecords();
  return r;
}

// Warp instructions of the control-flow kinds a gate may flag (bra, call, ret, exit).
inline uint64_t controlFlow(const rt::LaunchStats& t) {
  uint64_t n = 0;
  for (ptx::Op op : {ptx::Op::Bra, ptx::Op::Call, ptx::Op::Ret, ptx::Op::Exit})
    n += t.warp_instrs_by_op[static_cast<size_t>(op)];
  return n;
}

inline nlohmann::json flatOf(const stats::Group& g) { return stats::toFlatJson(g); }

// Sums statistic `key` (a scalar, or every entry of a vector) over a run's
// launches: of the GPU, or (mechanism) of the launch's group of mechanism
// `mech` (its first mechanism's when `mech` is empty).
inline uint64_t total(const Run& r, const std::string& key, bool mechanism = false, const std::string& mech = "") {
  uint64_t n = 0;
  for (const auto& rec : r.records) {
    const stats::Group* g = rec.gpu.get();
    if (mechanism) {
      g = rec.mechanisms.at(0).get();
      for (const auto& m : rec.mechanisms)
        if (m->name() == mech) g = m.get();
      REQUIRE((mech.empty() || g->name() == mech));
    }
    const nlohmann::json j = flatOf(*g);
    REQUIRE(j.contains(key));
    if (j[key].is_object() || j[key].is_array())  // a vector: its entries
      for (const auto& v : j[key]) n += v.get<uint64_t>();
    else
      n += j[key].get<uint64_t>();
  }
  return n;
}

// Every GPU statistic of every launch of a run (golden files), and with
// `mechanism` the launch's first mechanism group's too.
inline nlohmann::json launchesFlat(const Run& r, bool mechanism = false) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& rec : r.records) {
    nlohmann::json l = stats::toFlatJson(*rec.gpu);
    if (mechanism && !rec.mechanisms.empty()) l.update(stats::toFlatJson(*rec.mechanisms.at(0)));
    j.push_back(l);
  }
  return j;
}

// The keys whose values differ between two launchesFlat(), for a failure message.
inline std::string differences(const nlohmann::json& got, const nlohmann::json& want) {
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

}  // namespace mech_util
}  // namespace rfsim::test
