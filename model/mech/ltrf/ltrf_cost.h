// LTRF's part of the hardware cost report (docs/cost.md): the WCB address
// lookup and the AAUs (rtl/ltrf_wcb.sv, section 5.2) through the synthesis
// flow as a slice of a few warps, scaled to the SM's warps, beside the
// paper's WCB storage.
#pragma once

#include <cstdint>

#include "cost/cost_unit.h"

namespace rfsim::mech::ltrf {

// Warps of the slice synthesized (its area grows with the warps: one table
// and one queue per warp).
inline constexpr uint32_t kCostSliceWarps = 2;

// Flops rtl/ltrf_wcb.sv declares for `warps` warps, `regs` registers,
// `banks` cache banks and `offsets` warp offsets: per warp a regs x
// log2(banks) table, regs valid bits, a log2(offsets)-bit offset and its
// valid bit, a banks-entry unused queue of log2(banks) bits with its head
// and a log2(banks) + 1-bit count; per SM the offset queue: offsets
// entries, a head and a count.
uint64_t wcbRtlFlops(uint32_t warps, uint32_t regs, uint32_t banks, uint32_t offsets);

// MechanismInfo::cost of LTRF: the unit for kCostSliceWarps warps, its
// banks mechanisms.ltrf.regs_per_interval, its warp offsets
// sm.active_warps.
cost::UnitGroup ltrfCostUnits(const cost::CostContext& context);

}  // namespace rfsim::mech::ltrf
