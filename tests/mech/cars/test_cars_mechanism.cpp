// CARS end to end (mech/cars): the push/pop pass and its check, and the
// mechanism on every SM of the V100 under timing -- register values at the
// rows the rename unit names, calls, frame releases, pushes and pops
// through its operation port, the stalled-warp list -- each workload's
// output checked against its CPU reference.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "backend/backend.h"
#include "common/error.h"
#include "mech/cars/cars_passes.h"
#include "mech/mechanism.h"
#include "ptx/isa_ext.h"
#include "ptx/link.h"
#include "ptx/parser.h"
#include "../mech_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

backend::CompiledModule compile(const std::string& workload, const backend::Variant* v) {
  mech::registerMechanisms();
  backend::CompileOptions o;
  o.variant = v;
  return backend::compileModule(ptx::parseAndLink(workloadModules(workload)), o);
}

size_t countRole(const ptx::Module& m, ptx::MRole role) {
  size_t n = 0;
  for (const auto& fn : m.functions)
    for (const auto& bb : fn.blocks)
      for (const auto& in : bb.instrs) n += in.role == role;
  return n;
}

size_t countExt(const ptx::Module& m, const std::string& name) {
  uint16_t id = 0;
  REQUIRE(ptx::findExtOp(name, &id));
  size_t n = 0;
  for (const auto& fn : m.functions)
    for (const auto& bb : fn.blocks)
      for (const auto& in : bb.instrs) n += in.op == ptx::Op::Ext && in.ext == id;
  return n;
}

}  // namespace

TEST_CASE("cars: the pass turns callee-saved spills into pushes and pops, checked", "[mech][cars][pass]") {
  const backend::Variant v = cars::carsVariant();
  const backend::CompiledModule base = compile("deep_calls", nullptr);
  const backend::CompiledModule cars = compile("deep_calls", &v);
  CHECK(countRole(base.machine, ptx::MRole::Save) > 0);
  CHECK(countRole(cars.machine, ptx::MRole::Save) == 0);
  CHECK(countRole(cars.machine, ptx::MRole::Restore) == 0);
  // One push per function that saved, one pop per epilogue.
  size_t saving = 0;
  for (const auto& r : base.functions) saving += !r.entry && !r.callee_saved.empty();
  CHECK(countExt(cars.machine, "cars.push") == saving);
  CHECK(countExt(cars.machine, "cars.pop") >= saving);
  // Calls carry their callee's FRU (level 1..7 push R16-R31: 16; level 8 none).
  const ptx::ControlField fru = ptx::registerControlField(cars::kFruField, cars::kFruBits);
  size_t calls = 0;
  for (const auto& fn : cars.machine.functions)
    for (const auto& bb : fn.blocks)
      for (const auto& in : bb.instrs)
        if (in.op == ptx::Op::Call) {
          ++calls;
          CHECK((fru.get(in) == 16 || fru.get(in) == 0));
        }
  CHECK(calls > 0);
  // Watermarks: the kernel's registers, one frame of the largest function
  // (FRU 16 + its saved RFP), and the deepest path (7 frames of 17).
  const cars::Watermarks wm = cars::watermarksOf(cars, "deep_calls");
  const uint32_t k = wm.kernel_fru;
  CHECK(k == 34);  // with the 2 registers ptxas reserves (backend CompileOptions::reserved_registers)
  CHECK(wm.max_fru == 16);
  CHECK(wm.low() == k + 17);
  CHECK(wm.paperLow() == k + 16);
  CHECK(wm.max_stack_depth == k + 7 * 16);
  CHECK(wm.high() == k + 7 * 17 + 1);  // level 8 has no FRU but holds its caller's RFP

  // A pop one register short leaves a callee-saved register renamed: the
  // checker stops the compilation.
  backend::Variant broken = v;
  broken.post.push_back({"test.short_pop", [](ptx::Function& fn, backend::SlotValues&, const backend::MachinePassContext&) {
                           uint16_t pop = 0;
                           ptx::findExtOp("cars.pop", &pop);
                           for (auto& bb : fn.blocks)
                             for (auto& in : bb.instrs)
                               if (in.op == ptx::Op::Ext && in.ext == pop && in.src[0].imm > 0) {
                                 --in.src[0].imm;
                                 return;
                               }
                         }});
  CHECK_THROWS_WITH(compile("deep_calls", &broken), Catch::Contains("test.short_pop") &&
                                                        Catch::Contains("still pushed"));
}

TEST_CASE("cars: calling workloads run on every SM with their register values at the renamed rows",
          "[mech][cars][timing]") {
  for (const char* w : {"raytrace", "virtual_dispatch"}) {
    INFO(w);
    const Run base = run(v100("none"), w);
    const Run cars = run(v100("cars", {"mechanisms.cars.rtl=false"}), w);
    REQUIRE(base.passed);
    REQUIRE(cars.passed);
    const uint64_t calls = total(cars, "cars.call_ops", true);
    CHECK(calls > 0);
    CHECK(total(cars, "cars.ret_ops", true) == calls);
    CHECK(total(cars, "cars.push_ops", true) == total(cars, "cars.pop_ops", true) + total(cars, "cars.pops_deferred", true));
    // Launch ops: one per warp of the grid.
    CHECK(total(cars, "cars.launch_ops", true) == cars.totals.warps);
    // No ABI spill traffic is left: fewer L1D accesses, fewer instructions.
    CHECK(total(cars, "gpu.l1d.accesses") <= total(base, "gpu.l1d.accesses"));
    CHECK(total(cars, "gpu.sm.warp_instrs") <= total(base, "gpu.sm.warp_instrs"));
  }
  // raytrace saves callee-saved registers: its spills and fills are gone.
  const Run base = run(v100("none"), "raytrace");
  const Run cars = run(v100("cars", {"mechanisms.cars.rtl=false"}), "raytrace");
  CHECK(total(cars, "cars.push_ops", true) > 0);
  CHECK(total(cars, "gpu.l1d.accesses") < total(base, "gpu.l1d.accesses"));
}

TEST_CASE("cars: a kernel without calls whose warps fill the register file exactly (the last warp's empty stack at "
          "row num_regs)",
          "[mech][cars][timing]") {
  // r2_kmeans' point kernel: 32 registers x 64 warps = the 2048 rows of the
  // V100 file; the last warp's Base region ends at the file's end, its
  // stack of 0 registers starts at row 2048, which the unit's 11-bit
  // pointers hold as 0.
  const Run cars = run(v100("cars", {"gpu.num_sms=8"}), "r2_kmeans");
  CHECK(cars.passed);
}

TEST_CASE("cars: on one SM more warps than regions wait in the stalled-warp list and exiting warps release them",
          "[mech][cars][timing]") {
  // gol's warps on one SM at the High watermark: more warps than the
  // register file has regions. (raytrace, once used here, no longer needs
  // that many since its helpers are a unit of their own: render spills what
  // the callee-saved registers cannot hold and its MaxStackDepth fell from
  // 87 to 50 registers, 40 regions for its 24 warps.)
  const Run cars =
      run(v100("cars", {"mechanisms.cars.rtl=false", "gpu.num_sms=1", "mechanisms.cars.allocation=high"}), "gol");
  REQUIRE(cars.passed);
  CHECK(total(cars, "cars.stalled_warps", true) > 0);
  CHECK(total(cars, "cars.granted", true) == total(cars, "cars.stalled_warps", true));
  // The same with the Verilated stalled-warp list (and rename unit) in
  // lockstep: every operation compared, the same cycles.
  const Run rtl =
      run(v100("cars", {"mechanisms.cars.rtl=true", "gpu.num_sms=1", "mechanisms.cars.allocation=high"}), "gol");
  REQUIRE(rtl.passed);
  CHECK(total(rtl, "cars.list_comparisons", true) >= total(rtl, "cars.list_ops", true));
  CHECK(total(rtl, "cars.list_ops", true) == total(cars, "cars.list_ops", true));
  CHECK(total(cars, "cars.list_comparisons", true) == 0);
  CHECK(rtl.totals.cycles == cars.totals.cycles);
}

TEST_CASE("cars: the overflow trap spills the oldest frames to local memory and fills them back on return",
          "[mech][cars][timing][trap]") {
  // At the Low watermark, without the leftover rule, a stack holds one
  // frame of the largest function: fib's recursion and deep_calls' chain of
  // 8 levels go deeper.
  for (const char* w : {"fib", "deep_calls"}) {
    INFO(w);
    const Run cars = run(v100("cars", {"mechanisms.cars.rtl=false", "mechanisms.cars.allocation=low",
                                       "mechanisms.cars.leftover=false"}),
                         w);
    REQUIRE(cars.passed);  // the spilled values came back to the right rows
    const uint64_t traps = total(cars, "cars.overflow_traps", true);
    CHECK(traps > 0);
    CHECK(total(cars, "cars.fill_traps", true) > 0);
    // Every frame spilled is filled back: every warp returns to its kernel.
    const uint64_t spilled = total(cars, "cars.trap_spill_bytes", true);
    CHECK(spilled > 0);
    CHECK(total(cars, "cars.trap_fill_bytes", true) == spilled);
    CHECK(total(cars, "cars.spill_ops", true) == traps);
    // The traffic is real: one 4-byte-per-lane local store per register.
    CHECK(total(cars, "gpu.sm.ldst.trap_stores") * 128 == spilled);
    CHECK(total(cars, "gpu.sm.ldst.trap_loads") * 128 == spilled);
    CHECK(total(cars, "cars.call_ops", true) == total(cars, "cars.ret_ops", true));
  }
}

// With a circular stack the two halves of a 64-bit register pair can be the
// stack's last row and its first (R18 at lo + k - 1, R19 at lo): the
// functional model must reach each half through its own row. It once wrote
// and read the high half in the row after the low one -- outside the stack,
// where another warp's register lives -- so mlchain and mst failed their
// checks at Low on one SM once warps interleaved (with one warp issuing at a
// time they passed).
TEST_CASE("cars: 64-bit register pairs across the circular stack's wrap, with warps interleaving on one SM",
          "[mech][cars][timing][trap]") {
  for (const char* w : {"mlchain", "mst"}) {
    INFO(w);
    std::string why;
    Run r;
    try {
      r = run(v100("cars", {"mechanisms.cars.rtl=false", "mechanisms.cars.allocation=low",
                            "mechanisms.cars.leftover=false", "gpu.num_sms=1"}),
              w);
      why = r.detail;
    } catch (const Error& e) {
      why = e.what();
    }
    INFO(why);
    REQUIRE(r.passed);
    CHECK(total(r, "cars.overflow_traps", true) > 0);
  }
}

TEST_CASE("cars: at a barrier a waiting warp is switched out for a stalled warp of its block and filled back later",
          "[mech][cars][timing][trap]") {
  // pta sums its blocks' counts with a barrier per tree level after the
  // calls. At the High watermark (71 registers per warp) a 116 KB register
  // file holds 13 warps: the fourth block's last warp waits for registers
  // while the rest of its block waits at the barrier.
  const std::vector<std::string> common = {"mechanisms.cars.rtl=false", "gpu.num_sms=1", "regfile.size_kb=116",
                                           "mechanisms.cars.allocation=high", "mechanisms.cars.leftover=false"};
  const Run cars = run(v100("cars", common), "pta");
  REQUIRE(cars.passed);  // the switched-out registers came back at their new rows
  const uint64_t switches = total(cars, "cars.ctx_switches", true);
  CHECK(switches > 0);
  CHECK(total(cars, "cars.ctx_restores", true) == switches);
  const uint64_t saved = total(cars, "cars.ctx_save_bytes", true);
  const uint64_t restored = total(cars, "cars.ctx_restore_bytes", true);
  CHECK(saved > 0);
  // Every save is filled back, but for a switch cancelled after its stores
  // (the barrier opened meanwhile: the warp kept its rows).
  if (total(cars, "cars.ctx_cancelled", true) == 0) CHECK(restored == saved);
  else CHECK(restored < saved);
  // The traffic is real local stores and loads, one per warp-register; no
  // frame overflowed at the High watermark.
  CHECK(total(cars, "cars.overflow_traps", true) == 0);
  CHECK(total(cars, "gpu.sm.ldst.trap_stores") * 128 == saved);
  CHECK(total(cars, "gpu.sm.ldst.trap_loads") * 128 == restored);
  // Each switch gave a stalled warp of the block registers at once.
  CHECK(total(cars, "cars.granted", true) >= switches);
  // Without the context switch, blocks wait until all their warps fit.
  std::vector<std::string> off = common;
  off.push_back("mechanisms.cars.context_switch=false");
  const Run whole = run(v100("cars", off), "pta");
  REQUIRE(whole.passed);
  CHECK(total(whole, "cars.ctx_switches", true) == 0);
  CHECK(total(whole, "cars.stalled_warps", true) == 0);
}

TEST_CASE("cars: the overflow trap with the Verilated rename unit in lockstep on every SM",
          "[mech][cars][timing][trap][rtl]") {
  const Run cars = run(v100("cars", {"mechanisms.cars.rtl=true", "mechanisms.cars.allocation=low",
                                     "mechanisms.cars.leftover=false"}),
                       "fib");
  REQUIRE(cars.passed);
  CHECK(total(cars, "cars.overflow_traps", true) > 0);
  CHECK(total(cars, "cars.evaluations", true) > 0);
}

namespace {
// CARS' golden statistics: every GPU and CARS statistic of every launch of
// two calling workloads with the mechanism on (reference unit). A change
// that moves any of them updates the files deliberately with
//   build/tests/test_mech "[.update-golden-cars]"
const char* const kCarsGolden[] = {"fib", "virtual_dispatch"};
std::filesystem::path carsGoldenPath(const std::string& w) {
  return std::filesystem::path(RFSIM_SOURCE_DIR) / "tests" / "mech" / "golden" / ("cars." + w + ".v100.json");
}
}  // namespace

TEST_CASE("cars: golden statistics of two calling workloads", "[mech][cars][golden]") {
  const std::string name = GENERATE(from_range(std::begin(kCarsGolden), std::end(kCarsGolden)));
  const Run cars = run(v100("cars", {"mechanisms.cars.rtl=false"}), name);
  REQUIRE(cars.passed);
  std::ifstream in(carsGoldenPath(name));
  REQUIRE(in.good());
  const std::string diff = differences(launchesFlat(cars, true), nlohmann::json::parse(in));
  INFO(name << " vs " << carsGoldenPath(name).string() << ":\n" << diff);
  CHECK(diff.empty());
}

TEST_CASE("cars: update the golden statistics", "[.update-golden-cars]") {
  for (const char* name : kCarsGolden) {
    const Run cars = run(v100("cars", {"mechanisms.cars.rtl=false"}), name);
    REQUIRE(cars.passed);
    std::ofstream(carsGoldenPath(name)) << launchesFlat(cars, true).dump(1) << "\n";
  }
}
