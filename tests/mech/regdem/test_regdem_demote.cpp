// RegDem's demotion pass (mech/regdem/demote.h) on a kernel written here
// whose registers limit its occupancy on the GTX Titan X configuration: the
// demoted code has fewer registers and more resident blocks, every demoted
// value goes through shared memory (a lost one fails the value-following
// check, and the kernel's output is compared with a CPU reference), the
// demoted accesses have no bank conflicts (eq. 1), and what the pass cannot
// do it refuses with a reason, leaving nvcc's code to run.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "backend/backend.h"
#include "common/error.h"
#include "config/config_io.h"
#include "config/occupancy.h"
#include "mech/mechanism.h"
#include "mech/regdem/demote.h"
#include "regdem_test_util.h"
#include "ptx/parser.h"
#include "runtime/runtime.h"
#include "stats/stats.h"

using namespace rfsim;

namespace {

constexpr int kVals = 40;      // floats each thread keeps live through the loop
constexpr int kIters = 3;

// A kernel that keeps kVals floats, a double and its pointers live across a
// loop (`bounds`: its .maxntid line, or none), with a guarded write and
// 64-bit values, so that demotion meets pairs and predicates.
std::string pressureKernel(const std::string& bounds) {
  std::string s = R"(.version 7.0
.target sm_52
.address_size 64

.visible .entry pressure(.param .u64 in, .param .u64 out, .param .u64 outd, .param .u32 iters)
)" + bounds + R"(
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<64>;
  .reg .f64 %fd<4>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd9, [outd];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  cvta.to.global.u64 %rd3, %rd1;
)";
  s += fmt::format("  mul.wide.u32 %rd4, %r5, {};\n", kVals * 4);
  s += "  add.u64 %rd5, %rd3, %rd4;\n";
  for (int k = 0; k < kVals; ++k) s += fmt::format("  ld.global.f32 %f{}, [%rd5+{}];\n", k, 4 * k);
  s += "  cvt.f64.f32 %fd1, %f0;\n  mov.u32 %r6, 0;\nLOOP:\n";
  s += "  setp.ge.u32 %p1, %r6, %r1;\n  @%p1 bra DONE;\n";
  for (int k = 0; k < kVals; ++k)
    s += fmt::format("  fma.rn.f32 %f{}, %f{}, %f{}, 0f3F000000;\n", k, k, (k + 1) % kVals);
  s += "  cvt.f64.f32 %fd2, %f3;\n  add.f64 %fd1, %fd1, %fd2;\n";
  s += "  and.b32 %r7, %r6, 1;\n  setp.eq.u32 %p2, %r7, 0;\n  @%p2 mov.f32 %f5, %f7;\n";
  s += "  add.u32 %r6, %r6, 1;\n  bra LOOP;\nDONE:\n  mov.f32 %f60, 0f00000000;\n";
  for (int k = 0; k < kVals; ++k) s += fmt::format("  add.f32 %f60, %f60, %f{};\n", k);
  s += R"(  cvta.to.global.u64 %rd6, %rd2;
  mul.wide.u32 %rd7, %r5, 4;
  add.u64 %rd8, %rd6, %rd7;
  st.global.f32 [%rd8], %f60;
  cvta.to.global.u64 %rd10, %rd9;
  mul.wide.u32 %rd11, %r5, 8;
  add.u64 %rd12, %rd10, %rd11;
  st.global.f64 [%rd12], %fd1;
  ret;
}
)";
  return s;
}

// The same arithmetic on the CPU.
void reference(const std::vector<float>& in, uint32_t threads, std::vector<float>& out, std::vector<double>& outd) {
  out.assign(threads, 0);
  outd.assign(threads, 0);
  for (uint32_t t = 0; t < threads; ++t) {
    float a[kVals];
    for (int k = 0; k < kVals; ++k) a[k] = in[t * kVals + k];
    double d = a[0];
    for (int it = 0; it < kIters; ++it) {
      for (int k = 0; k < kVals; ++k) a[k] = std::fmaf(a[k], a[(k + 1) % kVals], 0.5f);
      d += double(a[3]);
      if ((it & 1) == 0) a[5] = a[7];
    }
    float s = 0;
    for (int k = 0; k < kVals; ++k) s += a[k];
    out[t] = s;
    outd[t] = d;
  }
}

std::filesystem::path writeKernel(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / fmt::format("rfsim_regdem_{}_{}.ptx", name, ::getpid());
  std::ofstream(p) << text;
  return p;
}

config::GpuConfig titanx(const std::vector<std::string>& sets = {}) { return test::titanxRegdem(sets); }

struct Outcome {
  bool correct = false;
  std::vector<rt::LaunchRecord> records;
  const backend::FunctionReport* base = nullptr;
  const backend::FunctionReport* demoted = nullptr;
  std::vector<std::string> notes;
  uint64_t shared_extra_passes = 0, shared_accesses = 0;
};

// Runs `pressure` on 4 blocks of 128 threads; compares with the CPU.
Outcome runKernel(const config::GpuConfig& cfg, const std::string& bounds, bool timing) {
  std::vector<std::unique_ptr<mech::Mechanism>> mechs = mech::instantiate(cfg);
  rt::DeviceOptions o;
  o.timing = timing;
  o.gpu = &cfg;
  o.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
  for (auto& m : mechs) o.mechanisms.push_back(m.get());
  rt::Device dev(o);
  const auto file = writeKernel(timing ? "t" : "f", pressureKernel(bounds));
  dev.loadModule(file);
  std::filesystem::remove(file);
  const uint32_t blocks = 4, threads = 128, n = blocks * threads;
  std::vector<float> in(size_t{n} * kVals);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 0.25f + float(i % 13) * 0.0625f - float(i % 7) * 0.03125f;
  const uint64_t d_in = dev.malloc(in.size() * 4), d_out = dev.malloc(n * 4), d_outd = dev.malloc(n * 8);
  dev.memcpyHtoD(d_in, in.data(), in.size() * 4);
  rt::KernelArgs args;
  args.ptr(d_in).ptr(d_out).ptr(d_outd).u32(kIters);
  dev.launch("pressure", {blocks, 1, 1}, {threads, 1, 1}, args);
  std::vector<float> out(n);
  std::vector<double> outd(n);
  dev.memcpyDtoH(out.data(), d_out, n * 4);
  dev.memcpyDtoH(outd.data(), d_outd, n * 8);
  std::vector<float> want;
  std::vector<double> wantd;
  reference(in, n, want, wantd);
  Outcome r;
  r.correct = std::memcmp(out.data(), want.data(), n * 4) == 0 && std::memcmp(outd.data(), wantd.data(), n * 8) == 0;
  static std::vector<std::unique_ptr<backend::CompiledModule>> keep;  // reports outlive the device
  keep.push_back(std::make_unique<backend::CompiledModule>(*dev.compiled()));
  r.base = keep.back()->find("pressure");
  if (const backend::CompiledModule* v = dev.compiled("regdem")) {
    keep.push_back(std::make_unique<backend::CompiledModule>(*v));
    r.demoted = keep.back()->find("pressure");
    // The pass's own notes (the back end may add its own, e.g. the
    // dependency-control codes it completed after the pass).
    for (const std::string& n : r.demoted->notes)
      if (n.rfind("regdem:", 0) == 0) r.notes.push_back(n);
  }
  if (timing) {
    r.records = dev.takeLaunchRecords();
    for (const auto& rec : r.records) {
      const nlohmann::json j = stats::toFlatJson(*rec.gpu);
      for (const auto& [k, v] : j.items()) {
        if (k.size() >= 20 && k.compare(k.size() - 20, 20, ".shared_extra_passes") == 0) r.shared_extra_passes += v.get<uint64_t>();
        if (k.size() >= 16 && k.compare(k.size() - 16, 16, ".shared_accesses") == 0) r.shared_accesses += v.get<uint64_t>();
      }
    }
  }
  return r;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

}  // namespace

TEST_CASE("regdem: the occupancy calculator gives the paper's derived Table 1 occupancies on titanx",
          "[mech][regdem]") {
  // repro.md 2.2: blocks per SM at the original and at the target register
  // counts (GM200: 64 K registers, 256 per warp, 64 warps, 32 blocks).
  const config::GpuConfig g = titanx();
  struct Row { uint32_t threads, orig, target, blocks_orig, blocks_target; };
  const Row rows[] = {{192, 68, 56, 4, 6}, {64, 55, 48, 18, 21}, {256, 33, 32, 6, 8}, {256, 34, 32, 6, 8},
                      {64, 43, 40, 21, 25}, {128, 35, 32, 12, 16}, {192, 35, 32, 8, 10}, {256, 36, 32, 6, 8}};
  for (const Row& r : rows) {
    INFO(r.threads << " threads, " << r.orig << " -> " << r.target);
    CHECK(config::computeOccupancy(g, {r.threads, r.orig, 0}).blocks == r.blocks_orig);
    CHECK(config::computeOccupancy(g, {r.threads, r.target, 0}).blocks == r.blocks_target);
  }
  // The automatic target: one step up for all but cfd, whose Table 1 target
  // (56) is two steps up (64 gives 5 blocks on the way).
  CHECK(regdem::autoTarget(g, 55, 64, 0, 1, 32) == 48);
  CHECK(regdem::autoTarget(g, 43, 64, 0, 1, 32) == 40);
  CHECK(regdem::autoTarget(g, 35, 128, 0, 1, 32) == 32);
  CHECK(regdem::autoTarget(g, 68, 192, 0, 1, 32) == 64);
  CHECK(regdem::autoTarget(g, 68, 192, 0, 2, 32) == 56);
  // At full occupancy there is no step to take.
  CHECK(regdem::autoTarget(g, 32, 256, 0, 1, 32) == 0);
  // 48 KB per block: a block beyond it cannot launch.
  CHECK_THROWS_AS(config::computeOccupancy(g, {128, 32, 49 * 1024}), Error);
}

TEST_CASE("regdem: demoted kernel is correct with fewer registers and more resident blocks", "[mech][regdem][timing]") {
  const std::string strategy = GENERATE(as<std::string>{}, "cfg", "static", "conflicts");
  INFO("strategy " << strategy);
  const config::GpuConfig cfg = titanx({"mechanisms.regdem.strategy=" + strategy});
  const Outcome f = runKernel(cfg, ".maxntid 128, 1, 1", false);
  INFO(joined(f.notes));
  REQUIRE(f.base != nullptr);
  REQUIRE(f.demoted != nullptr);
  CHECK(f.correct);
  REQUIRE(f.notes.size() == 1);
  CHECK(f.notes[0].find("demoted") != std::string::npos);
  const uint32_t target = regdem::autoTarget(cfg, f.base->regs, 128, 0, 1, 32);
  REQUIRE(target > 0);
  CHECK(f.demoted->regs <= target);
  CHECK(f.demoted->regs < f.base->regs);
  CHECK(f.demoted->spill_stores == 0);

  const Outcome t = runKernel(cfg, ".maxntid 128, 1, 1", true);
  CHECK(t.correct);
  REQUIRE(t.records.size() == 1);
  CHECK(t.records[0].variant == "regdem");
  CHECK(t.records[0].regs_per_thread == f.demoted->regs);
  const config::Occupancy before = config::computeOccupancy(cfg, {128, f.base->regs, 0});
  CHECK(t.records[0].blocks_per_sm > before.blocks);
  // Eq. 1: consecutive threads in consecutive banks, no demoted access has
  // a conflict (the kernel has no shared memory of its own).
  CHECK(t.shared_accesses > 0);
  CHECK(t.shared_extra_passes == 0);
  // The launch's statistics say what ran.
  REQUIRE(t.records[0].mechanisms.size() == 1);
  const nlohmann::json m = stats::toFlatJson(*t.records[0].mechanisms[0]);
  CHECK(m["regdem.demoted_code"].get<uint64_t>() == 1);
  CHECK(m["regdem.regs"].get<uint64_t>() == f.demoted->regs);
  CHECK(m["regdem.area_bytes"].get<uint64_t>() > 0);
}

TEST_CASE("regdem: select nvcc runs the baseline code", "[mech][regdem][timing]") {
  const Outcome t = runKernel(titanx({"mechanisms.regdem.select=nvcc"}), ".maxntid 128, 1, 1", true);
  CHECK(t.correct);
  REQUIRE(t.records.size() == 1);
  CHECK(t.records[0].variant == "base");
  CHECK(t.shared_accesses == 0);
}

TEST_CASE("regdem: what the pass cannot do it refuses with a reason, and nvcc's code runs", "[mech][regdem]") {
  SECTION("no block size known at compile time") {
    const Outcome f = runKernel(titanx(), "", true);
    CHECK(f.correct);
    REQUIRE(f.notes.size() == 1);
    CHECK(f.notes[0].find("block size is not known") != std::string::npos);
    CHECK(f.demoted->regs == f.base->regs);
    CHECK(f.records[0].variant == "base");
  }
  SECTION("a target below what the candidates reach") {
    const Outcome f = runKernel(titanx({"mechanisms.regdem.target=8", "mechanisms.regdem.min_regs=2"}),
                                ".maxntid 128, 1, 1", true);
    CHECK(f.correct);
    REQUIRE(f.notes.size() == 1);
    CHECK(f.notes[0].find("not the target 8") != std::string::npos);
    CHECK(f.records[0].variant == "base");
  }
  SECTION("a demoted area larger than a block may use") {
    const Outcome f = runKernel(titanx({"shared.max_per_block_kb=1"}), ".maxntid 128, 1, 1", true);
    CHECK(f.correct);
    REQUIRE(f.notes.size() == 1);
    CHECK(f.notes[0].find("exceed") != std::string::npos);
    CHECK(f.records[0].variant == "base");
  }
}

TEST_CASE("regdem: a demoted value that does not come back fails the value-following check", "[mech][regdem]") {
  // The demotion pass, then a pass that moves one demoted load to another
  // slot: the read after it no longer finds its value.
  const config::GpuConfig cfg = titanx();
  backend::Variant v;
  v.name = "regdem-broken";
  v.post.push_back(regdem::demotePass(cfg, cfg.mechanisms.get<regdem::RegDemConfig>("regdem")));
  v.post.push_back({"test.misplace", [](ptx::Function& fn, backend::SlotValues&, const backend::MachinePassContext&) {
                      for (auto& bb : fn.blocks)
                        for (auto& in : bb.instrs)
                          if (in.role == ptx::MRole::DemLoad) {
                            in.src[0].imm += 128 * 4;
                            return;
                          }
                    }});
  const auto file = writeKernel("broken", pressureKernel(".maxntid 128, 1, 1"));
  const ptx::Module m = ptx::parseFile(file);
  std::filesystem::remove(file);
  backend::CompileOptions o(cfg.compiler);
  const backend::CompiledModule ok = backend::compileModule(m, o);
  REQUIRE(ok.find("pressure") != nullptr);
  o.variant = &v;
  try {
    backend::compileModule(m, o);
    FAIL("the misplaced demoted load was not caught");
  } catch (const Error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("after pass test.misplace") != std::string::npos);
  }
}

TEST_CASE("regdem: the redundant-load post-pass drops only loads whose value RDV still holds", "[mech][regdem]") {
  // fma k reads a[k+1] and fma k+1 writes it: with a[k+1] demoted, the load
  // before fma k+1 finds RDV already holding the slot (section 3.4.2).
  auto loads = [](const Outcome& o) {
    const std::string& n = o.notes.at(0);
    const size_t at = n.find(" ld.shared");
    size_t start = n.rfind(' ', at - 1) + 1;
    return std::stoul(n.substr(start, at - start));
  };
  const Outcome with = runKernel(titanx(), ".maxntid 128, 1, 1", true);
  const Outcome without = runKernel(titanx({"mechanisms.regdem.redundant_code=false"}), ".maxntid 128, 1, 1", true);
  INFO(joined(with.notes) << joined(without.notes));
  CHECK(with.correct);
  CHECK(without.correct);
  CHECK(loads(with) < loads(without));
  CHECK(with.notes[0].find("redundant loads and") != std::string::npos);
  CHECK(with.demoted->regs == without.demoted->regs);
}

TEST_CASE("regdem: the paper's comparison variants run correctly at their register counts", "[mech][regdem][timing]") {
  // Table 3: local (spills to local memory at RegDem's target),
  // local-shared (at 32 registers, the spill slots in shared memory),
  // local-shared-relax (the same at RegDem's target).
  const std::string variant = GENERATE(as<std::string>{}, "local", "local-shared", "local-shared-relax");
  INFO(variant);
  const Outcome t = runKernel(titanx({"mechanisms.regdem.select=" + variant}), ".maxntid 128, 1, 1", true);
  CHECK(t.correct);
  REQUIRE(t.records.size() == 1);
  CHECK(t.records[0].variant == variant);
  const uint32_t target = regdem::autoTarget(titanx(), t.base->regs, 128, 0, 1, 32);
  const uint32_t want = variant == "local-shared" ? 32 : target;
  CHECK(t.records[0].regs_per_thread == want);
  const nlohmann::json m = stats::toFlatJson(*t.records[0].mechanisms[0]);
  if (variant == "local") {
    CHECK(m["regdem.area_bytes"].get<uint64_t>() == 0);
    CHECK(t.shared_accesses == 0);
  } else {
    // Every spill slot went to shared memory, bank-conflict free.
    CHECK(m["regdem.area_bytes"].get<uint64_t>() > 0);
    CHECK(t.shared_accesses > 0);
    CHECK(t.shared_extra_passes == 0);
  }
}

TEST_CASE("regdem: bank-aware compaction keeps the register count and the kernel's output", "[mech][regdem][timing]") {
  // Sections 3.3 and 3.4.2: registers keep their banks where that costs no
  // register; the register count has priority.
  const Outcome plain = runKernel(titanx(), ".maxntid 128, 1, 1", true);
  const Outcome banked = runKernel(titanx({"mechanisms.regdem.bank_aware=true"}), ".maxntid 128, 1, 1", true);
  CHECK(plain.correct);
  CHECK(banked.correct);
  REQUIRE(banked.records.size() == 1);
  CHECK(banked.records[0].variant == "regdem");
  CHECK(banked.demoted->regs == plain.demoted->regs);
  CHECK(banked.shared_extra_passes == 0);
}
