// R2D2's physical register ID calculation and register table (section 4.2,
// Fig. 11): a C++ reference and the Verilated rtl/r2d2_regid.sv behind one
// interface, and the two in lockstep, every output compared on every lookup.
// The formulas are in the RTL's header comment; the reference is written from
// the same formulas, independently of the RTL's structure.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>

namespace rfsim::mech::r2d2 {

// The bit widths follow from these (the paper's Table 1 machine: 64 warps,
// 2048 warp registers -> 6-bit warp IDs and 11-bit rows).
struct RegIdParams {
  uint32_t num_warps = 64;
  uint32_t num_warp_regs = 2048;
  uint32_t max_ctas = 32;
  uint32_t max_warps_per_cta = 32;
  uint32_t num_linear = 16;
};

enum class RegKind : uint8_t { Gpr = 0, Tr = 1, Br = 2, Cr = 3, Lr = 4 };

struct RegIdInputs {
  bool tbl_we = false;
  uint32_t tbl_idx = 0, tbl_tr = 0;
  uint32_t warps_per_cta = 1;
  uint32_t num_warps = 64;  // resident warps: the GPR interleave's stride (at most RegIdParams::num_warps)
  uint32_t gpr_offset = 0, br_offset = 0, cr_offset = 0;
  uint32_t kind = 0;  // RegKind, or anything else (an error)
  uint32_t reg = 0, warp = 0, cta = 0;
};

struct RegIdOutputs {
  uint32_t id = 0, br_id = 0, lane = 0;
  bool error = false;
  bool operator==(const RegIdOutputs& o) const {
    return id == o.id && br_id == o.br_id && lane == o.lane && error == o.error;
  }
};

class RegIdUnit {
 public:
  virtual ~RegIdUnit() = default;
  // The combinational outputs for `in` (the table as of the last edge).
  virtual void evaluate(const RegIdInputs& in, RegIdOutputs& out) = 0;
  // The clock edge: applies the table write of the last evaluate().
  virtual void tick() = 0;
  virtual void reset() = 0;
};

class RegIdRef final : public RegIdUnit {
 public:
  explicit RegIdRef(const RegIdParams& p = {});
  void evaluate(const RegIdInputs& in, RegIdOutputs& out) override;
  void tick() override;
  void reset() override;

 private:
  RegIdParams p_;
  std::array<uint32_t, 16> tr_{};
  std::array<bool, 16> valid_{};
  RegIdInputs last_;
};

class RegIdRtl final : public RegIdUnit {
 public:
  // What the Verilated model was built for (the RTL's parameters).
  static RegIdParams built();
  explicit RegIdRtl(const RegIdParams& p = {});  // throws if p != built()
  ~RegIdRtl() override;
  void evaluate(const RegIdInputs& in, RegIdOutputs& out) override;
  void tick() override;
  void reset() override;
  // A waveform of the lookups in SM cycles [first, last] (`cycle` is the SM's
  // cycle of the lookups that follow; several in a cycle are 10 ps apart).
  void traceTo(const std::filesystem::path& vcd, uint64_t first, uint64_t last);
  void closeTrace();
  void setCycle(uint64_t cycle) {
    if (cycle != cycle_) sub_ = 0;
    cycle_ = cycle;
  }

 private:
  void dump();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool tracing_ = false;
  // tick() leaves the idle inputs after the edge unevaluated (nothing reads
  // the outputs before the next evaluate()); a second tick evaluates them first.
  bool idle_pending_ = false;
  uint64_t first_ = 0, last_ = 0, cycle_ = 0, sub_ = 0;
};

// Reference and RTL together: evaluate() returns the reference's outputs and
// throws rfsim::Error naming the inputs and both outputs when they differ.
class RegIdLockstep final : public RegIdUnit {
 public:
  explicit RegIdLockstep(const RegIdParams& p = {});
  void evaluate(const RegIdInputs& in, RegIdOutputs& out) override;
  void tick() override;
  void reset() override;
  uint64_t comparisons() const { return comparisons_; }
  RegIdRtl& rtl() { return rtl_; }

 private:
  RegIdRef ref_;
  RegIdRtl rtl_;
  uint64_t comparisons_ = 0;
};

}  // namespace rfsim::mech::r2d2
