// R2D2's launch-time checks (transform.h): the launch symbols' values and the
// range checks that decide whether a launch may run the transformed code.
#include <limits>

#include <fmt/format.h>

#include "common/error.h"
#include "mech/r2d2/transform.h"

namespace rfsim::mech::r2d2 {

std::vector<int64_t> symbolValues(const KernelPlan& plan, const LaunchValues& lv) {
  std::vector<int64_t> v(plan.symbols.size(), 0);
  for (size_t i = 0; i < plan.symbols.size(); ++i) {
    const LaunchSymbol& s = plan.symbols[i];
    switch (s.kind) {
      case LaunchSymbol::Kind::Param: {
        if (!lv.params || s.index >= lv.params->size())
          throw Error(fmt::format("r2d2: kernel {}: parameter {} not given at launch", plan.kernel, s.index));
        const auto& bytes = (*lv.params)[s.index];
        const unsigned n = ptx::typeBits(s.type) / 8;
        uint64_t raw = 0;
        for (unsigned b = 0; b < n && s.offset + b < bytes.size(); ++b) raw |= uint64_t{bytes[s.offset + b]} << (8 * b);
        if (ptx::isSigned(s.type) && n < 8 && (raw >> (8 * n - 1)) & 1) raw |= ~uint64_t{0} << (8 * n);
        v[i] = static_cast<int64_t>(raw);
        break;
      }
      case LaunchSymbol::Kind::Ntid: v[i] = lv.ntid[s.index % 3]; break;
      case LaunchSymbol::Kind::Nctaid: v[i] = lv.nctaid[s.index % 3]; break;
      case LaunchSymbol::Kind::Address:
        v[i] = lv.address ? static_cast<int64_t>(lv.address(s.index)) : 0;
        break;
    }
  }
  return v;
}

std::string checkLaunch(const KernelPlan& plan, const LaunchValues& lv) {
  const std::vector<int64_t> vals = symbolValues(plan, lv);
  auto at = [&](uint32_t id) { return vals.at(id); };
  const uint32_t hi[6] = {lv.ntid[0] - 1, lv.ntid[1] - 1, lv.ntid[2] - 1,
                          lv.nctaid[0] - 1, lv.nctaid[1] - 1, lv.nctaid[2] - 1};
  for (const RangeCheck& c : plan.checks) {
    // The exact range over the launch's indices (each term at 0 or its top).
    __int128 lo = c.vec.e[kC].eval(at), top = lo;
    for (int e = kTx; e < kNumElems; ++e) {
      const __int128 t = static_cast<__int128>(c.vec.e[e].eval(at)) * hi[e - kTx];
      if (t < 0) lo += t;
      else top += t;
    }
    const __int128 min = c.is_signed ? std::numeric_limits<int32_t>::min() : 0;
    const __int128 max = c.is_signed ? __int128{std::numeric_limits<int32_t>::max()} : __int128{UINT32_MAX};
    if (lo < min || top > max)
      return fmt::format("{} ({}) ranges over [{}, {}] in this launch, outside a {} 32-bit value", c.what,
                         c.vec.str(plan.symbols), static_cast<int64_t>(lo), static_cast<int64_t>(top),
                         c.is_signed ? "signed" : "unsigned");
  }
  return "";
}

}  // namespace rfsim::mech::r2d2
