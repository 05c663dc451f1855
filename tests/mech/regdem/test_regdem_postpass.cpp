// RegDem's post-passes (mech/regdem/postpass.cpp, the paper's section
// 3.4.2): each one off in turn (the paper's Fig. 7) leaves every suite
// kernel correct on the GTX Titan X, the schedule update moves demoted
// loads away from their readers, and what each pass did is in the report.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "backend/depctl.h"
#include "regdem_test_util.h"

using namespace rfsim;

namespace {

config::GpuConfig titanx(const std::vector<std::string>& sets) { return test::titanxRegdem(sets); }

std::vector<std::string> suite() { return test::tagged("regdem"); }

// The kernel's notes and code as the regdem variant compiles it.
struct Compiled {
  std::string note;
  ptx::Function fn;
};
Compiled compile(const std::string& workload, const config::GpuConfig& cfg) {
  const backend::CompiledModule cm = test::compileRegdem(workload, cfg);
  Compiled c;
  for (const auto& f : cm.functions)
    if (f.entry) {
      for (const auto& n : f.notes)
        if (n.rfind("regdem:", 0) == 0) c.note = n;
      c.fn = cm.machine.functions[f.index];
    }
  return c;
}

// The number before `what` in the pass's note ("..., 7 loads hoisted").
unsigned count(const std::string& note, const std::string& what) {
  const size_t at = note.find(" " + what);
  REQUIRE(at != std::string::npos);
  const size_t start = note.rfind(' ', at - 1) + 1;
  return static_cast<unsigned>(std::stoul(note.substr(start, at - start)));
}

}  // namespace

TEST_CASE("regdem post-passes: each one off in turn leaves every suite kernel correct", "[mech][regdem][timing]") {
  const std::vector<std::string> names = suite();
  REQUIRE(names.size() >= 6);
  for (const char* off : {"redundant_code", "schedule_update", "rdv_substitution"}) {
    for (const std::string& name : names) {
      INFO(name << " without " << off);
      const test::Run r = test::run(titanx({std::string("mechanisms.regdem.") + off + "=false"}), name);
      INFO(r.detail);
      CHECK(r.passed);
      for (const auto& rec : r.records) CHECK(rec.variant == "regdem");
    }
  }
}

TEST_CASE("regdem post-passes: the schedule update hoists demoted loads above their readers", "[mech][regdem]") {
  unsigned hoisted_total = 0;
  uint64_t gain = 0;
  for (const std::string& name : suite()) {
    INFO(name);
    const Compiled on = compile(name, titanx({}));
    const Compiled off = compile(name, titanx({"mechanisms.regdem.schedule_update=false"}));
    INFO(on.note);
    CHECK(count(off.note, "loads hoisted") == 0);
    hoisted_total += count(on.note, "loads hoisted");
    // A hoisted load sits further above its first reader: the distance
    // from each demoted load to the next instruction naming its register,
    // summed, does not shrink (a load moved only above other demoted loads
    // leaves the sum as it was), and grows over the suite.
    auto distance = [](const ptx::Function& fn) {
      uint64_t sum = 0;
      for (const auto& bb : fn.blocks)
        for (size_t i = 0; i < bb.instrs.size(); ++i) {
          const ptx::Instr& in = bb.instrs[i];
          if (in.role != ptx::MRole::DemLoad) continue;
          for (size_t k = i + 1; k < bb.instrs.size(); ++k) {
            std::vector<uint32_t> u, d;
            backend::instrRegs(bb.instrs[k], fn, u, d);
            if (std::find(u.begin(), u.end(), in.dst[0].regs[0]) != u.end()) {
              sum += k - i;
              break;
            }
          }
        }
      return sum;
    };
    CHECK(distance(on.fn) >= distance(off.fn));
    gain += distance(on.fn) - distance(off.fn);
    // Both leave no dependency hazard open.
    for (const Compiled* c : {&on, &off}) {
      ptx::Function fn = c->fn;
      CHECK(backend::assignDependencies(fn, rt::dependencyTiming(titanx({})), backend::DepMode::Check)
                .errors.empty());
    }
  }
  CHECK(hoisted_total > 0);
  CHECK(gain > 0);
}

TEST_CASE("regdem post-passes: redundant stores are dropped only where the block stores the slot again",
          "[mech][regdem]") {
  unsigned dropped = 0;
  for (const std::string& name : suite()) {
    const Compiled on = compile(name, titanx({}));
    INFO(name << ": " << on.note);
    dropped += count(on.note, "stores dropped");
    // No store left is followed in its block by an unguarded store of the
    // same slot without a load of it between.
    for (const auto& bb : on.fn.blocks)
      for (size_t i = 0; i < bb.instrs.size(); ++i) {
        if (bb.instrs[i].role != ptx::MRole::DemStore) continue;
        for (size_t j = i + 1; j < bb.instrs.size(); ++j) {
          const ptx::Instr& n = bb.instrs[j];
          if (n.role != ptx::MRole::DemLoad && n.role != ptx::MRole::DemStore) continue;
          if (n.src[0].imm != bb.instrs[i].src[0].imm) continue;
          if (n.role == ptx::MRole::DemLoad) break;
          if (n.role == ptx::MRole::DemStore) {
            CHECK(n.guard.kind == ptx::OperandKind::Reg);
            break;
          }
        }
      }
  }
  WARN("demoted stores dropped over the suite: " << dropped);
}
