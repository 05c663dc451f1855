// The CARS rename unit in the SM's register-index path (RTL in the loop):
// the unit alone (one Launch per cycle, Base + index), and in the SM on saxpy
// with the Verilated RTL in lockstep with the reference.
#include <catch2/catch.hpp>

#include <functional>

#include "common/error.h"
#include "config/gpu_config.h"
#include "mech/cars/rename_index_path.h"
#include "mech/cars/rename_lockstep.h"
#include "mech/cars/rename_ref.h"
#include "gpu/gpu_top.h"
#include "gpu/kernel_runner.h"
#include "mem/tlm/hierarchy.h"
#include "../../sm_core/sm_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

cars::RenameParams unitParams() { return cars::RenameParams::forSm(64, 2048, 4); }

// A rename unit that adds one to the index of rename port 0 from the
// `after`-th evaluation on: a wrong translation the path must catch.
class OffByOne final : public cars::RenameUnit {
 public:
  explicit OffByOne(uint64_t after) : ref_(unitParams()), after_(after) {}
  const cars::RenameParams& params() const override { return ref_.params(); }
  void evaluate(const cars::Inputs& in, cars::Outputs& out) override {
    ref_.evaluate(in, out);
    if (++n_ > after_) out.rd_idx[0] = (out.rd_idx[0] + 1) & 2047;
  }
  void tick() override { ref_.tick(); }
  void reset() override { ref_.reset(); }

 private:
  cars::RenameRef ref_;
  uint64_t after_, n_ = 0;
};

struct Run {
  uint64_t cycles = 0;
  nlohmann::json stats;
  std::vector<std::vector<uint8_t>> out;
};

Run runSaxpy(cars::RenameIndexPath* path) {
  // The unit under test is the SM's; a fixed memory latency keeps these
  // runs free of the SystemC memory hierarchy.
  config::GpuConfig cfg;
  cfg.sim.memory = config::MemoryModel::Fixed;
  // Instruction fetch out of the way: the warps' first issue waits for
  // their Bases, not for cold I-cache lines.
  cfg.pipeline.l1i_miss_latency = 1;
  Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
  const Launch l = saxpyLaunch(ld.mem, 4096, {4, 1, 1});
  const func::LaunchSetup setup = ld.prog->setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
  rt::LaunchStats ls;
  stats::Group root(nullptr, "root");
  Run t;
  {
    // One SM (the unit is the SM's).
    gpu::KernelRunner kr(cfg, *ld.prog, setup, ls, ld.tree_regs, &root, {gpu::KernelRunner::Mode::Loop, 1});
    if (path) {
      sm::SmHooks h;
      h.allocator = path;
      h.translator = path;
      kr.sm().install(h);
    }
    t.cycles = kr.run().cycles;
    kr.sm().syncStats();
    t.stats = stats::toFlatJson(root);
  }
  t.out = readOutputs(ld.mem, l);
  return t;
}

uint64_t sumOf(const nlohmann::json& flat, const std::string& key) {
  uint64_t s = 0;
  for (const auto& v : flat.at(key)) s += v.get<uint64_t>();
  return s;
}

}  // namespace

TEST_CASE("index path: one Launch per cycle, a warp is ready once its Launch took effect", "[cars][rtl]") {
  cars::RenameIndexPath path(std::make_unique<cars::RenameRef>(unitParams()));
  uint32_t base[3];
  for (uint32_t w = 0; w < 3; ++w) REQUIRE(path.allocate(0, w, w, 40, base[w]));
  CHECK(base[1] == 40);
  CHECK(base[2] == 80);
  for (uint32_t w = 0; w < 3; ++w) CHECK_FALSE(path.ready(w));
  CHECK_THROWS_WITH(path.translate(0, 5), Catch::Contains("before its Launch"));
  path.endCycle(0);
  CHECK(path.ready(0));
  CHECK_FALSE(path.ready(1));
  CHECK(path.translate(0, 5) == 5);
  path.endCycle(1);
  path.endCycle(2);
  CHECK(path.ready(2));
  CHECK(path.translate(2, 7) == 87);
  CHECK(path.translate(1, 39) == 79);
  CHECK(path.stats().launch_ops.get() == 3);
  CHECK(path.stats().launch_wait.get() == 0 + 1 + 2 - 0);  // queued before cycle 0: waited 0, 1, 2 cycles
  // More renames in a cycle than ports: counted, still correct.
  for (uint32_t r = 0; r < 6; ++r) CHECK(path.translate(1, r) == 40 + r);
  path.endCycle(3);
  CHECK(path.stats().port_overflow_cycles.get() == 1);
  CHECK(path.stats().max_renames.get() == 8);
}

TEST_CASE("index path: a wrong index from the unit stops the run with warp, register and rows", "[cars][rtl]") {
  cars::RenameIndexPath path(std::make_unique<OffByOne>(50));
  CHECK_THROWS_WITH(runSaxpy(&path), Catch::Contains("renamed to row") && Catch::Contains("Base"));
}

TEST_CASE("index path: saxpy on the SM with the Verilated rename unit in lockstep", "[cars][rtl][sm]") {
  const Run base = runSaxpy(nullptr);
  cars::RenameIndexPath rtl(std::make_unique<cars::RenameLockstep>(unitParams()));
  const Run r = runSaxpy(&rtl);
  CHECK(r.out == base.out);
  auto& ls = dynamic_cast<cars::RenameLockstep&>(rtl.unit());
  CHECK(ls.comparisons() == rtl.stats().evaluations.get());
  // Clocked every SM cycle the SM simulated: with nothing on its operation
  // port the unit lets an idle SM skip cycles (nextEventCycle).
  CHECK(rtl.stats().cycles.get() <= r.cycles);
  CHECK(rtl.stats().cycles.get() > r.cycles / 2);
  CHECK(rtl.stats().launch_ops.get() == 32);    // 4 blocks x 8 warps
  const uint64_t accesses = sumOf(r.stats, "root.sm0.opcoll.rf_reads") + sumOf(r.stats, "root.sm0.opcoll.rf_writes");
  CHECK(accesses > 0);
  CHECK(rtl.stats().renames.get() >= accesses);  // refused write-backs are renamed again
  // Writing the warps' Bases one per cycle delays some warps' first issue;
  // the run stays within a few percent of the baseline.
  CHECK(r.stats.at("root.sm0.issue.regalloc_stalls").get<uint64_t>() > 0);
  CHECK(double(r.cycles) == Approx(double(base.cycles)).epsilon(0.05));

  // The reference alone in the path gives the same cycles: the timing does
  // not depend on whether the RTL is in the loop.
  cars::RenameIndexPath ref(std::make_unique<cars::RenameRef>(unitParams()));
  const Run rr = runSaxpy(&ref);
  CHECK(rr.cycles == r.cycles);
  CHECK(rr.stats == r.stats);
}
