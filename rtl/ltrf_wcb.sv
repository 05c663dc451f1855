// LTRF's warp control blocks' address lookup and address allocation units
// (Sadrosadati et al., ASPLOS'18, section 5.2, Figs. 12 and 13) for one SM.
//
// Per warp:
//   - the register-cache address table: for each of NumRegs architectural
//     registers, the register-file cache bank holding it and a valid bit
//     (the working-set bit vector);
//   - the warp-offset address (its entry in every cache bank) and a valid bit;
//   - the address allocation unit (AAU): an unused queue of cache banks, a
//     circular buffer of NumBanks entries (head, count), and the occupied set
//     (a bank is occupied when its bit is set; the paper's occupied queue).
// Shared: the global AAU of warp offsets, the same queue pair over
// NumOffsets offsets. Each per-warp item is one array indexed by warp: a
// port reads its warp's entry (a multiplexer over the warps' entries).
//
// One operation per clock (op_i), its result combinational from the state
// before the edge, its state change at the edge:
//   ALLOC  (warp, reg): the head of the warp's unused queue -> reg's table
//          entry; ok when a bank is unused and reg has none.
//   FREE   (warp, reg): reg's bank back to the unused queue's tail; ok when
//          reg has one.
//   ACT    (warp): the head of the offset queue -> the warp's offset; ok when
//          an offset is free and the warp has none.
//   DEACT  (warp): the warp's offset back to the offset queue's tail; ok when
//          it has one.
//   LAUNCH (warp): a new warp in the slot: its queue refilled in order, its
//          table cleared, an offset it still holds returned.
// Two lookup ports (the WCB's two read ports), combinational: hit when the
// register has a bank and the warp an offset; index = offset * NumBanks +
// bank, the register's entry in the cache.
module ltrf_wcb #(
  parameter int unsigned NumWarps   = 64,
  parameter int unsigned NumRegs    = 256,
  parameter int unsigned NumBanks   = 16,
  parameter int unsigned NumOffsets = 8
) (
  input  logic                                     clk_i,
  input  logic                                     rst_ni,

  input  logic [2:0]                               op_i,       // 0 NOP, 1 ALLOC, 2 FREE, 3 ACT, 4 DEACT, 5 LAUNCH
  input  logic [$clog2(NumWarps)-1:0]              op_warp_i,
  input  logic [$clog2(NumRegs)-1:0]               op_reg_i,
  output logic                                     op_ok_o,
  output logic [$clog2(NumBanks)-1:0]              op_bank_o,    // ALLOC, FREE
  output logic [$clog2(NumOffsets)-1:0]            op_offset_o,  // ACT, DEACT

  input  logic [$clog2(NumWarps)-1:0]              rd0_warp_i,
  input  logic [$clog2(NumRegs)-1:0]               rd0_reg_i,
  output logic                                     rd0_hit_o,
  output logic [$clog2(NumBanks)-1:0]              rd0_bank_o,
  output logic [$clog2(NumOffsets)-1:0]            rd0_offset_o,
  output logic [$clog2(NumOffsets*NumBanks)-1:0]   rd0_index_o,

  input  logic [$clog2(NumWarps)-1:0]              rd1_warp_i,
  input  logic [$clog2(NumRegs)-1:0]               rd1_reg_i,
  output logic                                     rd1_hit_o,
  output logic [$clog2(NumBanks)-1:0]              rd1_bank_o,
  output logic [$clog2(NumOffsets)-1:0]            rd1_offset_o,
  output logic [$clog2(NumOffsets*NumBanks)-1:0]   rd1_index_o
);
  localparam int unsigned BW = $clog2(NumBanks);
  localparam int unsigned OW = $clog2(NumOffsets);

  localparam logic [2:0] OpAlloc = 3'd1, OpFree = 3'd2, OpAct = 3'd3, OpDeact = 3'd4, OpLaunch = 3'd5;

  // The queues' contents after a reset: 0, 1, 2, ... from the head.
  // (Constants built by generate loops: Yosys 0.23 reads no loop variables
  // declared in a function's for.)
  logic [NumBanks*BW-1:0]   banks_in_order;
  logic [NumOffsets*OW-1:0] offsets_in_order;
  for (genvar b = 0; b < NumBanks; b++) begin : g_bank_order
    assign banks_in_order[b*BW +: BW] = BW'(b);
  end
  for (genvar o = 0; o < NumOffsets; o++) begin : g_offset_order
    assign offsets_in_order[o*OW +: OW] = OW'(o);
  end

  // Every warp's state, one table indexed by warp: each port reads its warp's
  // entry only.
  /* verilator tracing_off */
  logic [BW-1:0]          bank_q  [NumWarps][NumRegs];  // the address tables; no reset: valid_q guards them
  /* verilator tracing_on */
  logic [NumRegs-1:0]     valid_q [NumWarps];           // the working-set (valid) bit vectors
  logic [OW-1:0]          off_q   [NumWarps];
  logic [NumWarps-1:0]    off_valid_all;                // each warp's offset is valid
  logic [NumBanks*BW-1:0] fifo_q  [NumWarps];           // the AAUs' unused queues
  logic [BW-1:0]          head_q  [NumWarps];
  logic [BW:0]            count_q [NumWarps];

  // The global AAU of offsets.
  logic [NumOffsets*OW-1:0] ofifo_q;
  logic [OW-1:0]            ohead_q;
  logic [OW:0]              ocount_q;

  // The operation's warp, and its result.
  logic [NumBanks*BW-1:0] op_fifo;
  logic [BW-1:0]          op_head, tail_idx;
  logic [BW:0]            op_count;
  logic                   op_valid;
  logic [OW-1:0]          op_off, tail_off_idx;
  logic                   op_off_valid;
  always_comb begin
    op_fifo      = fifo_q[op_warp_i];
    op_head      = head_q[op_warp_i];
    op_count     = count_q[op_warp_i];
    op_valid     = valid_q[op_warp_i][op_reg_i];
    tail_idx     = BW'(op_head + BW'(op_count));
    op_off       = off_q[op_warp_i];
    op_off_valid = off_valid_all[op_warp_i];
    tail_off_idx = OW'(ohead_q + OW'(ocount_q));
    op_ok_o      = 1'b0;
    op_bank_o    = '0;
    op_offset_o  = '0;
    unique case (op_i)
      OpAlloc: begin
        op_ok_o   = op_count != '0 && !op_valid;
        op_bank_o = op_fifo[op_head*BW +: BW];
      end
      OpFree: begin
        op_ok_o   = op_valid;
        op_bank_o = bank_q[op_warp_i][op_reg_i];
      end
      OpAct: begin
        op_ok_o     = ocount_q != '0 && !op_off_valid;
        op_offset_o = ofifo_q[ohead_q*OW +: OW];
      end
      OpDeact: begin
        op_ok_o     = op_off_valid;
        op_offset_o = op_off;
      end
      OpLaunch: op_ok_o = 1'b1;
      default: ;
    endcase
  end

  // Lookups: each port reads its warp's table entry and offset.
  always_comb begin
    rd0_bank_o   = bank_q[rd0_warp_i][rd0_reg_i];
    rd0_offset_o = off_q[rd0_warp_i];
    rd0_hit_o    = valid_q[rd0_warp_i][rd0_reg_i] && off_valid_all[rd0_warp_i];
    rd0_index_o  = {rd0_offset_o, rd0_bank_o};
    rd1_bank_o   = bank_q[rd1_warp_i][rd1_reg_i];
    rd1_offset_o = off_q[rd1_warp_i];
    rd1_hit_o    = valid_q[rd1_warp_i][rd1_reg_i] && off_valid_all[rd1_warp_i];
    rd1_index_o  = {rd1_offset_o, rd1_bank_o};
  end

  always_ff @(posedge clk_i) begin
    if (op_ok_o && op_i == OpAlloc) bank_q[op_warp_i][op_reg_i] <= op_bank_o;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int w = 0; w < NumWarps; w++) begin
        valid_q[w] <= '0;
        off_q[w]   <= '0;
        fifo_q[w]  <= banks_in_order;
        head_q[w]  <= '0;
        count_q[w] <= (BW+1)'(NumBanks);
      end
      off_valid_all <= '0;
    end else if (op_ok_o) begin
      unique case (op_i)
        OpAlloc: begin
          valid_q[op_warp_i][op_reg_i] <= 1'b1;
          head_q[op_warp_i]            <= op_head + 1'b1;
          count_q[op_warp_i]           <= op_count - 1'b1;
        end
        OpFree: begin
          valid_q[op_warp_i][op_reg_i]          <= 1'b0;
          fifo_q[op_warp_i][tail_idx*BW +: BW]  <= op_bank_o;
          count_q[op_warp_i]                    <= op_count + 1'b1;
        end
        OpAct: begin
          off_q[op_warp_i]         <= op_offset_o;
          off_valid_all[op_warp_i] <= 1'b1;
        end
        OpDeact: off_valid_all[op_warp_i] <= 1'b0;
        OpLaunch: begin
          valid_q[op_warp_i]       <= '0;
          fifo_q[op_warp_i]        <= banks_in_order;
          head_q[op_warp_i]        <= '0;
          count_q[op_warp_i]       <= (BW+1)'(NumBanks);
          off_valid_all[op_warp_i] <= 1'b0;
        end
        default: ;
      endcase
    end
  end

  // The offset queue: ACT takes its head, DEACT (or a LAUNCH of a warp that
  // still holds one) returns an offset to its tail.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ofifo_q  <= offsets_in_order;
      ohead_q  <= '0;
      ocount_q <= (OW+1)'(NumOffsets);
    end else if (op_ok_o) begin
      if (op_i == OpAct) begin
        ohead_q  <= ohead_q + 1'b1;
        ocount_q <= ocount_q - 1'b1;
      end else if (op_i == OpDeact || (op_i == OpLaunch && op_off_valid)) begin
        ofifo_q[tail_off_idx*OW +: OW] <= op_off;
        ocount_q                       <= ocount_q + 1'b1;
      end
    end
  end
endmodule
