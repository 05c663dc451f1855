#include "mech/cars/rename_rtl.h"

#include <array>

#include <fmt/format.h>
#include <verilated.h>

#include "Vcars_rename.h"
#include "common/error.h"
#include "common/vcd_writer.h"

namespace rfsim::cars {

namespace {

// Verilator maps ports of up to 64 bits to integers and wider ones to
// VlWide<N> (32-bit words); these read/write a field of either.
// Waveform time: one cycle is 1 ns, the clock rises at its middle.
constexpr uint64_t kPeriodPs = 1000;
template <class T>
uint32_t field(const T& sig, uint32_t lsb, uint32_t width) {
  return static_cast<uint32_t>((static_cast<uint64_t>(sig) >> lsb) & ((1ull << width) - 1));
}
// A field of at most 32 bits spans at most two of the 32-bit words.
template <std::size_t N>
uint32_t field(const VlWide<N>& sig, uint32_t lsb, uint32_t width) {
  const uint32_t w = lsb / 32, sh = lsb % 32;
  uint64_t v = sig[w];
  if (sh + width > 32) v |= static_cast<uint64_t>(sig[w + 1]) << 32;
  return static_cast<uint32_t>((v >> sh) & ((1ull << width) - 1));
}
template <class T>
void setField(T& sig, uint32_t lsb, uint32_t width, uint32_t value) {
  const uint64_t mask = ((1ull << width) - 1) << lsb;
  sig = static_cast<T>((static_cast<uint64_t>(sig) & ~mask) | ((uint64_t{value} << lsb) & mask));
}
template <std::size_t N>
void setField(VlWide<N>& sig, uint32_t lsb, uint32_t width, uint32_t value) {
  for (uint32_t b = 0; b < width; ++b) {
    const uint32_t bit = lsb + b;
    const uint32_t m = 1u << (bit % 32);
    sig[bit / 32] = ((value >> b) & 1u) ? (sig[bit / 32] | m) : (sig[bit / 32] & ~m);
  }
}

// Ports' fields packed from bit 0, `width` bits each: v[0..n) and zeros
// above them (the ports beyond n present warp 0, R0).
template <class T>
void setPorts(T& sig, const uint32_t* v, uint32_t n, uint32_t width) {
  uint64_t x = 0;
  for (uint32_t i = 0; i < n; ++i) x |= (uint64_t{v[i]} & ((1ull << width) - 1)) << (i * width);
  sig = static_cast<T>(x);
}
template <std::size_t N>
void setPorts(VlWide<N>& sig, const uint32_t* v, uint32_t n, uint32_t width) {
  for (std::size_t w = 0; w < N; ++w) sig[w] = 0;
  for (uint32_t i = 0; i < n; ++i) setField(sig, i * width, width, v[i]);
}

}  // namespace

struct RenameRtl::Impl {
  VerilatedContext ctx;
  std::unique_ptr<Vcars_rename> top;
  VcdWriter vcd;
  uint64_t trace_start = 0, trace_end = 0;
};

RenameParams RenameRtl::builtParams() {
  RenameParams p;
  p.num_warps = RFSIM_CARS_NUM_WARPS;
  p.num_regs = RFSIM_CARS_NUM_REGS;
  p.read_ports = RFSIM_CARS_READ_PORTS;
  p.free_bits = RenameParams::forSm(p.num_warps, p.num_regs, 1).free_bits;
  return p;
}

RenameRtl::RenameRtl(const RenameParams& p)
    : impl_(std::make_unique<Impl>()), p_(p), warp_bits_(p.warpBits()), idx_bits_(p.idxBits()) {
  p_.check();
  const RenameParams b = builtParams();
  if (p.num_warps != b.num_warps || p.num_regs != b.num_regs || p.free_bits != b.free_bits ||
      p.read_ports > b.read_ports) {
    throw Error(fmt::format(
        "mechanisms.cars.rtl: the Verilated rename unit is built for {} warps x {} registers, {} free-counter bits and "
        "up to {} rename ports; this configuration needs {} x {}, {} bits, {} ports "
        "(rebuild with -DRFSIM_CARS_NUM_WARPS/-DRFSIM_CARS_NUM_REGS, or set mechanisms.cars.rtl: false)",
        b.num_warps, b.num_regs, b.free_bits, b.read_ports, p.num_warps, p.num_regs, p.free_bits,
        p.read_ports));
  }
  impl_->ctx.traceEverOn(true);
  impl_->top = std::make_unique<Vcars_rename>(&impl_->ctx, "TOP");
  reset();
}

RenameRtl::~RenameRtl() {
  closeTrace();
  if (impl_->top) impl_->top->final();
}

void RenameRtl::reset() {
  auto& t = *impl_->top;
  t.clk_i = 0;
  t.rst_ni = 0;
  t.op_valid_i = 0;
  t.eval();
  t.rst_ni = 1;
  t.eval();
}

void RenameRtl::traceTo(const std::filesystem::path& vcd, uint64_t start, uint64_t count) {
  impl_->vcd.open(*impl_->top, vcd);
  impl_->trace_start = start;
  impl_->trace_end = start + count;
}

void RenameRtl::closeTrace() { impl_->vcd.close(); }

void RenameRtl::evaluate(const Inputs& in, Outputs& out) {
  auto& t = *impl_->top;
  const uint32_t ww = warp_bits_, iw = idx_bits_;
  idle_pending_ = false;
  t.clk_i = 0;
  t.op_valid_i = in.op.valid;
  t.op_i = static_cast<uint8_t>(in.op.op);
  t.op_warp_i = in.op.warp;
  t.op_base_i = in.op.base;
  t.op_frame_i = in.op.frame;
  t.op_n_i = in.op.n;
  t.op_saved_rfp_i = in.op.saved_rfp;
  std::array<uint32_t, kMaxReadPorts> warps{}, regs{};
  for (uint32_t i = 0; i < p_.read_ports; ++i) {
    warps[i] = in.rd[i].warp;
    regs[i] = in.rd[i].reg;
  }
  setPorts(t.rd_warp_i, warps.data(), p_.read_ports, ww);
  setPorts(t.rd_reg_i, regs.data(), p_.read_ports, 8);
  t.dbg_warp_i = in.dbg_warp;
  t.eval();

  out.ack = t.op_ack_o;
  out.overflow = t.op_overflow_o;
  out.illegal = t.op_illegal_o;
  out.save_valid = t.save_valid_o;
  out.save_idx = t.save_idx_o;
  out.save_data = t.save_data_o;
  out.restore_idx = t.restore_idx_o;
  for (uint32_t i = 0; i < p_.read_ports; ++i) {
    out.rd_idx[i] = field(t.rd_idx_o, i * iw, iw);
    out.rd_stacked[i] = field(t.rd_stacked_o, i, 1);
  }
  out.dbg = WarpState{t.dbg_base_o, t.dbg_rfp_o, t.dbg_rsp_o, t.dbg_free_o};
}

void RenameRtl::tick() {
  auto& t = *impl_->top;
  // The cycle's sample is its last evaluation, just before the edge: the
  // unit is evaluated once per filled rename port and once more with the
  // cycle's operation, each presenting everything so far.
  const bool traced = cycle_ >= impl_->trace_start && cycle_ < impl_->trace_end;
  if (traced) impl_->vcd.dump(cycle_ * kPeriodPs);
  // An edge without an operation changes nothing: every register of
  // rtl/cars_rename.sv (the warps' Base, RFP, RSP, free count and K, and
  // the launch's F) loads only when `apply`, which needs op_valid_i, and
  // rst_ni stays high after reset(). Such an edge is not evaluated (the
  // clock stays low, or high after the last edge; the next evaluate()
  // presents every input again), except in the trace window, whose
  // waveform shows every edge. The lockstep comparison of the next
  // evaluation sees the state as it is either way.
  if (!traced && !t.op_valid_i) {
    ++cycle_;
    return;
  }
  if (idle_pending_) t.eval();
  t.clk_i = 1;
  t.eval();
  // The edge consumed the operation: the waveform shows the port idle for
  // the rest of the cycle, not the new state's answer to the old request.
  t.op_valid_i = 0;
  idle_pending_ = !traced;
  if (traced) {
    t.eval();
    impl_->vcd.dump(cycle_ * kPeriodPs + kPeriodPs / 2);
  }
  ++cycle_;
}

}  // namespace rfsim::cars
