// Functional register state held by physical row (SmHooks::physical_rows,
// sm/core/phys_regs.h): with a translator that gives each warp its own
// rows the kernels' output is right and the cycles are those of the same
// translator without it; with a translator that lets two warps share rows
// the output is wrong (the functional values really go through the rows
// the translator named); a row outside the register file is an error naming
// the warp and the register.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>

#include "common/error.h"

#include "config/gpu_config.h"
#include "gpu/kernel_runner.h"
#include "sm/core/hooks.h"
#include "sm_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

// Base + index over its own table of bases, with `alias`: every warp uses
// the same base (rows shared by all warps: a renaming error).
class Rows final : public sm::RegTranslator, public sm::WarpRegAllocator {
 public:
  explicit Rows(bool alias = false, uint32_t shift = 0) : alias_(alias), shift_(shift) {}
  uint32_t translate(uint32_t warp, uint32_t reg) override {
    ++calls;
    return (alias_ ? shift_ : bases_[warp]) + reg;
  }
  bool canLaunch(uint32_t, uint32_t) override { return true; }
  bool allocate(uint32_t, uint32_t slot, uint32_t, uint32_t rpt, uint32_t& base) override {
    base = slot * rpt + shift_;
    bases_[slot] = base;
    return true;
  }
  void release(uint32_t) override {}
  uint64_t calls = 0;

 private:
  bool alias_;
  uint32_t shift_;
  std::map<uint32_t, uint32_t> bases_;
};

struct Out {
  uint64_t cycles = 0;
  std::vector<std::vector<uint8_t>> out;
};

Out runSaxpy(const std::function<void(sm::Sm&)>& install) {
  Loaded ld(kWl + "saxpy/saxpy.ptx", "saxpy");
  const int n = 4096;
  Launch l{"saxpy", {4, 1, 1}, {256, 1, 1}, 0, {}, {}};
  const uint64_t x = buffer(ld.mem, bytesOf<float>(n, [](size_t i) { return float(i % 29) * 0.5f; }));
  const uint64_t y = buffer(ld.mem, bytesOf<float>(n, [](size_t i) { return float(i % 7) - 3; }));
  l.args = {arg(n), arg(2.5f), arg(x), arg(y)};
  l.outputs = {{y, n * 4}};
  const func::LaunchSetup setup = ld.prog->setupLaunch(l.kernel, l.grid, l.block, l.args, l.dynamic_shared);
  rt::LaunchStats ls;
  stats::Group root(nullptr, "root");
  const config::GpuConfig cfg;  // the runner keeps a reference
  Out o;
  {
    gpu::KernelRunner kr(cfg, *ld.prog, setup, ls, ld.tree_regs, &root,
                         {gpu::KernelRunner::Mode::Loop, 1});
    install(kr.sm());
    o.cycles = kr.run().cycles;
  }
  o.out = readOutputs(ld.mem, l);
  return o;
}

}  // namespace

TEST_CASE("physical registers: the kernel runs on the rows the translator names", "[physregs]") {
  Rows ref_rows, phys_rows, alias(true);
  const Out ref = runSaxpy([&](sm::Sm& sm) {
    sm::SmHooks h;
    h.allocator = &ref_rows;
    h.translator = &ref_rows;
    sm.install(h);
  });
  const Out phys = runSaxpy([&](sm::Sm& sm) {
    sm::SmHooks h;
    h.allocator = &phys_rows;
    h.translator = &phys_rows;
    h.physical_rows = 2048;
    sm.install(h);
    CHECK(sm.registerRows().count() == 2048);
  });
  // Same output and the same cycles: the values moved, the timing did not.
  CHECK(phys.out == ref.out);
  CHECK(phys.cycles == ref.cycles);
  CHECK(phys_rows.calls > 0);

  // Every warp on the same rows: their values overwrite each other, so the
  // output is wrong or an address is (an access out of bounds).
  bool broken = false;
  try {
    const Out wrong = runSaxpy([&](sm::Sm& sm) {
      sm::SmHooks h;
      h.allocator = &alias;
      h.translator = &alias;
      h.physical_rows = 2048;
      sm.install(h);
    });
    broken = wrong.out != ref.out;
  } catch (const Error& e) {
    broken = std::string(e.what()).find("out of bounds") != std::string::npos;
  }
  CHECK(broken);
}

TEST_CASE("physical registers: a row outside the register file, or the wrong order of installation, is an error",
          "[physregs]") {
  Rows far(false, 5000);
  CHECK_THROWS_WITH(runSaxpy([&](sm::Sm& sm) {
                      sm::SmHooks h;
                      h.allocator = &far;
                      h.translator = &far;
                      h.physical_rows = 2048;
                      sm.install(h);
                    }),
                    Catch::Contains("register translation of warp slot") && Catch::Contains("R1 maps to row 50") &&
                        Catch::Contains("2048 rows"));
  CHECK_THROWS_WITH(runSaxpy([&](sm::Sm& sm) {
                      sm::SmHooks h;
                      h.physical_rows = 2048;
                      sm.install(h);
                    }),
                    Catch::Contains("physical registers need a register translator"));
}
