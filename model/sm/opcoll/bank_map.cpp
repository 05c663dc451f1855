#include "sm/opcoll/bank_map.h"

#include <string>

#include "common/error.h"

namespace rfsim::sm {

BankMap::BankMap(const BankMapParams& p) : p_(p) {
  if (p_.num_banks == 0) throw Error("bank map: num_banks must be at least 1");
  if (p_.sub_cores == 0 || p_.num_banks % p_.sub_cores != 0)
    throw Error("bank map: num_banks (" + std::to_string(p_.num_banks) + ") must be a multiple of sub_cores (" +
                std::to_string(p_.sub_cores) + ")");
  const uint32_t per = p_.num_banks / p_.sub_cores;
  auto pow2 = [](uint32_t v) { return v && (v & (v - 1)) == 0; };
  if (pow2(per) && pow2(p_.sub_cores)) {
    pow2_ = true;
    per_mask_ = per - 1;
    sub_mask_ = p_.sub_cores - 1;
    per_shift_ = static_cast<uint32_t>(__builtin_ctz(per));
  }
}

BankMap::BankMap(uint32_t num_banks, Function f) : custom_(std::move(f)) {
  if (num_banks == 0) throw Error("bank map: num_banks must be at least 1");
  if (!custom_) throw Error("bank map: empty bank function");
  p_.num_banks = num_banks;
}

uint32_t BankMap::bankSlow(uint32_t index, uint32_t warp) const {
  if (custom_) {
    uint32_t b = custom_(index, warp);
    if (b >= p_.num_banks)
      throw Error("bank map: custom function gave bank " + std::to_string(b) + " of " +
                  std::to_string(p_.num_banks));
    return b;
  }
  // GPGPU-Sim register_bank(): (reg + wid) % banks; with sub-cores the result
  // is folded into the issuing sub-core's slice of banks.
  uint64_t b = uint64_t(index) + uint64_t(p_.swizzle) * warp;
  if (p_.sub_cores == 1) return static_cast<uint32_t>(b % p_.num_banks);
  uint32_t per = p_.num_banks / p_.sub_cores;
  return static_cast<uint32_t>(b % per + (warp % p_.sub_cores) * per);
}

}  // namespace rfsim::sm
