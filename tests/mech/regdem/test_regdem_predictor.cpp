// RegDem's compile-time predictor (mech/regdem/predictor.h; paper section 4,
// Fig. 5, eqs. 2-3): its arithmetic on hand-built machine functions whose
// expected estimates are worked out below, the f(occupancy) table, and the
// per-launch choice (select: predictor, naive, oracle, best) on a suite kernel.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "mech/regdem/predictor.h"
#include "mech/regdem/select.h"
#include "regdem_test_util.h"

using namespace rfsim;
using regdem::FTable;
using regdem::PredictorParams;
using Kind = ptx::mach::DepTiming::Kind;

namespace {

ptx::Instr instr(ptx::Op op, ptx::Type type, ptx::Space space, uint8_t stall, uint8_t wbar = 0, uint8_t wait = 0) {
  ptx::Instr in;
  in.op = op;
  in.type = type;
  in.space = space;
  in.stall = stall;
  in.wbar = wbar;
  in.wait = wait;
  return in;
}

// GM200's throughputs: FP64 4 per cycle per SM, everything else 128;
// ld.global is a global access, ld.shared a shared one.
PredictorParams params(double occupancy) {
  PredictorParams p;
  p.occupancy = occupancy;
  p.max_throughput = 128;
  p.throughput = [](const ptx::Instr& in) { return in.type == ptx::Type::F64 ? 4.0 : 128.0; };
  p.kind = [](const ptx::Instr& in) {
    if (in.op != ptx::Op::Ld && in.op != ptx::Op::St) return Kind::Other;
    return in.space == ptx::Space::Shared ? Kind::Shared : Kind::Global;
  };
  return p;
}

void edge(ptx::Function& fn, uint32_t from, uint32_t to) {
  fn.blocks[from].succs.push_back(to);
  fn.blocks[to].preds.push_back(from);
}

}  // namespace

TEST_CASE("regdem predictor: eq. 2 and the barrier waits of Fig. 5 on one block", "[mech][regdem]") {
  ptx::Module m;
  ptx::Function fn;
  fn.name = "k";
  fn.is_entry = true;
  fn.blocks.resize(1);
  auto& code = fn.blocks[0].instrs;
  // ld.global sets barrier 0 (wbar 1); 0.5 occupancy: 1 x 0.5 = 0.5 stall.
  code.push_back(instr(ptx::Op::Ld, ptx::Type::F32, ptx::Space::Global, 1, 1));
  // add: 2 x 0.5 = 1; the barrier has aged 0.5 + 1 = 1.5 cycles.
  code.push_back(instr(ptx::Op::Add, ptx::Type::F32, ptx::Space::None, 2));
  // fma.f64 waits on barrier 0: 200 - 1.5 = 198.5 more, and its own stall is
  // 1 x 0.5 x 128 / 4 = 16.
  code.push_back(instr(ptx::Op::Fma, ptx::Type::F64, ptx::Space::None, 1, 0, 1));
  // ld.shared sets barrier 1 (wbar 2), an add of 3 (1.5), a wait on it:
  // 24 - (0.5 + 1.5) = 22, then the add's own 0.5.
  code.push_back(instr(ptx::Op::Ld, ptx::Type::F32, ptx::Space::Shared, 1, 2));
  code.push_back(instr(ptx::Op::Add, ptx::Type::F32, ptx::Space::None, 3));
  code.push_back(instr(ptx::Op::Add, ptx::Type::F32, ptx::Space::None, 1, 0, 2));
  // A second wait on the same barrier adds nothing: it was cleared.
  code.push_back(instr(ptx::Op::Add, ptx::Type::F32, ptx::Space::None, 1, 0, 2));
  m.functions.push_back(fn);
  const regdem::StallEstimate e = regdem::estimateStalls(m, 0, params(0.5));
  const double want = 0.5 + 1 + 198.5 + 16 + 0.5 + 1.5 + 22 + 0.5 + 0.5;
  CHECK(e.stall_count == Approx(want));
  CHECK(e.naive == Approx(1 + 2 + 1 + 1 + 3 + 1 + 1));
  CHECK(e.back_edges == 0);
  // A barrier that has already waited long enough adds nothing: the same
  // global wait after 250 cycles of stalls.
  ptx::Module m2;
  ptx::Function g = fn;
  g.blocks[0].instrs = {instr(ptx::Op::Ld, ptx::Type::F32, ptx::Space::Global, 10, 1)};
  for (int i = 0; i < 25; ++i) g.blocks[0].instrs.push_back(instr(ptx::Op::Add, ptx::Type::F32, ptx::Space::None, 10));
  g.blocks[0].instrs.push_back(instr(ptx::Op::Add, ptx::Type::F32, ptx::Space::None, 1, 0, 1));
  m2.functions.push_back(g);
  CHECK(regdem::estimateStalls(m2, 0, params(1.0)).stall_count == Approx(261));
}

TEST_CASE("regdem predictor: loop factors per back edge, nested loops multiplied once per level", "[mech][regdem]") {
  // 0 -> 1 -> 2 -> 3 -> 4, with 2 -> 2 (inner loop) and 3 -> 1 (outer).
  ptx::Module m;
  ptx::Function fn;
  fn.name = "k";
  fn.is_entry = true;
  fn.blocks.resize(5);
  for (auto& b : fn.blocks) b.instrs.push_back(instr(ptx::Op::Add, ptx::Type::F32, ptx::Space::None, 1));
  edge(fn, 0, 1);
  edge(fn, 1, 2);
  edge(fn, 2, 2);
  edge(fn, 2, 3);
  edge(fn, 3, 1);
  edge(fn, 3, 4);
  m.functions.push_back(fn);
  const regdem::StallEstimate e = regdem::estimateStalls(m, 0, params(1.0));
  CHECK(e.back_edges == 2);
  REQUIRE(e.block_stall.size() == 5);
  CHECK(e.block_stall[0] == Approx(1));
  CHECK(e.block_stall[1] == Approx(10));
  CHECK(e.block_stall[2] == Approx(100));
  CHECK(e.block_stall[3] == Approx(10));
  CHECK(e.block_stall[4] == Approx(1));
  CHECK(e.stall_count == Approx(122));
  PredictorParams p = params(1.0);
  p.loop_factor = 3;
  CHECK(regdem::estimateStalls(m, 0, p).stall_count == Approx(1 + 3 + 9 + 3 + 1));
}

TEST_CASE("regdem predictor: a call adds its callee's estimate", "[mech][regdem]") {
  ptx::Module m;
  ptx::Function k, f;
  k.name = "k";
  k.is_entry = true;
  f.name = "f";
  f.blocks.resize(1);
  f.blocks[0].instrs = {instr(ptx::Op::Fma, ptx::Type::F64, ptx::Space::None, 2),
                        instr(ptx::Op::Ret, ptx::Type::None, ptx::Space::None, 1)};
  k.blocks.resize(1);
  ptx::Instr call = instr(ptx::Op::Call, ptx::Type::None, ptx::Space::None, 1);
  call.call = 0;
  k.calls.resize(1);
  k.calls[0].callee = 1;
  k.blocks[0].instrs = {call, instr(ptx::Op::Exit, ptx::Type::None, ptx::Space::None, 1)};
  m.functions = {k, f};
  // f: 2 x 0.25 x 32 + 1 x 0.25 = 16.25; k: the call's 0.25 + 16.25, exit 0.25.
  CHECK(regdem::estimateStalls(m, 1, params(0.25)).stall_count == Approx(16.25));
  CHECK(regdem::estimateStalls(m, 0, params(0.25)).stall_count == Approx(16.75));
}

TEST_CASE("regdem predictor: f(occupancy) table and eq. 3", "[mech][regdem]") {
  const FTable f = FTable::parse("0.125:4, 0.25:2,0.5:1.2,1:1");
  CHECK(f.at(0.0625) == Approx(4));   // flat below the first point
  CHECK(f.at(0.125) == Approx(4));
  CHECK(f.at(0.1875) == Approx(3));   // linear between points
  CHECK(f.at(0.75) == Approx(1.1));
  CHECK(f.at(1.0) == Approx(1));
  // eq. 3: a variant at 0.25 occupancy against a best of 0.5.
  CHECK(regdem::stallProgram(100, 0.25, 0.5, f) == Approx(100 * 2 / 1.2));
  CHECK(regdem::stallProgram(100, 0.5, 0.5, f) == Approx(100));
  for (const char* bad : {"", "0.5", "0.5:x", "0:1", "1.5:1", "0.5:1,0.25:2", "0.5:-1", "0.5:1;1:1"}) {
    INFO(bad);
    CHECK_THROWS_AS(FTable::parse(bad), Error);
  }
  // A malformed table is a configuration error naming the key.
  config::GpuConfig c = test::titanxRegdem();
  config::applyOverride(c, "mechanisms.regdem.f_occupancy=0.5:1,0.25:2");
  CHECK_THROWS_WITH(config::validate(c, "test"), Catch::Contains("mechanisms.regdem.f_occupancy"));
}

TEST_CASE("regdem select: the search space, distinct codes and the tie-break", "[mech][regdem]") {
  const config::GpuConfig cfg = test::titanxRegdem();
  const auto space = regdem::searchSpace(cfg, cfg.mechanisms.get<regdem::RegDemConfig>("regdem"));
  REQUIRE(space.size() == 48);
  CHECK(space.front().name == "rd_static_0000");
  CHECK(space.back().name == "rd_conflicts_1111");
  std::vector<regdem::Candidate> c(3);
  c[0].variant = "base";
  c[0].code = "A";
  c[0].estimate = 10, c[0].naive = 5, c[0].cycles = 300;
  c[1].variant = "rd_cfg_0110";
  c[1].options = 2;
  c[1].code = "B";
  c[1].estimate = 10, c[1].naive = 7, c[1].cycles = 200;
  c[2].variant = "rd_cfg_1110";
  c[2].options = 3;
  c[2].code = "B";
  c[2].estimate = 10, c[2].naive = 7, c[2].cycles = 200;
  CHECK(regdem::distinctVariants(c) == std::vector<std::string>{"base", "rd_cfg_1110"});
  CHECK(c[regdem::pick(c, regdem::Select::Predictor)].variant == "rd_cfg_1110");  // a tie: the most options
  CHECK(c[regdem::pick(c, regdem::Select::Naive)].variant == "base");
  CHECK(c[regdem::pick(c, regdem::Select::Oracle)].variant == "rd_cfg_1110");
  c[0].estimate = 9.5;
  CHECK(c[regdem::pick(c, regdem::Select::Predictor)].variant == "base");
}

TEST_CASE("regdem select: best measures RegDem's option combinations alone and keeps the fastest",
          "[mech][regdem]") {
  // Fig. 6's RegDem bar (section 5.4): the best option combination by
  // exhaustive search, among RegDem's variants only, even where nvcc's code
  // or a comparison variant is faster.
  std::vector<regdem::Candidate> c(5);
  const char* names[] = {"base", "local", "rd_cfg_0111", "rd_conflicts_0000", "rd_static_1111"};
  const char* codes[] = {"A", "L", "B", "B", "C"};
  const uint64_t cycles[] = {100, 90, 200, 200, 150};
  const double estimates[] = {10, 9, 30, 40, 20};
  for (size_t i = 0; i < c.size(); ++i) {
    c[i].variant = names[i];
    c[i].code = codes[i];
    c[i].estimate = estimates[i];
  }
  c[2].options = 3, c[4].options = 4;
  CHECK(regdem::distinctVariants(c, true) == std::vector<std::string>{"rd_cfg_0111", "rd_static_1111"});
  CHECK(regdem::distinctVariants(c).size() == 4);
  // Without trials (a functional run): the smallest estimate among RegDem's.
  CHECK(c[regdem::pick(c, regdem::Select::Best)].variant == "rd_static_1111");
  c[4].estimate = 35;
  CHECK(c[regdem::pick(c, regdem::Select::Best)].variant == "rd_cfg_0111");
  for (size_t i = 0; i < c.size(); ++i) c[i].cycles = cycles[i];
  CHECK(c[regdem::pick(c, regdem::Select::Oracle)].variant == "local");
  CHECK(c[regdem::pick(c, regdem::Select::Best)].variant == "rd_static_1111");
  c[4].cycles = 250;
  CHECK(c[regdem::pick(c, regdem::Select::Best)].variant == "rd_cfg_0111");  // ties to the most options
  // RegDem did not apply: nvcc's code.
  c.resize(2);
  CHECK(c[regdem::pick(c, regdem::Select::Best)].variant == "base");
  CHECK(regdem::distinctVariants(c, true).empty());
}

TEST_CASE("regdem select: predictor, naive, oracle and best choose per launch and the kernel stays correct",
          "[mech][regdem][timing]") {
  // The oracle measures every distinct variant on the launch itself; its
  // choice is the fastest, and the launch that counts (the same code from
  // the same memory) takes exactly the cycles its trial took. Each trial
  // starts from empty caches as the device's first launch does, so the
  // predictor's own run takes the cycles the oracle measured for its pick.
  uint64_t predictor_cycles = 0;
  std::string predictor_pick;
  for (const std::string select : {"predictor", "naive", "oracle", "best"}) {
    INFO(select);
    const test::Run r = test::run(test::titanxRegdem({"mechanisms.regdem.select=" + select}), "conv_columns");
    INFO(r.detail);
    CHECK(r.passed);
    REQUIRE(!r.records.empty());
    for (const auto& rec : r.records) {
      REQUIRE(rec.mechanisms.size() == 1);
      const nlohmann::json j = test::flatOf(*rec.mechanisms[0]);
      std::map<std::string, std::map<std::string, double>> cands;
      for (const auto& [k, v] : j.items())
        if (k.rfind("regdem.choice.", 0) == 0) {
          const std::string rest = k.substr(14);
          const size_t dot = rest.rfind('.');
          cands[rest.substr(0, dot)][rest.substr(dot + 1)] = v.get<double>();
        }
      REQUIRE(cands.size() >= 3);  // nvcc's code and at least two others
      REQUIRE(cands.count("base"));
      std::string chosen, predicted, naive, fastest;
      uint64_t fewest = UINT64_MAX;
      for (const auto& [name, s] : cands) {
        if (s.at("chosen") == 1) chosen = name;
        if (s.at("predicted") == 1) predicted = name;
        if (s.at("naive_choice") == 1) naive = name;
        if (s.at("fastest") == 1) fastest = name;
        if (s.at("cycles") > 0) fewest = std::min<uint64_t>(fewest, uint64_t(s.at("cycles")));
        CHECK(s.at("estimate") > 0);
        CHECK(s.at("occupancy") > 0);
      }
      CHECK(rec.variant == chosen);
      CHECK(!predicted.empty());
      CHECK(!naive.empty());
      if (select == "predictor") {
        CHECK(chosen == predicted);
        predictor_cycles = rec.cycles;
        predictor_pick = predicted;
      }
      if (select == "naive") CHECK(chosen == naive);
      if (select == "oracle") {
        CHECK(chosen == fastest);
        CHECK(fewest < UINT64_MAX);
        CHECK(rec.cycles == fewest);
        CHECK(uint64_t(cands.at(chosen).at("cycles")) == fewest);
        CHECK(predicted == predictor_pick);
        CHECK(uint64_t(cands.at(predicted).at("cycles")) == predictor_cycles);
      } else if (select == "best") {
        // Only RegDem's codes measured; the fastest of them runs.
        CHECK(regdem::isRegDemVariant(chosen));
        CHECK(chosen == fastest);
        CHECK(rec.cycles == fewest);
        CHECK(cands.at("base").at("cycles") == 0);
      } else {
        CHECK(fewest == UINT64_MAX);  // no trials
      }
    }
  }
}
