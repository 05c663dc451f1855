// The Verilated rtl/cars_stalled_warps.sv behind the StalledUnit interface,
// driven as RenameRtl drives the rename unit (rename_rtl.h): one eval() for
// the combinational outputs, one per clock edge.
#include <fmt/format.h>
#include <verilated.h>

#include "Vcars_stalled_warps.h"
#include "common/error.h"
#include "common/vcd_writer.h"
#include "mech/cars/stalled_warps.h"

namespace rfsim::cars {

struct StalledRtl::Impl {
  VerilatedContext ctx;
  std::unique_ptr<Vcars_stalled_warps> top;
  VcdWriter vcd;
};

uint32_t StalledRtl::builtWarps() { return RFSIM_CARS_NUM_WARPS; }

StalledRtl::StalledRtl(uint32_t num_warps) : impl_(std::make_unique<Impl>()), n_(num_warps) {
  if (num_warps != builtWarps())
    throw Error(fmt::format("mechanisms.cars.rtl: the Verilated stalled-warp list is built for {} warps; this "
                            "configuration needs {} (rebuild with -DRFSIM_CARS_NUM_WARPS, or set mechanisms.cars.rtl: "
                            "false)",
                            builtWarps(), num_warps));
  impl_->ctx.traceEverOn(true);
  impl_->top = std::make_unique<Vcars_stalled_warps>(&impl_->ctx, "TOP");
  reset();
}

StalledRtl::~StalledRtl() {
  closeTrace();
  if (impl_->top) impl_->top->final();
}

void StalledRtl::reset() {
  auto& t = *impl_->top;
  t.clk_i = 0;
  t.rst_ni = 0;
  t.push_i = 0;
  t.rm_i = 0;
  t.check_i = 0;
  t.eval();
  t.rst_ni = 1;
  t.eval();
}

bool StalledRtl::tracing() const { return impl_->vcd.isOpen(); }

void StalledRtl::traceTo(const std::filesystem::path& vcd) { impl_->vcd.open(*impl_->top, vcd); }

void StalledRtl::closeTrace() { impl_->vcd.close(); }

void StalledRtl::evaluate(const StalledInputs& in, StalledOutputs& out) {
  auto& t = *impl_->top;
  idle_pending_ = false;
  t.clk_i = 0;
  t.push_i = in.push;
  t.push_warp_i = in.push_warp;
  t.rm_i = in.rm;
  t.rm_warp_i = in.rm_warp;
  t.check_i = in.check;
  t.elig_i = in.elig;
  t.fit_i = in.fit;
  t.dbg_idx_i = in.dbg_idx;
  t.eval();
  out.sel_valid = t.sel_valid_o;
  out.sel_warp = t.sel_warp_o;
  out.release = t.release_o;
  out.count = t.count_o;
  out.error = t.error_o;
  out.dbg_entry = t.dbg_entry_o;
  if (dump_) impl_->vcd.dump(eval_ps_);
}

void StalledRtl::tick() {
  auto& t = *impl_->top;
  if (idle_pending_) t.eval();
  t.clk_i = 1;
  t.eval();
  // The edge consumed the operation (as RenameRtl::tick).
  t.push_i = 0;
  t.rm_i = 0;
  t.check_i = 0;
  idle_pending_ = !dump_;
  if (dump_) {
    t.eval();
    impl_->vcd.dump(edge_ps_);
  }
}

}  // namespace rfsim::cars
