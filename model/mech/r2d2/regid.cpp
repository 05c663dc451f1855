// R2D2's register ID calculation: the C++ reference, the Verilated RTL and
// the lockstep of the two (regid.h).
#include "mech/r2d2/regid.h"

#include <algorithm>

#include <fmt/format.h>
#include <verilated.h>

#include "Vr2d2_regid.h"
#include "common/error.h"
#include "common/vcd_writer.h"

namespace rfsim::mech::r2d2 {

// ---------------------------------------------------------------------------
// Reference: Fig. 11's formulas, one per kind.

RegIdRef::RegIdRef(const RegIdParams& p) : p_(p) {
  if (p.num_linear > tr_.size()) throw Error("r2d2: the register table has at most 16 entries");
  reset();
}

void RegIdRef::reset() {
  tr_.fill(0);
  valid_.fill(false);
  last_ = {};
}

void RegIdRef::evaluate(const RegIdInputs& in, RegIdOutputs& out) {
  last_ = in;
  out = {};
  const uint64_t wpc = in.warps_per_cta;
  const uint32_t lin = in.reg % p_.num_linear;
  const uint64_t br_row = uint64_t{in.br_offset} + 2ull * in.cta;
  uint64_t row = 0;
  bool bad_wpc = false;
  switch (static_cast<RegKind>(in.kind)) {
    case RegKind::Gpr:
      row = uint64_t{in.gpr_offset} + uint64_t{in.reg} * in.num_warps + in.warp;
      break;
    case RegKind::Tr:
    case RegKind::Lr: {
      const uint64_t tr = in.kind == uint32_t(RegKind::Lr) ? tr_[lin] : lin;
      row = tr * wpc + (wpc ? in.warp % wpc : 0);
      bad_wpc = wpc == 0 || wpc > p_.max_warps_per_cta;
      if (in.kind == uint32_t(RegKind::Lr)) {
        out.br_id = uint32_t(br_row % p_.num_warp_regs);
        out.lane = lin;
      }
      break;
    }
    case RegKind::Br:
      row = br_row;
      break;
    case RegKind::Cr:
      row = uint64_t{in.cr_offset} + (in.reg >> 4);
      out.lane = 2 * (in.reg & 15);
      break;
  }
  out.id = uint32_t(row % p_.num_warp_regs);
  const bool lr = in.kind == uint32_t(RegKind::Lr);
  const bool bad_warp = in.kind == uint32_t(RegKind::Gpr) && (in.num_warps == 0 || in.warp >= in.num_warps);
  out.error = in.kind > uint32_t(RegKind::Lr) || bad_warp || row >= p_.num_warp_regs || (lr && br_row >= p_.num_warp_regs) ||
              (lr && !valid_[lin]) || bad_wpc;
  if (in.kind > uint32_t(RegKind::Lr)) out.id = 0;
}

void RegIdRef::tick() {
  if (last_.tbl_we) {
    tr_[last_.tbl_idx % p_.num_linear] = last_.tbl_tr % p_.num_linear;
    valid_[last_.tbl_idx % p_.num_linear] = true;
  }
  last_.tbl_we = false;
}

// ---------------------------------------------------------------------------
// RTL

struct RegIdRtl::Impl {
  VerilatedContext ctx;
  std::unique_ptr<Vr2d2_regid> top;
  VcdWriter vcd;
};

RegIdParams RegIdRtl::built() {
  RegIdParams p;
  p.num_warps = RFSIM_R2D2_NUM_WARPS;
  p.num_warp_regs = RFSIM_R2D2_NUM_WARP_REGS;
  return p;
}

RegIdRtl::RegIdRtl(const RegIdParams& p) : impl_(std::make_unique<Impl>()) {
  const RegIdParams b = built();
  if (p.num_warps != b.num_warps || p.num_warp_regs != b.num_warp_regs || p.max_ctas != b.max_ctas ||
      p.max_warps_per_cta != b.max_warps_per_cta || p.num_linear != b.num_linear)
    throw Error(fmt::format("r2d2: the Verilated register ID unit is built for {} warps and {} warp registers; this "
                            "configuration needs {} and {} (rebuild with -DRFSIM_R2D2_NUM_WARPS and "
                            "-DRFSIM_R2D2_NUM_WARP_REGS)",
                            b.num_warps, b.num_warp_regs, p.num_warps, p.num_warp_regs));
  impl_->ctx.traceEverOn(true);
  impl_->top = std::make_unique<Vr2d2_regid>(&impl_->ctx, "TOP");
  reset();
}

RegIdRtl::~RegIdRtl() {
  closeTrace();
  if (impl_->top) impl_->top->final();
}

void RegIdRtl::traceTo(const std::filesystem::path& vcd, uint64_t first, uint64_t last) {
  impl_->vcd.open(*impl_->top, vcd);
  tracing_ = true;
  first_ = first;
  last_ = last;
}

void RegIdRtl::closeTrace() {
  impl_->vcd.close();
  tracing_ = false;
}

void RegIdRtl::dump() {
  if (!tracing_ || cycle_ < first_ || cycle_ > last_) return;
  impl_->vcd.dump(cycle_ * 1000 + std::min<uint64_t>(sub_, 99) * 10);
  ++sub_;
}

void RegIdRtl::reset() {
  auto& t = *impl_->top;
  t.clk_i = 0;
  t.tbl_we_i = 0;
  t.rst_ni = 0;
  t.eval();
  t.rst_ni = 1;
  t.eval();
}

void RegIdRtl::evaluate(const RegIdInputs& in, RegIdOutputs& out) {
  auto& t = *impl_->top;
  idle_pending_ = false;
  t.clk_i = 0;
  t.tbl_we_i = in.tbl_we;
  t.tbl_idx_i = in.tbl_idx;
  t.tbl_tr_i = in.tbl_tr;
  t.warps_per_cta_i = in.warps_per_cta;
  t.num_warps_i = in.num_warps;
  t.gpr_offset_i = in.gpr_offset;
  t.br_offset_i = in.br_offset;
  t.cr_offset_i = in.cr_offset;
  t.kind_i = in.kind;
  t.reg_i = in.reg;
  t.warp_i = in.warp;
  t.cta_i = in.cta;
  t.eval();
  out.id = t.id_o;
  out.br_id = t.br_id_o;
  out.lane = t.lane_o;
  out.error = t.error_o;
  dump();
}

void RegIdRtl::tick() {
  auto& t = *impl_->top;
  if (idle_pending_) t.eval();  // the clock low again before its next edge
  t.clk_i = 1;
  t.eval();
  t.tbl_we_i = 0;
  t.clk_i = 0;
  idle_pending_ = true;
}

// ---------------------------------------------------------------------------
// Lockstep

RegIdLockstep::RegIdLockstep(const RegIdParams& p) : ref_(p), rtl_(p) {}

void RegIdLockstep::reset() {
  ref_.reset();
  rtl_.reset();
}

void RegIdLockstep::evaluate(const RegIdInputs& in, RegIdOutputs& out) {
  RegIdOutputs r;
  ref_.evaluate(in, out);
  rtl_.evaluate(in, r);
  ++comparisons_;
  if (!(out == r))
    throw Error(fmt::format("r2d2 register ID unit: RTL and reference differ after {} lookups: kind {} reg {} warp {} "
                            "cta {} warps/CTA {} warps {} offsets {}/{}/{}: reference id {} br {} lane {} error {}, RTL id {} br "
                            "{} lane {} error {}",
                            comparisons_, in.kind, in.reg, in.warp, in.cta, in.warps_per_cta, in.num_warps, in.gpr_offset,
                            in.br_offset, in.cr_offset, out.id, out.br_id, out.lane, out.error, r.id, r.br_id, r.lane,
                            r.error));
}

void RegIdLockstep::tick() {
  ref_.tick();
  rtl_.tick();
}

}  // namespace rfsim::mech::r2d2
