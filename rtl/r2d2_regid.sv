// R2D2's physical register ID calculation and register table (Ha, Oh, Ro,
// ISCA'23, section 4.2, Fig. 11). The operand collector asks it, per operand,
// for the register-file row of:
//   GPR  a general register:        gpr_offset + reg * num_warps + warp
//                                   (the baseline's register-major interleave over
//                                   the warps the launch keeps resident, num_warps)
//   TR   a thread-index register:   reg * warps_per_cta + (warp mod warps_per_cta)
//                                   (type offset 0; warps at the same position of
//                                   every CTA share it)
//   BR   a block-index register:    br_offset + 2 * cta (a register pair per CTA)
//   CR   a coefficient register:    cr_offset + reg / 16, lanes 2*(reg mod 16) and +1
//                                   (16 eight-byte coefficients per warp register)
//   LR   a linear register %lrK:    its thread-index part, TR = table[K], at the TR
//                                   row, and its block-index part at the CTA's BR row,
//                                   lane K (the pair's lane of linear register K)
// The register table maps each linear register (4-bit ID) to its thread-index
// register (4-bit ID): 16 x 8 bits, written when the kernel is launched. The
// type offsets and warps per CTA come from the CTA scheduler at launch.
//
// The lookup is combinational; error_o flags a row outside the register file,
// a general register of a warp at or past num_warps,
// an LR whose table entry was never written, warps_per_cta of 0, or an unknown
// kind. A table write takes effect at the clock edge.
module r2d2_regid #(
  parameter int unsigned NumWarps       = 64,    // hardware warps per SM
  parameter int unsigned NumWarpRegs    = 2048,  // warp registers (256 KB / 128 B)
  parameter int unsigned MaxCtas        = 32,    // CTA slots per SM
  parameter int unsigned MaxWarpsPerCta = 32,
  parameter int unsigned NumLinear      = 16     // register table entries
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,

  // Register table write: linear register tbl_idx_i -> thread-index register tbl_tr_i.
  input  logic                              tbl_we_i,
  input  logic [$clog2(NumLinear)-1:0]      tbl_idx_i,
  input  logic [$clog2(NumLinear)-1:0]      tbl_tr_i,

  // Per kernel, from the CTA scheduler.
  input  logic [$clog2(MaxWarpsPerCta):0]   warps_per_cta_i,
  input  logic [$clog2(NumWarps):0]         num_warps_i,   // resident warps (blocks x warps per CTA)
  input  logic [$clog2(NumWarpRegs)-1:0]    gpr_offset_i,
  input  logic [$clog2(NumWarpRegs)-1:0]    br_offset_i,
  input  logic [$clog2(NumWarpRegs)-1:0]    cr_offset_i,

  // One operand.
  input  logic [2:0]                        kind_i,   // 0 GPR, 1 TR, 2 BR, 3 CR, 4 LR
  input  logic [7:0]                        reg_i,
  input  logic [$clog2(NumWarps)-1:0]       warp_i,
  input  logic [$clog2(MaxCtas)-1:0]        cta_i,

  output logic [$clog2(NumWarpRegs)-1:0]    id_o,     // GPR, TR, BR or CR row; LR: its TR row
  output logic [$clog2(NumWarpRegs)-1:0]    br_id_o,  // LR: its BR row
  output logic [4:0]                        lane_o,   // CR: first lane of the pair; LR: BR lane
  output logic                              error_o
);

  localparam int unsigned IdW  = $clog2(NumWarpRegs);
  localparam int unsigned LinW = $clog2(NumLinear);
  localparam int unsigned WpcW = $clog2(MaxWarpsPerCta) + 1;
  localparam int unsigned WarpW = $clog2(NumWarps);
  localparam int unsigned ModW = (WarpW > WpcW) ? WarpW : WpcW;
  // Wide enough for any sum below: offset + 255 * NumWarps + warp.
  localparam int unsigned SumW = IdW + 8 + WarpW + 1;

  localparam logic [2:0] KGpr = 3'd0, KTr = 3'd1, KBr = 3'd2, KCr = 3'd3, KLr = 3'd4;

  logic [LinW-1:0] tr_q    [NumLinear];
  logic            valid_q [NumLinear];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < NumLinear; i++) begin
        tr_q[i]    <= '0;
        valid_q[i] <= 1'b0;
      end
    end else if (tbl_we_i) begin
      tr_q[tbl_idx_i]    <= tbl_tr_i;
      valid_q[tbl_idx_i] <= 1'b1;
    end
  end

  // The position of the warp in its CTA, and a thread-index register's row.
  logic [WpcW-1:0] warp_in_cta;
  logic [LinW-1:0] lin_id, tr_id;
  logic [SumW-1:0] row, br_row;
  always_comb begin
    lin_id      = reg_i[LinW-1:0];
    tr_id       = (kind_i == KLr) ? tr_q[lin_id] : reg_i[LinW-1:0];
    // A 6-bit remainder (warp ID by warps per CTA), not a full-width divider.
    warp_in_cta = (warps_per_cta_i == '0) ? '0
                : WpcW'(ModW'(warp_i) % ModW'(warps_per_cta_i));
    br_row      = SumW'(br_offset_i) + (SumW'(cta_i) << 1);
    row         = '0;
    lane_o      = '0;
    unique case (kind_i)
      KGpr: row = SumW'(gpr_offset_i) + SumW'(reg_i) * SumW'(num_warps_i) + SumW'(warp_i);
      KTr, KLr: row = SumW'(tr_id) * SumW'(warps_per_cta_i) + SumW'(warp_in_cta);
      KBr: row = br_row;
      KCr: begin
        row    = SumW'(cr_offset_i) + SumW'(reg_i[7:4]);
        lane_o = {reg_i[3:0], 1'b0};
      end
      default: row = '0;
    endcase
    if (kind_i == KLr) lane_o = 5'(lin_id);
    id_o    = row[IdW-1:0];
    br_id_o = (kind_i == KLr) ? br_row[IdW-1:0] : '0;
    error_o = (kind_i > KLr)
           || ((kind_i == KGpr) && (num_warps_i == '0 || {1'b0, warp_i} >= num_warps_i))
           || (row >= SumW'(NumWarpRegs))
           || ((kind_i == KLr) && (br_row >= SumW'(NumWarpRegs)))
           || ((kind_i == KLr) && !valid_q[lin_id])
           || ((kind_i == KTr || kind_i == KLr) && warps_per_cta_i == '0)
           || ((kind_i == KTr || kind_i == KLr) && warps_per_cta_i > WpcW'(MaxWarpsPerCta));
  end

endmodule
