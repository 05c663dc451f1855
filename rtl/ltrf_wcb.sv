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
// NumOffsets offsets.
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

  // The address table.
  logic [NumRegs-1:0][BW-1:0]    bank_q  [NumWarps];  // no reset: valid_q guards it
  logic [NumRegs-1:0]   valid_q [NumWarps];
  // Warp offsets.
  logic [OW-1:0]        off_q   [NumWarps];
  logic [NumWarps-1:0]  off_valid_q;
  // Per-warp AAU: the unused queue.
  logic [NumBanks-1:0][BW-1:0]   fifo_q  [NumWarps];
  logic [BW-1:0]        head_q  [NumWarps];
  logic [BW:0]          count_q [NumWarps];
  // The global AAU of offsets.
  logic [NumOffsets-1:0][OW-1:0] ofifo_q;
  logic [OW-1:0]        ohead_q;
  logic [OW:0]          ocount_q;

  // The queues' contents after a reset: 0, 1, 2, ... from the head.
  function automatic logic [NumBanks-1:0][BW-1:0] banksInOrder();
    for (int b = 0; b < int'(NumBanks); b++) banksInOrder[b] = BW'(b);
  endfunction
  function automatic logic [NumOffsets-1:0][OW-1:0] offsetsInOrder();
    for (int o = 0; o < int'(NumOffsets); o++) offsetsInOrder[o] = OW'(o);
  endfunction

  // Lookups.
  always_comb begin
    rd0_hit_o    = valid_q[rd0_warp_i][rd0_reg_i] && off_valid_q[rd0_warp_i];
    rd0_bank_o   = bank_q[rd0_warp_i][rd0_reg_i];
    rd0_offset_o = off_q[rd0_warp_i];
    rd0_index_o  = {rd0_offset_o, rd0_bank_o};
    rd1_hit_o    = valid_q[rd1_warp_i][rd1_reg_i] && off_valid_q[rd1_warp_i];
    rd1_bank_o   = bank_q[rd1_warp_i][rd1_reg_i];
    rd1_offset_o = off_q[rd1_warp_i];
    rd1_index_o  = {rd1_offset_o, rd1_bank_o};
  end

  // The operation's result.
  logic [BW-1:0] tail_bank_idx;
  logic [OW-1:0] tail_off_idx;
  always_comb begin
    op_ok_o     = 1'b0;
    op_bank_o   = '0;
    op_offset_o = '0;
    tail_bank_idx = BW'(head_q[op_warp_i] + BW'(count_q[op_warp_i]));
    tail_off_idx  = OW'(ohead_q + OW'(ocount_q));
    unique case (op_i)
      OpAlloc: begin
        op_ok_o   = count_q[op_warp_i] != '0 && !valid_q[op_warp_i][op_reg_i];
        op_bank_o = fifo_q[op_warp_i][head_q[op_warp_i]];
      end
      OpFree: begin
        op_ok_o   = valid_q[op_warp_i][op_reg_i];
        op_bank_o = bank_q[op_warp_i][op_reg_i];
      end
      OpAct: begin
        op_ok_o     = ocount_q != '0 && !off_valid_q[op_warp_i];
        op_offset_o = ofifo_q[ohead_q];
      end
      OpDeact: begin
        op_ok_o     = off_valid_q[op_warp_i];
        op_offset_o = off_q[op_warp_i];
      end
      OpLaunch: op_ok_o = 1'b1;
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int w = 0; w < int'(NumWarps); w++) begin
        valid_q[w] <= '0;
        off_q[w]   <= '0;
        head_q[w]  <= '0;
        count_q[w] <= (BW+1)'(NumBanks);
        fifo_q[w]  <= banksInOrder();
      end
      off_valid_q <= '0;
      ohead_q     <= '0;
      ocount_q    <= (OW+1)'(NumOffsets);
      ofifo_q     <= offsetsInOrder();
    end else if (op_ok_o) begin
      unique case (op_i)
        OpAlloc: begin
          bank_q[op_warp_i][op_reg_i]  <= op_bank_o;
          valid_q[op_warp_i][op_reg_i] <= 1'b1;
          head_q[op_warp_i]            <= head_q[op_warp_i] + 1'b1;
          count_q[op_warp_i]           <= count_q[op_warp_i] - 1'b1;
        end
        OpFree: begin
          valid_q[op_warp_i][op_reg_i]        <= 1'b0;
          fifo_q[op_warp_i][tail_bank_idx]    <= op_bank_o;
          count_q[op_warp_i]                  <= count_q[op_warp_i] + 1'b1;
        end
        OpAct: begin
          off_q[op_warp_i]       <= op_offset_o;
          off_valid_q[op_warp_i] <= 1'b1;
          ohead_q                <= ohead_q + 1'b1;
          ocount_q               <= ocount_q - 1'b1;
        end
        OpDeact: begin
          off_valid_q[op_warp_i] <= 1'b0;
          ofifo_q[tail_off_idx]  <= op_offset_o;
          ocount_q               <= ocount_q + 1'b1;
        end
        OpLaunch: begin
          valid_q[op_warp_i] <= '0;
          head_q[op_warp_i]  <= '0;
          count_q[op_warp_i] <= (BW+1)'(NumBanks);
          fifo_q[op_warp_i]  <= banksInOrder();
          if (off_valid_q[op_warp_i]) begin
            off_valid_q[op_warp_i] <= 1'b0;
            ofifo_q[tail_off_idx]  <= off_q[op_warp_i];
            ocount_q               <= ocount_q + 1'b1;
          end
        end
        default: ;
      endcase
    end
  end
endmodule
