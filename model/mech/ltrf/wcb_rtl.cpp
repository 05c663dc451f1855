#include "mech/ltrf/wcb_rtl.h"

#include <fmt/format.h>
#include <verilated.h>

#include "Vltrf_wcb.h"
#include "common/error.h"
#include "common/vcd_writer.h"

namespace rfsim::mech::ltrf {

struct WcbRtl::Impl {
  VerilatedContext ctx;
  std::unique_ptr<Vltrf_wcb> top;
  VcdWriter vcd;
};

WcbRtlParams WcbRtl::built() {
  return {RFSIM_LTRF_NUM_WARPS, 256, RFSIM_LTRF_NUM_BANKS, RFSIM_LTRF_NUM_OFFSETS};
}

WcbRtl::WcbRtl() : impl_(std::make_unique<Impl>()) {
  impl_->ctx.traceEverOn(true);
  impl_->top = std::make_unique<Vltrf_wcb>(&impl_->ctx, "TOP");
  auto& t = *impl_->top;
  // An asynchronous reset needs its falling edge: high, low, high.
  t.clk_i = 0;
  t.op_i = 0;
  t.rst_ni = 1;
  t.eval();
  t.rst_ni = 0;
  t.eval();
  t.rst_ni = 1;
  t.eval();
}

WcbRtl::~WcbRtl() {
  closeTrace();
  if (impl_->top) impl_->top->final();
}

void WcbRtl::setCycle(uint64_t cycle) {
  if (cycle != cycle_) sub_ = 0;
  cycle_ = cycle;
}

void WcbRtl::dump() {
  if (!tracing_ || cycle_ < first_ || cycle_ > last_) return;
  impl_->vcd.dump(cycle_ * 1000 + std::min<uint64_t>(sub_, 99) * 10);
  ++sub_;
}

WcbRtl::Result WcbRtl::op(Op op, uint32_t warp, uint32_t reg) {
  auto& t = *impl_->top;
  idle_pending_ = false;
  t.clk_i = 0;
  t.op_i = static_cast<uint8_t>(op);
  t.op_warp_i = warp;
  t.op_reg_i = reg;
  t.eval();
  Result r{t.op_ok_o != 0, t.op_bank_o, t.op_offset_o};
  dump();
  t.clk_i = 1;
  t.eval();
  t.op_i = 0;
  t.clk_i = 0;
  if (tracing_ && cycle_ >= first_ && cycle_ <= last_) {
    t.eval();
    dump();
  } else {
    idle_pending_ = true;  // nothing reads the outputs before the next eval()
  }
  ++ops_;
  return r;
}

WcbRtl::Lookup WcbRtl::lookup(uint32_t warp, uint32_t reg, unsigned port) {
  auto& t = *impl_->top;
  idle_pending_ = false;
  if (port == 0) {
    t.rd0_warp_i = warp;
    t.rd0_reg_i = reg;
    t.eval();
    return {t.rd0_hit_o != 0, t.rd0_bank_o, t.rd0_offset_o, t.rd0_index_o};
  }
  t.rd1_warp_i = warp;
  t.rd1_reg_i = reg;
  t.eval();
  return {t.rd1_hit_o != 0, t.rd1_bank_o, t.rd1_offset_o, t.rd1_index_o};
}

void WcbRtl::traceTo(const std::filesystem::path& vcd, uint64_t first, uint64_t last) {
  impl_->vcd.open(*impl_->top, vcd);
  tracing_ = true;
  first_ = first;
  last_ = last;
}

void WcbRtl::closeTrace() {
  impl_->vcd.close();
  tracing_ = false;
}

}  // namespace rfsim::mech::ltrf
