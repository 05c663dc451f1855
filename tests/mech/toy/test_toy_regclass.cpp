// Register classes of the ISA extensions (ptx/isa_ext.h): a mechanism's own
// registers outside R0..RZ and P0..P6. The table, names and checks; a
// machine pass that moves values into them (the toy's toy.park_pair), kept
// by name or in register-file rows the mechanism's translator calculates,
// where a wrong row breaks the kernel's output; and a PTX-level pass that
// pins a virtual register to one, which the back end never allocates.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "../../func/func_helpers.h"
#include "../mech_test_util.h"
#include "backend/backend.h"
#include "common/error.h"
#include "mech/mechanism.h"
#include "ptx/analysis/printer.h"
#include "ptx/isa_ext.h"
#include "ptx/machine.h"
#include "ptx/parser.h"

using namespace rfsim;
using namespace rfsim::test;
namespace mach = rfsim::ptx::mach;

TEST_CASE("ISA extension tables: register classes by name after the predicates and checked", "[mech][isa]") {
  mech::registerMechanisms();
  const ptx::ExtRegClassDesc* ur = ptx::findExtRegClass("toy.ur");
  REQUIRE(ur != nullptr);
  CHECK(ur->count == 4);
  CHECK(ur->first >= mach::kExtRegBase);
  CHECK(mach::isExtReg(ur->first));
  CHECK_FALSE(mach::isGpr(ur->first));
  CHECK_FALSE(mach::isPred(ur->first));
  CHECK(mach::isRowReg(ur->first));
  CHECK_FALSE(mach::isRowReg(mach::kPredBase));
  CHECK(ptx::extReg("toy.ur", 3) == ur->first + 3);
  CHECK(mach::regName(ur->first + 1) == "UR1");
  CHECK(ptx::extRegClassOf(ur->first + 3) == ur);
  CHECK(ptx::extRegClassOf(ur->first + 4) != ur);
  CHECK_THROWS_WITH(ptx::extReg("toy.ur", 4), Catch::Contains("has 4 registers"));
  CHECK_THROWS_WITH(ptx::extReg("toy.none", 0), Catch::Contains("no register class"));

  // The same again: the same registers; otherwise refused, saying why.
  CHECK(ptx::registerExtRegClass(*ur) == ur->first);
  ptx::ExtRegClassDesc other = *ur;
  other.count = 5;
  CHECK_THROWS_WITH(ptx::registerExtRegClass(other), Catch::Contains("registered twice"));
  CHECK_THROWS_WITH(ptx::registerExtRegClass({"ur", "UQ", "", 1}), Catch::Contains("<mechanism>.<name>"));
  CHECK_THROWS_WITH(ptx::registerExtRegClass({"other.r", "R", "", 1}), Catch::Contains("machine's own"));
  CHECK_THROWS_WITH(ptx::registerExtRegClass({"other.u", "UR", "", 1}), Catch::Contains("is class 'toy.ur''s"));
  CHECK_THROWS_WITH(ptx::registerExtRegClass({"other.l", "lr", "", 1}), Catch::Contains("upper-case"));
  CHECK_THROWS_WITH(ptx::registerExtRegClass({"other.big", "BIG", "", mach::kNumExtRegs}),
                    Catch::Contains("extension ids are left"));
  CHECK_THROWS_WITH(mech::add([] {
                      mech::MechanismInfo m;
                      m.name = "misnamed";
                      m.reg_classes.push_back({"toy.q", "MQ", "", 1});
                      return m;
                    }()),
                    Catch::Contains("must be named misnamed.<name>"));
}

TEST_CASE("toy: class registers keep the values a machine pass moved into them", "[mech][toy][timing][isa]") {
  const Run base = run(v100("none"), "sgemm");
  const Run park = run(v100("toy", {"mechanisms.toy.rename_pass=false", "mechanisms.toy.park_pass=true"}), "sgemm");
  REQUIRE(base.passed);
  CHECK(park.passed);
  INFO(park.detail);
  REQUIRE(!park.records.empty());
  CHECK(park.records[0].variant == "toy");
  // The same instructions; the values of R2:R3 now in UR0:UR1.
  CHECK(total(park, "gpu.sm.warp_instrs") == total(base, "gpu.sm.warp_instrs"));

  const auto mechs = mech::instantiate(v100("toy", {"mechanisms.toy.rename_pass=false", "mechanisms.toy.park_pass=true"}));
  const std::vector<backend::Variant> variants = mechs.at(0)->variants();
  REQUIRE(variants.size() == 1);
  backend::CompileOptions co;
  co.variant = &variants[0];
  const backend::CompiledModule cm =
      backend::compileModule(ptx::parseFile(std::string(RFSIM_SOURCE_DIR) + "/workloads/sgemm/sgemm.ptx"), co);
  const std::string listing = ptx::printModule(cm.machine);
  CHECK(listing.find("UR0") != std::string::npos);
  CHECK(listing.find(".reg .b32 UR3;") != std::string::npos);
  CHECK(listing.find(" R2,") == std::string::npos);
  CHECK(listing.find("X4") == std::string::npos);  // ids no class was given are not listed
}

TEST_CASE("toy: class registers in rows the mechanism calculates and a wrong row breaks the output",
          "[mech][toy][timing][isa]") {
  const std::vector<std::string> park = {"mechanisms.toy.rename_pass=false", "mechanisms.toy.park_pass=true",
                                         "mechanisms.toy.park_rows=true"};
  for (const char* w : {"saxpy", "sgemm"}) {
    INFO(w);
    const Run base = run(v100("none"), w);
    const Run rows = run(v100("toy", park), w);
    REQUIRE(base.passed);
    CHECK(rows.passed);
    INFO(rows.detail);
    CHECK(total(rows, "toy.translations", true) > 0);
    CHECK(total(rows, "gpu.sm.warp_instrs") == total(base, "gpu.sm.warp_instrs"));

    // Every warp's UR registers at the same rows: the values of warps that
    // run together overwrite each other, so the output is wrong or an
    // address made from them falls outside every allocation.
    std::vector<std::string> shared = park;
    shared.push_back("mechanisms.toy.park_shared=true");
    bool broken = false;
    try {
      broken = !run(v100("toy", shared), w).passed;
    } catch (const Error& e) {
      broken = std::string(e.what()).find("out of bounds") != std::string::npos;
    }
    CHECK(broken);
  }
  CHECK_THROWS_WITH(v100("toy", {"mechanisms.toy.park_shared=true"}),
                    Catch::Contains("shared rows need the toy's translator"));
}

namespace {

// A PTX-level pass that pins virtual register `reg` of every function to
// UR`n` of the toy's class.
backend::ModulePass pinPass(const std::string& reg, uint32_t n) {
  return {"pin." + reg.substr(1), [reg, n](ptx::Module& m, const backend::CompileOptions&) {
            for (auto& fn : m.functions)
              for (auto& r : fn.regs)
                if (r.name == reg) r.ext_reg = ptx::extReg("toy.ur", n);
          }};
}

// A mechanism of this test only: a PTX-level pass pins %r7 of kernel
// `pinned` to UR2 of the toy's class (as R2D2 pins its linear registers).
class PinMechanism final : public mech::Mechanism {
 public:
  std::string name() const override { return "pin"; }
  std::vector<backend::Variant> variants() const override {
    backend::Variant v;
    v.name = "pinned";
    v.pre.push_back(pinPass("%r7", 2));
    return {v};
  }
  std::string chooseVariant(const mech::LaunchInfo&, const mech::VariantTable& compiled) override {
    return compiled.count("pinned") ? "pinned" : "";
  }
};

const char* kPinned =
    ".version 9.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry pinned(.param .u64 out, .param .u32 n)\n{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n"
    "mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n"
    "mad.lo.s32 %r1, %r2, %r3, %r4;\nld.param.u32 %r5, [n];\nsetp.ge.u32 %p1, %r1, %r5;\n"
    "@%p1 bra $done;\n"
    "mul.lo.u32 %r7, %r1, 5;\nand.b32 %r6, %r1, 1;\nsetp.eq.u32 %p2, %r6, 0;\n@%p2 bra $even;\n"
    "add.u32 %r7, %r7, 3;\n$even:\nadd.u32 %r10, %r7, %r1;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmul.wide.u32 %rd3, %r1, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r10;\n$done:\nret;\n}\n";

}  // namespace

TEST_CASE("back end: a virtual register pinned to a class register is never allocated", "[mech][isa][backend]") {
  mech::registerMechanisms();
  PinMechanism pin;
  const std::vector<backend::Variant> variants = pin.variants();
  backend::CompileOptions co;
  co.variant = &variants[0];
  const backend::CompiledModule cm = backend::compileModule(ptx::parseString(kPinned, "pinned.ptx"), co);
  const std::string listing = ptx::printModule(cm.machine);
  CHECK(listing.find("UR2, ") != std::string::npos);  // written there
  CHECK(listing.find(", UR2") != std::string::npos);  // and read from there

  // Its value is right functionally, under timing held by name, and under
  // timing in the rows the toy's translator calculates.
  for (int mode : {0, 1, 2}) {
    INFO("mode " << mode);
    config::GpuConfig cfg =
        mode == 2 ? v100("toy", {"gpu.num_sms=2", "mechanisms.toy.rename_pass=false", "mechanisms.toy.park_rows=true"})
                  : v100("none", {"gpu.num_sms=2"});
    std::vector<std::unique_ptr<mech::Mechanism>> toy = mech::instantiate(cfg);
    rt::DeviceOptions o;
    o.machine = true;
    o.timing = mode > 0;
    o.gpu = &cfg;
    o.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
    o.mechanisms.push_back(&pin);
    for (auto& m : toy) o.mechanisms.push_back(m.get());
    rt::Device dev(o);
    dev.loadModule(test::writePtx(kPinned, "pinned.ptx"));
    const uint32_t n = 1000;
    const uint64_t out = dev.malloc(n * 4);
    rt::KernelArgs a;
    a.ptr(out).u32(n);
    dev.launch("pinned", {(n + 127) / 128, 1, 1}, {128, 1, 1}, a);
    std::vector<uint32_t> v(n);
    dev.memcpyDtoH(v.data(), out, n * 4);
    for (uint32_t i = 0; i < n; ++i) REQUIRE(v[i] == i * 5 + ((i & 1) ? 3 : 0) + i);
    if (mode > 0) {  // launch records are the timing model's
      const auto recs = dev.takeLaunchRecords();
      REQUIRE(!recs.empty());
      CHECK(recs[0].variant == "pinned");
    }
  }

  // Only a class register; 64 bits only as a pair from an even one.
  backend::Variant wide;
  wide.name = "wide";
  wide.pre.push_back(pinPass("%rd1", 1));
  co.variant = &wide;
  CHECK_THROWS_WITH(backend::compileModule(ptx::parseString(kPinned, "pinned.ptx"), co),
                    Catch::Contains("%rd1 (64 bits) is pinned to UR1"));
  backend::Variant gpr;
  gpr.name = "gpr";
  gpr.pre.push_back({"pin.gpr", [](ptx::Module& m, const backend::CompileOptions&) {
                       for (auto& fn : m.functions)
                         for (auto& r : fn.regs)
                           if (r.name == "%r7") r.ext_reg = 9;
                     }});
  co.variant = &gpr;
  CHECK_THROWS_WITH(backend::compileModule(ptx::parseString(kPinned, "pinned.ptx"), co),
                    Catch::Contains("not a register of an extension class"));
}
