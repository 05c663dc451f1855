// gpu::Simulation: a simulation owns its GPU (its own SystemC kernel, GPU
// top, L2 and simulated time). Two simulations in one process -- one after
// the other or interleaved launch by launch, of different chips -- give
// exactly the statistics they give each in a process of its own (a forked
// child here).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_io.h"
#include "gpu/simulation.h"
#include "sm/core/sm_units.h"
#include "mech/mechanism.h"
#include "runtime/runtime.h"
#include "stats/stats.h"
#include "workloads/workload.h"

using namespace rfsim;

namespace {

config::GpuConfig v100(const std::vector<std::string>& sets = {}) {
  config::GpuConfig c = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml");
  for (const auto& s : sets) config::applyOverride(c, s);
  config::validate(c, "test");
  return c;
}

// A device running workloads under timing, one launch sequence at a time.
struct Dev {
  explicit Dev(const config::GpuConfig& c) : cfg(c) {
    mech::registerMechanisms();
    mechs = mech::instantiate(cfg);
    rt::DeviceOptions o;
    o.timing = true;
    o.gpu = &cfg;
    o.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
    for (auto& m : mechs) o.mechanisms.push_back(m.get());
    dev = std::make_unique<rt::Device>(o);
  }
  // Runs workload `name` (small) on this device: its module is loaded into
  // the device, so call it once per workload. Every launch's GPU statistics
  // are appended to `out`.
  void run(const std::string& name, nlohmann::json& out) {
    const workloads::Workload* w = workloads::find(name);
    REQUIRE(w != nullptr);
    std::vector<std::filesystem::path> files;  // the workload's modules, linked
    for (const std::string& m : w->modules()) files.push_back(std::filesystem::path(RFSIM_SOURCE_DIR) / m);
    dev->loadModules(files);
    const workloads::Check check = w->run(*dev, workloads::Size::Small);
    CHECK(check.passed);
    for (const auto& rec : dev->takeLaunchRecords()) out.push_back(stats::toFlatJson(*rec.gpu));
  }
  config::GpuConfig cfg;
  std::vector<std::unique_ptr<mech::Mechanism>> mechs;
  std::unique_ptr<rt::Device> dev;
};

// Device A: a V100; device B: a 4-SM chip with another L2 (another shape:
// one process could not have simulated both with one GPU top).
config::GpuConfig chipA() { return v100(); }
config::GpuConfig chipB() { return v100({"gpu.num_sms=4", "l2.num_slices=8", "l2.size_kb=1536", "dram.num_channels=4"}); }

// Device A runs saxpy then sgemm, device B sgemm then saxpy (each device
// keeps its L2 between its two workloads).
nlohmann::json alone(const config::GpuConfig& cfg, const char* first, const char* second) {
  nlohmann::json j = nlohmann::json::array();
  Dev d(cfg);
  d.run(first, j);
  d.run(second, j);
  return j;
}

// The same in a forked child process, returned through a pipe.
nlohmann::json inChild(const config::GpuConfig& cfg, const char* first, const char* second) {
  int fd[2];
  REQUIRE(pipe(fd) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
    std::string s;
    try {
      nlohmann::json j = nlohmann::json::array();
      Dev d(cfg);
      d.run(first, j);
      d.run(second, j);
      s = j.dump();
    } catch (const std::exception& e) {
      s = std::string("ERROR ") + e.what();
    }
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = write(fd[1], s.data() + off, s.size() - off);
      if (n <= 0) break;
      off += size_t(n);
    }
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  std::string s;
  char buf[65536];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) s.append(buf, size_t(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  INFO(s.substr(0, 300));
  REQUIRE(s.rfind("ERROR", 0) != 0);
  return nlohmann::json::parse(s);
}

}  // namespace

TEST_CASE("two simulations in one process give the results of two processes", "[gpu][simulation]") {
  const config::GpuConfig a = chipA(), b = chipB();
  const nlohmann::json proc_a = inChild(a, "saxpy", "sgemm");
  const nlohmann::json proc_b = inChild(b, "sgemm", "saxpy");
  REQUIRE(proc_a.size() >= 2);
  REQUIRE(proc_b.size() >= 2);
  // The two chips are different machines: different results.
  CHECK(proc_a != proc_b);

  SECTION("one after the other") {
    CHECK(alone(a, "saxpy", "sgemm") == proc_a);
    CHECK(alone(b, "sgemm", "saxpy") == proc_b);
    CHECK(alone(a, "saxpy", "sgemm") == proc_a);  // and again: nothing is left over
  }
  SECTION("interleaved, workload by workload") {
    nlohmann::json ja = nlohmann::json::array(), jb = nlohmann::json::array();
    Dev da(a), db(b);
    da.run("saxpy", ja);
    db.run("sgemm", jb);
    da.run("sgemm", ja);
    db.run("saxpy", jb);
    CHECK(ja == proc_a);
    CHECK(jb == proc_b);
  }
}

TEST_CASE("the GPU's module hierarchy names every SM unit, and each unit's statistics are under its name",
          "[gpu][simulation][hierarchy]") {
  mech::registerMechanisms();
  config::GpuConfig cfg = v100();
  mech::select(cfg, "toy");
  config::applyOverride(cfg, "mechanisms.toy.gate=true");
  std::vector<std::unique_ptr<mech::Mechanism>> mechs = mech::instantiate(cfg);
  std::vector<mech::Mechanism*> ptrs;
  for (auto& m : mechs) ptrs.push_back(m.get());
  gpu::Simulation sim(mech::smUnitsOf(ptrs));
  const nlohmann::json h = gpu::describeHierarchy(sim, cfg);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& e : h) by_name[e["name"].get<std::string>()] = e;
  for (const char* n : {"gpu", "gpu.mem", "gpu.mem.icnt", "gpu.mem.l2_slice63", "gpu.mem.dram31", "gpu.sm0",
                        "gpu.sm79", "gpu.sm3.fetch", "gpu.sm3.issue", "gpu.sm3.opcoll", "gpu.sm3.simt",
                        "gpu.sm3.exec", "gpu.sm3.ldst", "gpu.sm79.ldst", "gpu.sm0.toy_gate", "gpu.sm79.toy_gate"}) {
    INFO(n);
    CHECK(by_name.count(n) == 1);
  }
  CHECK(by_name.count("gpu.sm80") == 0);
  CHECK(by_name.at("gpu.sm3.issue")["kind"] == "rfsim_sm_unit");
  CHECK(by_name.at("gpu.sm0.toy_gate")["stats"] == "mechanisms.toy");

  // Each SM unit's statistics path names a group of a launch's statistics.
  Dev d(cfg);
  nlohmann::json launches = nlohmann::json::array();
  d.run("saxpy", launches);
  REQUIRE(!launches.empty());
  const nlohmann::json& flat = launches[0];
  for (const auto& u : sm::smUnits()) {
    INFO(u.name << ": " << u.stats);
    bool found = false;
    for (auto it = flat.begin(); it != flat.end() && !found; ++it) found = it.key().rfind(u.stats + ".", 0) == 0;
    CHECK(found);
  }
  // Another mechanism set, another hierarchy: no toy unit without the toy.
  gpu::Simulation plain;
  for (const auto& e : gpu::describeHierarchy(plain, v100())) CHECK(e["name"] != "gpu.sm0.toy_gate");
}
