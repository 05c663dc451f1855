// Where an operand lives: the register-index translation (extension point (a))
// and the bank map of the banked register file.
//
// The register a warp names is first translated to a physical row of the
// register file (baseline: base[warp] + reg, the base set when the warp is
// launched). A mechanism that renames registers plugs in here, and a
// Verilated RTL unit may sit behind the same interface. The bank is then a function of either the
// architectural register or the translated row, and of the warp.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "config/gpu_config.h"

namespace rfsim::ptx {
struct Instr;
}

namespace rfsim::sm {

class RegTranslator {
 public:
  virtual ~RegTranslator() = default;
  // Physical row of register `reg` of warp `warp`. Not const: a renaming unit
  // or an RTL wrapper may keep state or count accesses.
  virtual uint32_t translate(uint32_t warp, uint32_t reg) = 0;
  // The end of an SM cycle (after every stage ran): a clocked unit in the
  // translation path (a Verilated rename unit) takes its clock edge here.
  // Called through OperandCollector::endCycle, not for the baseline.
  virtual void endCycle(uint64_t now) { (void)now; }
  // The first cycle after `now` in which endCycle would change anything
  // when no register is translated (UINT64_MAX: none): the SM may skip idle
  // cycles before it (Sm::nextActiveCycle). By default every cycle counts.
  virtual uint64_t nextEventCycle(uint64_t now) const { return now; }
  // Registers whose value is not the 32 lanes of one row (a mechanism that
  // computes register values: a coefficient register held as two lanes of a
  // row of 16 coefficients, or a register that is the sum of a thread-index
  // row and a lane of its block's row). The SM asks once per register id when the translator is
  // installed (SmHooks::physical_rows). For such a register translate()
  // still gives the row whose bank the access books; the functional model
  // reads the lanes gather() fills at issue (`row`: what translate gave;
  // `in`: the instruction, whose control fields may say more -- a
  // coefficient added to the operand), and what the instruction writes
  // into them goes to scatter() after it executed, with the lanes that
  // executed.
  virtual bool isView(uint32_t reg) const {
    (void)reg;
    return false;
  }
  virtual void gather(uint32_t warp, uint32_t reg, uint32_t row, const ptx::Instr* in, uint64_t* lanes) {
    (void)warp, (void)reg, (void)row, (void)in, (void)lanes;
  }
  virtual void scatter(uint32_t warp, uint32_t reg, uint32_t row, const uint64_t* lanes, uint32_t active) {
    (void)warp, (void)reg, (void)row, (void)lanes, (void)active;
  }
};

// Baseline: each warp's registers are one contiguous block starting at the
// base the thread-block scheduler gave it at launch.
class BaseIndexTranslator final : public RegTranslator {
 public:
  explicit BaseIndexTranslator(uint32_t num_warps) : base_(num_warps, 0) {}
  void setBase(uint32_t warp, uint32_t base) { base_.at(warp) = base; }
  uint32_t base(uint32_t warp) const { return base_.at(warp); }
  uint32_t translate(uint32_t warp, uint32_t reg) override { return base_[warp] + reg; }

 private:
  std::vector<uint32_t> base_;
};

struct BankMapParams {
  uint32_t num_banks = config::RegFileConfig{}.num_banks;
  // bank = (index + swizzle * warp) % banks. GPGPU-Sim's register_bank() adds
  // the warp ID when bank_warp_shift is set: swizzle = 1; 0 turns it off.
  uint32_t swizzle = 1;
  // Accel-Sim's sub_core_model: the banks are split evenly among this many
  // sub-cores and a warp (served by sub-core warp % sub_cores) only uses its
  // own slice. 1 = one shared set of banks (GPGPU-Sim's default).
  uint32_t sub_cores = config::RegFileConfig{}.sub_cores;
};

class BankMap {
 public:
  // A replacement bank function: (index, warp) -> bank in [0, num_banks).
  using Function = std::function<uint32_t(uint32_t index, uint32_t warp)>;

  // Throws rfsim::Error when banks is 0 or not a multiple of sub_cores.
  explicit BankMap(const BankMapParams& p);
  BankMap(uint32_t num_banks, Function f);

  uint32_t numBanks() const { return p_.num_banks; }
  // `index` is the architectural register or the translated row, whichever
  // the collector is configured to map.
  // Asked for every operand read and write: with power-of-two slices (every
  // configuration) it is a mask and a shift, inline.
  uint32_t bank(uint32_t index, uint32_t warp) const {
    if (pow2_) return ((index + p_.swizzle * warp) & per_mask_) + ((warp & sub_mask_) << per_shift_);
    return bankSlow(index, warp);
  }

 private:
  uint32_t bankSlow(uint32_t index, uint32_t warp) const;
  BankMapParams p_;
  Function custom_;
  bool pow2_ = false;  // no custom function; banks per sub-core and sub-cores powers of two
  uint32_t per_mask_ = 0, sub_mask_ = 0, per_shift_ = 0;
};

}  // namespace rfsim::sm
