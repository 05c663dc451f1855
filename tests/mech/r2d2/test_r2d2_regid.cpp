// R2D2's physical register ID calculation (model/mech/r2d2/regid.h,
// rtl/r2d2_regid.sv): Fig. 11's formulas on hand-computed cases through the
// reference and the Verilated RTL in lockstep, the errors, and random
// lookups with table writes, every output compared.
#include <catch2/catch.hpp>

#include <random>

#include "common/error.h"
#include "mech/r2d2/regid.h"

using namespace rfsim;
using namespace rfsim::mech::r2d2;

namespace {

RegIdOutputs lookup(RegIdUnit& u, RegKind kind, uint32_t reg, uint32_t warp, uint32_t cta, uint32_t wpc = 8) {
  RegIdInputs in;
  in.kind = uint32_t(kind);
  in.reg = reg;
  in.warp = warp;
  in.cta = cta;
  in.warps_per_cta = wpc;
  in.gpr_offset = 256;
  in.br_offset = 1000;
  in.cr_offset = 1500;
  RegIdOutputs out;
  u.evaluate(in, out);
  u.tick();
  return out;
}

void writeTable(RegIdUnit& u, uint32_t lr, uint32_t tr) {
  RegIdInputs in;
  in.tbl_we = true;
  in.tbl_idx = lr;
  in.tbl_tr = tr;
  RegIdOutputs out;
  u.evaluate(in, out);
  u.tick();
}

}  // namespace

TEST_CASE("R2D2 register IDs: Fig. 11 by hand, reference and RTL in lockstep") {
  RegIdLockstep u;
  // GPR: type offset + reg * warps per SM + warp = 256 + 3*64 + 5.
  auto g = lookup(u, RegKind::Gpr, 3, 5, 0);
  CHECK(g.id == 453);
  CHECK_FALSE(g.error);
  // TR: TR.id * warps/CTA + (warp mod warps/CTA) = 2*8 + 13 mod 8; the same
  // row for the warp at the same position of another CTA (warp 5).
  CHECK(lookup(u, RegKind::Tr, 2, 13, 1).id == 21);
  CHECK(lookup(u, RegKind::Tr, 2, 5, 0).id == 21);
  // BR: BR.offset + 2 * CTA slot.
  CHECK(lookup(u, RegKind::Br, 0, 13, 7).id == 1014);
  // CR: CR.offset + reg / 16, lanes 2*(reg mod 16) and +1.
  auto c = lookup(u, RegKind::Cr, 37, 0, 0);
  CHECK(c.id == 1502);
  CHECK(c.lane == 10);
  // LR: an unwritten table entry is an error; after %lr3 -> %tr2 its TR row,
  // its CTA's BR row and the BR pair's lane 3.
  CHECK(lookup(u, RegKind::Lr, 3, 13, 7).error);
  writeTable(u, 3, 2);
  auto l = lookup(u, RegKind::Lr, 3, 13, 7);
  CHECK_FALSE(l.error);
  CHECK(l.id == 21);
  CHECK(l.br_id == 1014);
  CHECK(l.lane == 3);
  // Errors: a row past the register file, no warps per CTA, an unknown kind.
  CHECK(lookup(u, RegKind::Gpr, 30, 0, 0).error);  // 256 + 30*64 = 2176 > 2047
  CHECK(lookup(u, RegKind::Tr, 1, 0, 0, 0).error);
  CHECK(lookup(u, RegKind(5), 0, 0, 0).error);
  // The GPR interleave's stride is the launch's resident warps: with 24,
  // R3 of warp 5 is 256 + 3*24 + 5; a warp at or past 24 is an error.
  RegIdInputs in;
  in.kind = uint32_t(RegKind::Gpr);
  in.reg = 3;
  in.warp = 5;
  in.num_warps = 24;
  in.gpr_offset = 256;
  RegIdOutputs o;
  u.evaluate(in, o);
  CHECK(o.id == 333);
  CHECK_FALSE(o.error);
  in.warp = 24;
  u.evaluate(in, o);
  CHECK(o.error);
  in.num_warps = 0;
  in.warp = 0;
  u.evaluate(in, o);
  CHECK(o.error);
  // A reset clears the table.
  u.reset();
  CHECK(lookup(u, RegKind::Lr, 3, 13, 7).error);
  CHECK(u.comparisons() > 10);
}

TEST_CASE("R2D2 register IDs: 200 000 random lookups and table writes, RTL and reference in lockstep") {
  RegIdLockstep u;
  std::mt19937_64 rng(2023);
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  uint64_t errors = 0, lr_ok = 0;
  for (int i = 0; i < 200000; ++i) {
    RegIdInputs in;
    in.tbl_we = pick(16) == 0;
    in.tbl_idx = pick(16);
    in.tbl_tr = pick(16);
    in.warps_per_cta = pick(8) == 0 ? pick(64) : 1 + pick(32);
    in.gpr_offset = pick(4) == 0 ? pick(2048) : pick(64);
    in.br_offset = 1024 + pick(1024);
    in.cr_offset = 1024 + pick(1024);
    in.kind = pick(16) == 0 ? pick(8) : pick(5);
    in.reg = pick(4) == 0 ? pick(256) : pick(32);
    in.warp = pick(64);
    in.num_warps = pick(8) == 0 ? pick(65) : 64;
    in.cta = pick(32);
    RegIdOutputs out;
    REQUIRE_NOTHROW(u.evaluate(in, out));
    errors += out.error;
    lr_ok += in.kind == uint32_t(RegKind::Lr) && !out.error;
    u.tick();
  }
  CHECK(u.comparisons() == 200000);
  // Both outcomes were exercised.
  CHECK(errors > 1000);
  CHECK(lr_ok > 1000);
}

TEST_CASE("R2D2 register IDs: the RTL refuses parameters it was not built for") {
  RegIdParams p = RegIdRtl::built();
  p.num_warps = 48;
  CHECK_THROWS_AS(RegIdRtl(p), Error);
  CHECK_NOTHROW(RegIdRef(p));
}
