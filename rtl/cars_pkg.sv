// Shared types and widths of the CARS rename unit (CARS paper, section IV-B).
// Yosys 0.23 accepts package-qualified names but not `import` inside a module
// header, so every user writes cars_pkg::Name.
package cars_pkg;

  // Architectural register field of an instruction: at most 256 registers per
  // function (8-bit register fields; CARS section II).
  localparam int unsigned ArchRegW = 8;

  // First callee-saved register of NVIDIA's ABI; the callee-saved registers are
  // a contiguous range starting here (CARS section II-B).
  localparam int unsigned CalleeSavedBase = 16;

  // State-changing operations, one per cycle.
  typedef enum logic [2:0] {
    OpNone   = 3'd0,
    OpLaunch = 3'd1,  // set Base, start an empty stack above the base allotment
    OpCall   = 3'd2,  // push caller RFP, RFP <- RSP (arg: callee FRU, checked)
    OpRet    = 3'd3,  // RSP <- RFP, restore caller RFP (read back from the RF)
    OpPush   = 3'd4,  // RSP += n (spill replaced by push)
    OpPop    = 3'd5,  // RSP -= n (fill replaced by pop)
    OpSpill  = 3'd6,  // free += n: the overflow trap moved the n oldest
                      // stack registers to local memory (section IV-A)
    OpFill   = 3'd7   // free -= n: a trap brought n registers back
  } op_e;

endpackage
