// CARS register rename unit: per-warp register stacks in the register file.
//
// Per warp it holds Base (start of the warp's allotment), RFP (register frame
// pointer), RSP (register stack pointer), the count of free stack registers
// (CARS section IV-B) and the size K of its stack. A callee-saved register Rx
// of the current frame is renamed when it has been pushed:
//   16 <= x < 16 + depth  ->  RFP + (x - 16), wrapped into the stack
//   otherwise             ->  Base + x        (baseline indexing)
//
// The stack is circular (section IV-A, Fig. 6): it occupies the K registers
// [Base + F, Base + F + K) after the warp's base allotment of F registers (F:
// the kernel's FRU, one value per launch, held once), and RSP, RFP and every
// renamed index wrap from its end back to its start. depth = RSP - RFP modulo
// K. When a call finds fewer free registers than it needs (op_overflow_o),
// the issue stage runs the overflow trap: a software handler stores the
// oldest frames to local memory and tells the unit with Spill n (free += n);
// the registers they held are then overwritten by the new frames as RSP wraps
// around. When the function owning a spilled frame regains control, a trap
// loads the frame back into the same rows and Fill n takes its registers
// again (free -= n).
//
// One state-changing operation per cycle (launch, call, return, push, pop,
// spill, fill), any number of combinational rename ports. Renames see the
// state before this cycle's operation. An operation that needs more free
// registers than the warp has raises op_overflow_o and changes nothing.
//
// The caller's RFP lives in the register file, not here: a call asks the
// register file to write RFP at slot RSP (save_*), and a return is given the
// value read back from slot RFP - 1 (op_saved_rfp_i, at restore_idx_o). A
// frame therefore holds at most K - 1 registers (its saved RFP takes one).
module cars_rename #(
  parameter int unsigned NumWarps     = 64,
  // Warp-registers (32 lanes x 32 bit) in the SM's register file.
  parameter int unsigned NumRegs      = 2048,
  parameter int unsigned NumReadPorts = 4,
  // Free-register counter and stack-size width. The paper counts log2(R/W)
  // bits for each of W resident warps (section IV-C: 5 b x 64 = 320 b,
  // "maximised at 64 warps"): storage shared among the warps, each counter as
  // wide as a warp's allotment when W warps share the file. Fixed per-warp
  // counters must then be able to count any allotment, up to the whole file:
  // log2(NumRegs) bits, the default (an upper bound of the paper's pool). A
  // narrower FreeW caps every warp's stack at 2**FreeW - 1 registers.
  parameter int unsigned FreeW        = $clog2(NumRegs)
) (
  input  logic                                       clk_i,
  input  logic                                       rst_ni,

  // Operation port.
  input  logic                                       op_valid_i,
  input  cars_pkg::op_e                              op_i,
  input  logic [$clog2(NumWarps)-1:0]                op_warp_i,
  input  logic [$clog2(NumRegs)-1:0]                 op_base_i,       // launch: Base
  input  logic [$clog2(NumRegs)-1:0]                 op_frame_i,      // launch: base allotment
  input  logic [$clog2(NumRegs)-1:0]                 op_n_i,          // launch: stack size K,
                                                                      // call: callee FRU,
                                                                      // push/pop/spill/fill: count
  input  logic [$clog2(NumRegs)-1:0]                 op_saved_rfp_i,  // return: caller RFP
  output logic                                       op_ack_o,
  output logic                                       op_overflow_o,
  output logic                                       op_illegal_o,
  output logic                                       save_valid_o,
  output logic [$clog2(NumRegs)-1:0]                 save_idx_o,
  output logic [$clog2(NumRegs)-1:0]                 save_data_o,
  output logic [$clog2(NumRegs)-1:0]                 restore_idx_o,

  // Rename ports (operand collector), flattened: port p uses bits [p*W +: W].
  input  logic [NumReadPorts*$clog2(NumWarps)-1:0]   rd_warp_i,
  input  logic [NumReadPorts*cars_pkg::ArchRegW-1:0] rd_reg_i,
  output logic [NumReadPorts*$clog2(NumRegs)-1:0]    rd_idx_o,
  output logic [NumReadPorts-1:0]                    rd_stacked_o,

  // State of one warp, for inspection and lockstep checking.
  input  logic [$clog2(NumWarps)-1:0]                dbg_warp_i,
  output logic [$clog2(NumRegs)-1:0]                 dbg_base_o,
  output logic [$clog2(NumRegs)-1:0]                 dbg_rfp_o,
  output logic [$clog2(NumRegs)-1:0]                 dbg_rsp_o,
  output logic [FreeW-1:0]                           dbg_free_o
);

  localparam int unsigned WarpW = $clog2(NumWarps);
  localparam int unsigned IdxW  = $clog2(NumRegs);
  localparam int unsigned RegW  = cars_pkg::ArchRegW;
  // One bit of headroom so that sums of indices cannot wrap unseen.
  localparam int unsigned SumW  = IdxW + 1;

  // Per-warp state, read out through unpacked arrays (Yosys 0.23 has no
  // multi-dimensional packed arrays).
  logic [IdxW-1:0]  base_q [NumWarps];
  logic [IdxW-1:0]  rfp_q  [NumWarps];
  logic [IdxW-1:0]  rsp_q  [NumWarps];
  logic [FreeW-1:0] free_q [NumWarps];
  logic [FreeW-1:0] stk_q  [NumWarps];  // K: the warp's stack size
  // The base allotment F before each stack: the launched kernel's FRU, the
  // same for every warp of a launch (one kernel's warps at a time per SM).
  logic [IdxW-1:0]  frame_q;

  // ---------------------------------------------------------------------------
  // Operation decode on the addressed warp.
  logic [IdxW-1:0]  cur_base, cur_rfp, cur_rsp;
  logic [FreeW-1:0] cur_free, cur_stk;
  assign cur_base = base_q[op_warp_i];
  assign cur_rfp  = rfp_q[op_warp_i];
  assign cur_rsp  = rsp_q[op_warp_i];
  assign cur_free = free_q[op_warp_i];
  assign cur_stk  = stk_q[op_warp_i];

  // The warp's stack [lo, hi) of K registers.
  logic [SumW-1:0] k_ext, lo, hi;
  assign k_ext = SumW'(cur_stk);
  assign lo    = SumW'(cur_base) + SumW'(frame_q);
  assign hi    = lo + k_ext;

  logic [SumW-1:0] free_ext, n_ext, depth_ext, launch_end, rsp_ext, rfp_ext;
  assign free_ext   = SumW'(cur_free);
  assign n_ext      = SumW'(op_n_i);
  assign rsp_ext    = SumW'(cur_rsp);
  assign rfp_ext    = SumW'(cur_rfp);
  assign depth_ext  = (cur_rsp >= cur_rfp) ? rsp_ext - rfp_ext : rsp_ext + k_ext - rfp_ext;
  assign launch_end = SumW'(op_base_i) + SumW'(op_frame_i) + SumW'(op_n_i);

  // Pointer arithmetic inside the stack: x + n and x - n wrap at its ends.
  // Each result lies in [lo, hi), below NumRegs: the headroom bit is 0.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [SumW-1:0] rsp_up1, rsp_upn, rsp_dnn, rfp_dn1;
  /* verilator lint_on UNUSEDSIGNAL */
  assign rsp_up1 = (rsp_ext + SumW'(1) >= hi) ? rsp_ext + SumW'(1) - k_ext : rsp_ext + SumW'(1);
  assign rsp_upn = (rsp_ext + n_ext >= hi) ? rsp_ext + n_ext - k_ext : rsp_ext + n_ext;
  assign rsp_dnn = (rsp_ext >= lo + n_ext) ? rsp_ext - n_ext : rsp_ext + k_ext - n_ext;
  assign rfp_dn1 = (rfp_ext >= lo + SumW'(1)) ? rfp_ext - SumW'(1) : rfp_ext + k_ext - SumW'(1);

  logic             overflow, illegal;
  logic [IdxW-1:0]  nxt_base, nxt_rfp, nxt_rsp;
  logic [FreeW-1:0] nxt_free, nxt_stk;

  always_comb begin
    overflow = 1'b0;
    illegal  = 1'b0;
    nxt_base = cur_base;
    nxt_rfp  = cur_rfp;
    nxt_rsp  = cur_rsp;
    nxt_free = cur_free;
    nxt_stk  = cur_stk;
    unique case (op_i)
      cars_pkg::OpLaunch: begin
        // The stack follows the base allotment (section III-A).
        illegal  = (launch_end > SumW'(NumRegs)) ||
                   (n_ext > SumW'({FreeW{1'b1}}));
        nxt_base = op_base_i;
        nxt_rfp  = op_base_i + op_frame_i;
        nxt_rsp  = op_base_i + op_frame_i;
        nxt_free = FreeW'(op_n_i);
        nxt_stk  = FreeW'(op_n_i);
      end
      cars_pkg::OpCall: begin
        // The call pushes the caller's RFP and must find room for the
        // callee's FRU, which the call instruction carries (section IV-A).
        overflow = free_ext < n_ext + SumW'(1);
        nxt_rsp  = IdxW'(rsp_up1);
        nxt_rfp  = IdxW'(rsp_up1);
        nxt_free = cur_free - FreeW'(1);
      end
      cars_pkg::OpRet: begin
        // Release the callee's frame and the slot of the saved RFP. Returns
        // are not checked here: the SIMT stack's call bit pairs every return
        // with its call (section IV-B2).
        nxt_rsp  = IdxW'(rfp_dn1);
        nxt_rfp  = op_saved_rfp_i;
        nxt_free = cur_free + FreeW'(depth_ext) + FreeW'(1);
      end
      cars_pkg::OpPush: begin
        // A frame of K registers would read as empty (depth modulo K).
        overflow = (free_ext < n_ext) || (depth_ext + n_ext >= k_ext);
        nxt_rsp  = IdxW'(rsp_upn);
        nxt_free = cur_free - FreeW'(op_n_i);
      end
      cars_pkg::OpPop: begin
        illegal  = n_ext > depth_ext;
        nxt_rsp  = IdxW'(rsp_dnn);
        nxt_free = cur_free + FreeW'(op_n_i);
      end
      cars_pkg::OpSpill: begin
        illegal  = free_ext + n_ext > k_ext;
        nxt_free = cur_free + FreeW'(op_n_i);
      end
      cars_pkg::OpFill: begin
        overflow = free_ext < n_ext;
        nxt_free = cur_free - FreeW'(op_n_i);
      end
      default: ;
    endcase
  end

  logic apply;
  assign apply         = op_valid_i && (op_i != cars_pkg::OpNone) && !overflow && !illegal;
  assign op_ack_o      = apply;
  assign op_overflow_o = op_valid_i && overflow;
  assign op_illegal_o  = op_valid_i && illegal;
  assign save_valid_o  = apply && (op_i == cars_pkg::OpCall);
  assign save_idx_o    = cur_rsp;
  assign save_data_o   = cur_rfp;
  assign restore_idx_o = IdxW'(rfp_dn1);

  // ---------------------------------------------------------------------------
  // Per-warp registers.
  for (genvar w = 0; w < NumWarps; w++) begin : g_warp
    logic we;
    assign we = apply && (op_warp_i == WarpW'(w));
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        base_q[w] <= '0;
        rfp_q[w]  <= '0;
        rsp_q[w]  <= '0;
        free_q[w] <= '0;
        stk_q[w]  <= '0;
      end else if (we) begin
        base_q[w] <= nxt_base;
        rfp_q[w]  <= nxt_rfp;
        rsp_q[w]  <= nxt_rsp;
        free_q[w] <= nxt_free;
        stk_q[w]  <= nxt_stk;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) frame_q <= '0;
    else if (apply && op_i == cars_pkg::OpLaunch) frame_q <= op_frame_i;
  end

  // ---------------------------------------------------------------------------
  // Rename ports (operand collector).
  for (genvar p = 0; p < NumReadPorts; p++) begin : g_port
    logic [WarpW-1:0] w;
    logic [RegW-1:0]  x, off;
    logic [IdxW-1:0]  base, rfp, rsp, idx;
    logic [SumW-1:0]  k, end_, depth, t;
    logic             stacked;
    assign w       = rd_warp_i[p*WarpW +: WarpW];
    assign x       = rd_reg_i[p*RegW +: RegW];
    assign base    = base_q[w];
    assign rfp     = rfp_q[w];
    assign rsp     = rsp_q[w];
    assign k       = SumW'(stk_q[w]);
    assign end_    = SumW'(base) + SumW'(frame_q) + k;
    assign depth   = (rsp >= rfp) ? SumW'(rsp) - SumW'(rfp) : SumW'(rsp) + k - SumW'(rfp);
    assign off     = x - RegW'(cars_pkg::CalleeSavedBase);
    assign stacked = (x >= RegW'(cars_pkg::CalleeSavedBase)) && (SumW'(off) < depth);
    assign t       = SumW'(rfp) + SumW'(off);
    assign idx     = stacked ? IdxW'((t >= end_) ? t - k : t) : base + IdxW'(x);
    assign rd_stacked_o[p]          = stacked;
    assign rd_idx_o[p*IdxW +: IdxW] = idx;
  end

  assign dbg_base_o = base_q[dbg_warp_i];
  assign dbg_rfp_o  = rfp_q[dbg_warp_i];
  assign dbg_rsp_o  = rsp_q[dbg_warp_i];
  assign dbg_free_o = free_q[dbg_warp_i];

  // ---------------------------------------------------------------------------
  // Legal parameters and invariants (simulation only).
`ifndef SYNTHESIS
  initial begin
    assert (NumWarps >= 2 && (1 << WarpW) == NumWarps)
      else $fatal(1, "NumWarps must be a power of two >= 2");
    assert (NumRegs >= NumWarps && (1 << IdxW) == NumRegs)
      else $fatal(1, "NumRegs must be a power of two >= NumWarps");
    assert (FreeW >= 1 && FreeW <= IdxW) else $fatal(1, "FreeW out of range");
    assert (NumReadPorts >= 1) else $fatal(1, "NumReadPorts must be >= 1");
  end
`endif

endmodule
