#include "mech/cars/rename_lockstep.h"

#include <fmt/format.h>

namespace rfsim::cars {

std::string diffOutputs(const RenameParams& p, const Inputs& in, const Outputs& ref, const Outputs& dut) {
  auto diff = [&](const char* what, uint32_t warp, uint64_t r, uint64_t d) {
    return fmt::format("{} of warp {} (op {} on warp {}): reference {} rtl {}", what, warp, opName(in.op.op),
                       in.op.warp, r, d);
  };
  const uint32_t ow = in.op.warp;
  if (ref.ack != dut.ack) return diff("op_ack", ow, ref.ack, dut.ack);
  if (ref.overflow != dut.overflow) return diff("op_overflow", ow, ref.overflow, dut.overflow);
  if (ref.illegal != dut.illegal) return diff("op_illegal", ow, ref.illegal, dut.illegal);
  if (ref.save_valid != dut.save_valid) return diff("save_valid", ow, ref.save_valid, dut.save_valid);
  if (ref.save_idx != dut.save_idx) return diff("save_idx", ow, ref.save_idx, dut.save_idx);
  if (ref.save_data != dut.save_data) return diff("save_data", ow, ref.save_data, dut.save_data);
  if (ref.restore_idx != dut.restore_idx) return diff("restore_idx", ow, ref.restore_idx, dut.restore_idx);
  for (uint32_t i = 0; i < p.read_ports; ++i) {
    const uint32_t w = in.rd[i].warp;
    if (ref.rd_stacked[i] != dut.rd_stacked[i])
      return diff(fmt::format("rd_stacked[{}] (R{})", i, in.rd[i].reg).c_str(), w, ref.rd_stacked[i],
                  dut.rd_stacked[i]);
    if (ref.rd_idx[i] != dut.rd_idx[i])
      return diff(fmt::format("rd_idx[{}] (R{})", i, in.rd[i].reg).c_str(), w, ref.rd_idx[i], dut.rd_idx[i]);
  }
  const uint32_t dw = in.dbg_warp;
  if (ref.dbg.base != dut.dbg.base) return diff("Base", dw, ref.dbg.base, dut.dbg.base);
  if (ref.dbg.rfp != dut.dbg.rfp) return diff("RFP", dw, ref.dbg.rfp, dut.dbg.rfp);
  if (ref.dbg.rsp != dut.dbg.rsp) return diff("RSP", dw, ref.dbg.rsp, dut.dbg.rsp);
  if (ref.dbg.free != dut.dbg.free) return diff("free count", dw, ref.dbg.free, dut.dbg.free);
  return {};
}

bool sameOutputs(const RenameParams& p, const Outputs& ref, const Outputs& dut) {
  bool same = ref.ack == dut.ack && ref.overflow == dut.overflow && ref.illegal == dut.illegal &&
              ref.save_valid == dut.save_valid && ref.save_idx == dut.save_idx && ref.save_data == dut.save_data &&
              ref.restore_idx == dut.restore_idx && ref.dbg == dut.dbg;
  for (uint32_t i = 0; i < p.read_ports; ++i)
    same = same && ref.rd_stacked[i] == dut.rd_stacked[i] && ref.rd_idx[i] == dut.rd_idx[i];
  return same;
}

RenameLockstep::RenameLockstep(const RenameParams& p) : ref_(p), rtl_(p) {}

void RenameLockstep::evaluate(const Inputs& in, Outputs& out) {
  ref_.evaluate(in, out);
  rtl_.evaluate(in, rtl_out_);
  ++comparisons_;
  if (!sameOutputs(ref_.params(), out, rtl_out_))
    throw CosimMismatch(
        fmt::format("co-simulation mismatch at cycle {}: {}", cycle_, diffOutputs(ref_.params(), in, out, rtl_out_)));
}

void RenameLockstep::tick() {
  ref_.tick();
  rtl_.tick();
  ++cycle_;
}

void RenameLockstep::reset() {
  ref_.reset();
  rtl_.reset();
}

}  // namespace rfsim::cars
