// The CARS rename unit's interface, shared by the C++ reference model, the
// Verilated RTL and the lockstep checker that runs both (CARS section IV-B).
// The fields mirror the ports of rtl/cars_rename.sv one to one.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace rfsim::cars {

// Same encoding as cars_pkg::op_e.
enum class Op : uint8_t { None = 0, Launch = 1, Call = 2, Ret = 3, Push = 4, Pop = 5, Spill = 6, Fill = 7 };
const char* opName(Op op);

// First callee-saved register of the ABI (CARS section II-B).
inline constexpr uint32_t kCalleeSavedBase = 16;
// Most rename ports any build supports.
inline constexpr uint32_t kMaxReadPorts = 8;

struct RenameParams {
  uint32_t num_warps = 64;   // power of two
  uint32_t num_regs = 2048;  // warp-registers, power of two
  uint32_t read_ports = 4;
  uint32_t free_bits = 11;   // free counter and stack size: log2(num_regs) (rtl/cars_rename.sv FreeW)

  uint32_t warpBits() const;
  uint32_t idxBits() const;
  // Throws rfsim::Error when the parameters cannot be built.
  void check() const;
  // A unit for an SM: counters of log2(R) bits, as wide as any warp's
  // allotment (the paper's log2(R/W) bits per warp are a pool shared by the
  // W resident warps: rtl/cars_rename.sv, FreeW).
  static RenameParams forSm(uint32_t warps, uint32_t regs, uint32_t read_ports);
  bool operator==(const RenameParams& o) const {
    return num_warps == o.num_warps && num_regs == o.num_regs && read_ports == o.read_ports &&
           free_bits == o.free_bits;
  }
};

struct OpRequest {
  bool valid = false;
  Op op = Op::None;
  uint32_t warp = 0;
  uint32_t base = 0;       // launch: Base
  uint32_t frame = 0;      // launch: registers of the base allotment
  uint32_t n = 0;          // launch: stack size K; call: callee FRU; push/pop/spill/fill: count
  uint32_t saved_rfp = 0;  // return: caller RFP read back from the register file
};

struct ReadRequest {
  uint32_t warp = 0;
  uint32_t reg = 0;  // architectural register, 0..255
};

struct Inputs {
  OpRequest op;
  std::array<ReadRequest, kMaxReadPorts> rd{};
  uint32_t dbg_warp = 0;
};

struct WarpState {
  uint32_t base = 0, rfp = 0, rsp = 0, free = 0;
  bool operator==(const WarpState& o) const {
    return base == o.base && rfp == o.rfp && rsp == o.rsp && free == o.free;
  }
};

struct Outputs {
  bool ack = false;
  bool overflow = false;  // trap condition: the operation was not applied
  bool illegal = false;
  bool save_valid = false;
  uint32_t save_idx = 0;   // call: register-file slot that receives the caller RFP
  uint32_t save_data = 0;
  uint32_t restore_idx = 0;  // return: slot the caller RFP is read from
  std::array<uint32_t, kMaxReadPorts> rd_idx{};
  std::array<bool, kMaxReadPorts> rd_stacked{};
  WarpState dbg;
};

// One cycle is evaluate() (combinational outputs from the current state and
// this cycle's inputs) followed by tick() (the clock edge that applies the
// operation evaluated last).
class RenameUnit {
 public:
  virtual ~RenameUnit() = default;
  virtual const RenameParams& params() const = 0;
  virtual void evaluate(const Inputs& in, Outputs& out) = 0;
  // evaluate() for a cycle whose only change since its last evaluation is
  // rename port `port`'s request: a unit may leave the outputs no rename
  // reads (the operation's, the other ports') as they were. The default
  // evaluates everything (the lockstep checker compares every output).
  virtual void evaluateRename(const Inputs& in, Outputs& out, uint32_t port) {
    (void)port;
    evaluate(in, out);
  }
  // evaluate() for a clocked cycle with no operation and no rename (inputs
  // at their reset values): nothing reads its outputs, so a unit may skip
  // them. The default evaluates everything (the lockstep checker compares
  // every output).
  virtual void evaluateIdle(const Inputs& in, Outputs& out) { evaluate(in, out); }
  virtual void tick() = 0;
  virtual void reset() = 0;
};

}  // namespace rfsim::cars
