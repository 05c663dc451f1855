// Per-launch variants and occupancy (runtime.cpp, Device::launch): a
// mechanism compiles a second variant of a module that needs more registers
// per thread and picks, launch by launch, which one runs; each launch
// allocates the registers and admits the blocks of the variant it runs, and
// both give the CPU reference's output.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/mfunction.h"
#include "config/config_io.h"
#include "mech/mechanism.h"
#include "ptx/machine.h"
#include "runtime/runtime.h"
#include "workloads/workload.h"

using namespace rfsim;

namespace {

bool hasCalls(const ptx::Function& fn) {
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs)
      if (in.op == ptx::Op::Call) return true;
  return false;
}

// "wide": R2:R3 and R60:R61 trade places in every kernel without calls, so
// the kernel now needs 62 registers per thread.
void widen(ptx::Function& fn, backend::SlotValues&, const backend::MachinePassContext&) {
  if (!fn.is_entry || hasCalls(fn) || fn.machine_regs >= 60) return;
  auto swap = [](uint32_t r) -> uint32_t {
    if (r == 2 || r == 3) return r + 58;
    if (r == 60 || r == 61) return r - 58;
    return r;
  };
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      backend::forEachSlot(in, fn, [&](const backend::Slot& s) {
        if (*s.reg < ptx::mach::kRZ) *s.reg = swap(*s.reg);
      });
}

// Runs the base variant on even launches, "wide" on odd ones.
class Alternate final : public mech::Mechanism {
 public:
  std::string name() const override { return "alternate"; }
  std::vector<backend::Variant> variants() const override {
    backend::Variant v;
    v.name = "wide";
    v.description = "R2:R3 moved to R60:R61";
    v.post.push_back({"alternate.widen", widen});
    return {v};
  }
  std::string chooseVariant(const mech::LaunchInfo& info, const mech::VariantTable&) override {
    return info.launch_index % 2 ? "wide" : "base";
  }
};

}  // namespace

TEST_CASE("launch variants: two variants of one kernel, each launch with its own registers and occupancy",
          "[mech][timing]") {
  // stencil3d launches the same kernel twice (ping-pong buffers).
  const config::GpuConfig cfg = config::loadConfig(std::string(RFSIM_SOURCE_DIR) + "/configs/v100.yaml");
  Alternate alt;
  rt::DeviceOptions o;
  o.timing = true;
  o.gpu = &cfg;
  o.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
  o.mechanisms.push_back(&alt);
  rt::Device dev(o);
  const workloads::Workload* w = workloads::find("stencil3d");
  REQUIRE(w != nullptr);
  std::vector<std::filesystem::path> files;  // the workload's modules, linked
  for (const std::string& m : w->modules()) files.push_back(std::filesystem::path(RFSIM_SOURCE_DIR) / m);
  dev.loadModules(files);
  const workloads::Check check = w->run(dev, workloads::Size::Small);
  INFO(check.detail);
  CHECK(check.passed);
  const std::vector<rt::LaunchRecord> recs = dev.takeLaunchRecords();
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].kernel == recs[1].kernel);
  CHECK(recs[0].variant == "base");
  CHECK(recs[1].variant == "wide");
  CHECK(recs[0].regs_per_thread < 60);
  CHECK(recs[1].regs_per_thread == 62 + 2);  // R61 the highest, and the 2 ptxas reserves
  // More registers per thread, fewer blocks fit (64K registers per SM).
  CHECK(recs[1].blocks_per_sm < recs[0].blocks_per_sm);
}
