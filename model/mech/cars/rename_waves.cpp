#include "mech/cars/rename_waves.h"

#include <fmt/format.h>

namespace rfsim::cars {

GtkwView renameWaveView(const RenameParams& p, const std::string& vcd, uint64_t start_cycle, uint32_t warps_shown) {
  using F = GtkwSignal::Format;
  const std::string top = "TOP.cars_rename.";
  const uint32_t ww = p.warpBits(), iw = p.idxBits();
  auto sig = [&](const std::string& name, uint32_t width, F f) {
    return GtkwSignal{width == 1 ? top + name : fmt::format("{}{}[{}:0]", top, name, width - 1), f};
  };

  GtkwView v;
  v.dumpfile = vcd;
  v.start_time = start_cycle * 1000;  // RenameRtl writes one cycle per 1000 ps
  // gtkwave draws 2^-zoom time units per 200 pixels: -13 is 8192 ps per 200 px,
  // ~24 px a cycle, ~60 cycles across the wave pane of a 1920-pixel window.
  v.zoom = -13;
  v.open_scopes = {"TOP.", "TOP.cars_rename."};
  v.groups.push_back({"clock and reset", {sig("clk_i", 1, F::Bin), sig("rst_ni", 1, F::Bin)}});
  v.groups.push_back({"operation (1=launch 2=call 3=ret 4=push 5=pop 6=spill 7=fill)",
                      {sig("op_valid_i", 1, F::Bin), sig("op_i", 3, F::Dec), sig("op_warp_i", ww, F::Dec),
                       sig("op_base_i", iw, F::Dec), sig("op_frame_i", iw, F::Dec), sig("op_n_i", iw, F::Dec),
                       sig("op_saved_rfp_i", iw, F::Dec), sig("op_ack_o", 1, F::Bin), sig("op_overflow_o", 1, F::Bin),
                       sig("op_illegal_o", 1, F::Bin)}});
  v.groups.push_back({"RFP save / restore (register file)",
                      {sig("save_valid_o", 1, F::Bin), sig("save_idx_o", iw, F::Dec), sig("save_data_o", iw, F::Dec),
                       sig("restore_idx_o", iw, F::Dec)}});
  for (uint32_t i = 0; i < p.read_ports && i < 2; ++i) {
    const std::string port = fmt::format("g_port[{}].", i);
    v.groups.push_back({fmt::format("rename port {}", i),
                        {sig(port + "w", ww, F::Dec), sig(port + "x", 8, F::Dec), sig(port + "stacked", 1, F::Bin),
                         sig(port + "idx", iw, F::Dec)}});
  }
  for (uint32_t w = 0; w < warps_shown && w < p.num_warps; ++w) {
    v.groups.push_back({fmt::format("warp {} state", w),
                        {sig(fmt::format("base_q[{}]", w), iw, F::Dec), sig(fmt::format("rfp_q[{}]", w), iw, F::Dec),
                         sig(fmt::format("rsp_q[{}]", w), iw, F::Dec),
                         sig(fmt::format("free_q[{}]", w), p.free_bits, F::Dec)}});
  }
  return v;
}

}  // namespace rfsim::cars
