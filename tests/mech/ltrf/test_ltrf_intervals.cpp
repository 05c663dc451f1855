// LTRF's register-interval formation (model/mech/ltrf/intervals.h): cuts in
// straight-line code, a call's own interval, nested loops flattened one
// level per Pass 2 repetition, the soundness fix on sibling branches, and
// the invariants on every function of every workload.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "common/error.h"
#include "mech/ltrf/intervals.h"
#include "ptx/analysis/cfg.h"
#include "ptx/parser.h"

using namespace rfsim;
using namespace rfsim::mech::ltrf;

namespace {

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

ptx::Module parse(const std::string& body, const std::string& name) {
  ptx::Module m = ptx::parseString(std::string(kHeader) + body, name);
  ptx::buildCfg(m);
  return m;
}

// Every instruction in exactly one segment, every interval within N and
// entered only through its first segment.
void checkInvariants(const ptx::Function& fn, const Intervals& iv) {
  std::vector<std::vector<int>> covered(fn.blocks.size());
  for (uint32_t b = 0; b < fn.blocks.size(); ++b) covered[b].assign(fn.blocks[b].instrs.size(), 0);
  for (const auto& s : iv.segments)
    for (uint32_t k = s.begin; k < s.end; ++k) ++covered[s.block][k];
  for (uint32_t b = 0; b < fn.blocks.size(); ++b)
    for (uint32_t k = 0; k < fn.blocks[b].instrs.size(); ++k) REQUIRE(covered[b][k] == 1);
  REQUIRE(iv.interval_of.size() == iv.segments.size());
  for (uint32_t i = 0; i < iv.intervals.size(); ++i) {
    const Interval& in = iv.intervals[i];
    REQUIRE_FALSE(in.segments.empty());
    CHECK(in.regs.count() <= iv.n);
    RegSet all;
    for (uint32_t s : in.segments) {
      REQUIRE(iv.interval_of[s] == i);
      const auto& seg = iv.segments[s];
      for (uint32_t k = seg.begin; k < seg.end; ++k) all |= namedRegs(fn, fn.blocks[seg.block].instrs[k], false);
      if (s == in.segments[0]) continue;
      for (uint32_t p : iv.seg_preds[s]) CHECK(iv.interval_of[p] == i);  // single entry
    }
    CHECK(RegSet::unionCount(all, in.regs) == in.regs.count());  // the working set covers the interval
  }
}

}  // namespace

TEST_CASE("LTRF intervals: straight-line code is cut before the register that does not fit") {
  const ptx::Module m = parse(R"(
.visible .entry line(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 1;
  add.s32 %r2, %r1, 2;
  add.s32 %r3, %r2, %r1;
  add.s32 %r4, %r3, 1;
  st.global.u32 [%rd1], %r4;
  ret;
}
)",
                              "line.ptx");
  const ptx::Function& fn = *m.findFunction("line");
  const Intervals iv = formIntervals(fn, 3, false);
  checkInvariants(fn, iv);
  // {rd1, r1, r2} | cut before r3: {r1, r2, r3} | cut before r4: {r3, r4, rd1}.
  REQUIRE(iv.intervals.size() == 3);
  CHECK(iv.segments[iv.intervals[0].segments[0]].end == 3);
  CHECK(iv.segments[iv.intervals[1].segments[0]].begin == 3);
  CHECK(iv.segments[iv.intervals[2].segments[0]].begin == 4);
  for (const auto& i : iv.intervals) CHECK(i.regs.count() == 3);
  // With room for all five, one interval.
  CHECK(formIntervals(fn, 5, false).intervals.size() == 1);
  CHECK_THROWS_AS(formIntervals(fn, 1, false), Error);  // add names 2 registers
}

TEST_CASE("LTRF intervals: a call is an interval of its own") {
  const ptx::Module m = parse(R"(
.func (.param .b32 retv) f(.param .b32 a)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  add.s32 %r2, %r1, 1;
  st.param.b32 [retv], %r2;
  ret;
}
.visible .entry callk(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 5;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), f, (param0);
  ld.param.b32 %r2, [retval0];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
)",
                              "call.ptx");
  const ptx::Function& fn = *m.findFunction("callk");
  const Intervals iv = formIntervals(fn, 16, false);
  checkInvariants(fn, iv);
  int calls = 0;
  for (const auto& i : iv.intervals)
    if (i.call) {
      ++calls;
      REQUIRE(i.segments.size() == 1);
      const auto& s = iv.segments[i.segments[0]];
      CHECK(s.end == s.begin + 1);
      CHECK(fn.blocks[s.block].instrs[s.begin].op == ptx::Op::Call);
    }
  CHECK(calls == 1);
  // Before the call, the call, after it: nothing merges across a call.
  CHECK(iv.intervals.size() == 3);
}

TEST_CASE("LTRF intervals: nested loops flatten one level per Pass 2 repetition") {
  const ptx::Module m = parse(R"(
.visible .entry nest(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
OUTER:
  mov.u32 %r3, 0;
INNER:
  add.s32 %r4, %r3, %r2;
  add.s32 %r3, %r3, 1;
  setp.lt.s32 %p1, %r3, %r1;
  @%p1 bra INNER;
  add.s32 %r2, %r2, 1;
  setp.lt.s32 %p2, %r2, %r1;
  @%p2 bra OUTER;
  st.global.u32 [%rd1], %r4;
  ret;
}
)",
                              "nest.ptx");
  const ptx::Function& fn = *m.findFunction("nest");
  const Intervals iv = formIntervals(fn, 16, false);
  checkInvariants(fn, iv);
  // Pass 1: the entry; the outer header (its latch is not in yet); the inner
  // loop with everything after it. Pass 2: the inner loop joins the outer
  // header, then the outer loop joins the entry.
  CHECK(iv.pass1_intervals == 3);
  CHECK(iv.pass2_rounds == 2);
  CHECK(iv.intervals.size() == 1);
  CHECK(iv.intervals[0].regs.count() == 5);  // rd1, r1..r4; predicates are not in the register file
  // With 4 slots the five registers cannot share one interval.
  const Intervals small = formIntervals(fn, 4, false);
  checkInvariants(fn, small);
  CHECK(small.intervals.size() > 1);
}

TEST_CASE("LTRF intervals: two branches that together exceed N do not share an interval (the soundness fix)") {
  const ptx::Module m = parse(R"(
.visible .entry diamond(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<2>;
  ld.param.u32 %r1, [n];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra ELSE;
  add.s32 %r2, %r1, 1;
  add.s32 %r3, %r2, 1;
  bra.uni DONE;
ELSE:
  add.s32 %r5, %r1, 2;
  add.s32 %r6, %r5, 2;
DONE:
  ret;
}
)",
                              "diamond.ptx");
  const ptx::Function& fn = *m.findFunction("diamond");
  // Each branch with the entry is 3 registers; the paper's predecessor-only
  // check (the entry's 1) would put both branches in one interval of 5.
  const Intervals iv = formIntervals(fn, 3, false);
  checkInvariants(fn, iv);
  CHECK(iv.intervals.size() >= 2);
  const Intervals wide = formIntervals(fn, 5, false);
  checkInvariants(fn, wide);
  CHECK(wide.intervals.size() == 1);
}

TEST_CASE("LTRF intervals: every function of every workload, N = 8, 16 and 32") {
  namespace fs = std::filesystem;
  int functions = 0;
  for (const auto& e : fs::recursive_directory_iterator(std::string(RFSIM_SOURCE_DIR) + "/workloads")) {
    if (e.path().extension() != ".ptx" || e.path().string().find(".inlined.") != std::string::npos) continue;
    ptx::Module m = ptx::parseFile(e.path());
    ptx::buildCfg(m);
    for (const ptx::Function& fn : m.functions) {
      if (fn.is_extern || fn.blocks.empty()) continue;
      for (uint32_t n : {8u, 16u, 32u}) {
        INFO(e.path().string() << " " << fn.name << " N=" << n);
        const Intervals iv = formIntervals(fn, n, false);
        checkInvariants(fn, iv);
        CHECK(iv.intervals.size() <= iv.pass1_intervals);
      }
      ++functions;
    }
  }
  CHECK(functions > 80);
}

TEST_CASE("LTRF strands end before a long-latency load's first use and do not merge loops") {
  const ptx::Module m = parse(R"(
.visible .entry strand(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r5, 0;
$L_loop:
  ld.global.u32 %r1, [%rd1];
  add.s32 %r2, %r5, 3;
  add.s32 %r3, %r1, %r2;
  add.s32 %r5, %r5, 1;
  setp.lt.s32 %p1, %r5, 4;
  @%p1 bra $L_loop;
  st.global.u32 [%rd2], %r3;
  ret;
}
)",
                              "strand.ptx");
  const ptx::Function& fn = *m.findFunction("strand");
  const Intervals iv = formIntervals(fn, 16, false);
  const Intervals st = formIntervals(fn, 16, false, true);
  checkInvariants(fn, iv);
  checkInvariants(fn, st);
  // Everything fits 16: the loop merges into one interval. Strands keep the
  // loop apart and cut it before `add %r3, %r1, ...`, the load's first use.
  CHECK(iv.intervals.size() == 1);
  CHECK(st.pass2_rounds == 0);
  REQUIRE(st.intervals.size() >= 3);
  bool cut_at_use = false;
  for (const auto& s : st.segments)
    if (s.block == 1 && s.begin == 2) cut_at_use = true;  // the loop block, before its third instruction
  CHECK(cut_at_use);
}
