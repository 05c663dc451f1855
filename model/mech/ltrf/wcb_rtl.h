// The Verilated rtl/ltrf_wcb.sv (the warp control blocks' address lookup
// and the address allocation units of one SM): one operation per clock,
// two combinational lookup ports. LtrfSm drives it beside its C++ reference
// (wcb.h) with `rtl: true` and compares every result (ltrf_sm.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

namespace rfsim::mech::ltrf {

struct WcbRtlParams {
  uint32_t num_warps = 64, num_regs = 256, num_banks = 16, num_offsets = 8;
  bool operator==(const WcbRtlParams& o) const {
    return num_warps == o.num_warps && num_regs == o.num_regs && num_banks == o.num_banks &&
           num_offsets == o.num_offsets;
  }
};

class WcbRtl {
 public:
  enum class Op : uint8_t { Nop = 0, Alloc = 1, Free = 2, Act = 3, Deact = 4, Launch = 5 };
  struct Result {
    bool ok = false;
    uint32_t bank = 0, offset = 0;
  };
  struct Lookup {
    bool hit = false;
    uint32_t bank = 0, offset = 0, index = 0;
  };
  // What the Verilated model was built for (its parameters).
  static WcbRtlParams built();
  WcbRtl();
  ~WcbRtl();
  // The result of `op` on the state before the edge, then the edge.
  Result op(Op op, uint32_t warp, uint32_t reg);
  // A lookup on port `port` (0 or 1) of the state as of the last edge.
  Lookup lookup(uint32_t warp, uint32_t reg, unsigned port = 0);
  // Waveform of SM cycles [first, last] (1 ns a cycle; the operations of a
  // cycle 10 ps apart); setCycle tells the cycle the next operations are in.
  void traceTo(const std::filesystem::path& vcd, uint64_t first, uint64_t last);
  void closeTrace();
  void setCycle(uint64_t cycle);
  uint64_t ops() const { return ops_; }

 private:
  void dump();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t ops_ = 0, cycle_ = 0, sub_ = 0, first_ = 0, last_ = 0;
  bool tracing_ = false;
  // The idle inputs after an operation's edge are set but not evaluated
  // unless a waveform records them; the next eval() presents them.
  bool idle_pending_ = false;
};

}  // namespace rfsim::mech::ltrf
