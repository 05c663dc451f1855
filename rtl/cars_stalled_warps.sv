// CARS stalled-warp list and warp status check (CARS paper, section IV-B2;
// cost in section IV-C: 64 entries x 6 bits = 384 bits per SM).
//
// Warps of admitted blocks that find no register space are deactivated: the
// issue stage records their IDs here and never issues them. The warp status
// check, started when a warp exits (or, with the barrier context switch, when
// a warp gives its registers up at a barrier or a barrier opens), releases one
// stalled warp: the oldest one the request may release. Which warps it may
// release comes from outside as a mask (elig_i): warps of the same kernel, not
// waiting at a barrier that has not opened, and for a context switch only the
// switching warp's block. Whether the released warp's registers fit (fit_i)
// is the register allocator's answer about the selected warp (sel_warp_o):
// the selection is combinational, so the allocator sees it in the same cycle.
//
// The list is age-ordered: entry 0 is the oldest. Per cycle at most one
// operation: push (a warp deactivated), remove (a listed warp leaves without
// being released, e.g. its block ended) or a release (check_i with a
// selected warp that fits). Anything else raises error_o and changes nothing:
// a push onto a full list or of a listed warp, the removal of a warp not
// listed, or two operations at once.
module cars_stalled_warps #(
  parameter int unsigned NumWarps = 64
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,

  input  logic                        push_i,
  input  logic [$clog2(NumWarps)-1:0] push_warp_i,
  input  logic                        rm_i,
  input  logic [$clog2(NumWarps)-1:0] rm_warp_i,

  // The warp status check.
  input  logic                        check_i,
  input  logic [NumWarps-1:0]         elig_i,
  input  logic                        fit_i,
  output logic                        sel_valid_o,
  output logic [$clog2(NumWarps)-1:0] sel_warp_o,
  output logic                        release_o,

  output logic [$clog2(NumWarps):0]   count_o,
  output logic                        error_o,

  // One entry, for inspection and lockstep checking.
  input  logic [$clog2(NumWarps)-1:0] dbg_idx_i,
  output logic [$clog2(NumWarps)-1:0] dbg_entry_o
);

  localparam int unsigned WarpW = $clog2(NumWarps);
  localparam int unsigned CntW  = WarpW + 1;

  logic [WarpW-1:0] entry_q [NumWarps];
  logic [CntW-1:0]  count_q;

  // The oldest entry the request may release, and the position of the warp
  // to remove (a listed warp appears once).
  logic [WarpW-1:0] sel_idx, rm_idx;
  logic             rm_found, push_dup;
  always_comb begin
    sel_valid_o = 1'b0;
    sel_idx     = '0;
    rm_found    = 1'b0;
    rm_idx      = '0;
    push_dup    = 1'b0;
    for (int i = NumWarps - 1; i >= 0; i--) begin
      if (CntW'(i) < count_q) begin
        if (elig_i[entry_q[i]]) begin
          sel_valid_o = 1'b1;
          sel_idx     = WarpW'(i);
        end
        if (entry_q[i] == rm_warp_i) begin
          rm_found = 1'b1;
          rm_idx   = WarpW'(i);
        end
        if (entry_q[i] == push_warp_i) push_dup = 1'b1;
      end
    end
  end
  assign sel_warp_o = entry_q[sel_idx];

  logic release_req, two_ops, bad;
  assign release_req = check_i && sel_valid_o && fit_i;
  assign two_ops     = (push_i && rm_i) || (push_i && release_req) || (rm_i && release_req);
  assign bad         = two_ops || (push_i && (count_q == CntW'(NumWarps) || push_dup)) || (rm_i && !rm_found);
  assign error_o     = bad;
  assign release_o   = release_req && !bad;
  assign count_o     = count_q;
  assign dbg_entry_o = entry_q[dbg_idx_i];

  // A removal closes the gap: entries above it move down by one.
  logic             remove;
  logic [WarpW-1:0] gap;
  assign remove = !bad && (release_req || rm_i);
  assign gap    = release_req ? sel_idx : rm_idx;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q <= '0;
      for (int i = 0; i < NumWarps; i++) entry_q[i] <= '0;
    end else if (!bad) begin
      if (push_i) begin
        entry_q[count_q[WarpW-1:0]] <= push_warp_i;
        count_q <= count_q + CntW'(1);
      end else if (remove) begin
        for (int i = 0; i < NumWarps - 1; i++)
          if (WarpW'(i) >= gap) entry_q[i] <= entry_q[i + 1];
        count_q <= count_q - CntW'(1);
      end
    end
  end

endmodule
