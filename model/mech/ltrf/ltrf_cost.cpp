#include "mech/ltrf/ltrf_cost.h"

#include <fmt/format.h>

#include "cost/report_text.h"
#include "mech/ltrf/ltrf_config.h"
#include "mech/ltrf/wcb.h"

namespace rfsim::mech::ltrf {

namespace {

// $clog2 of the RTL.
uint32_t clog2(uint32_t v) {
  uint32_t b = 0;
  while ((uint64_t{1} << b) < v) ++b;
  return b;
}

}  // namespace

uint64_t wcbRtlFlops(uint32_t warps, uint32_t regs, uint32_t banks, uint32_t offsets) {
  const uint64_t bw = clog2(banks), ow = clog2(offsets);
  const uint64_t per_warp = regs * bw + regs + ow + 1 + banks * bw + bw + bw + 1;
  return warps * per_warp + offsets * ow + ow + ow + 1;
}

cost::UnitGroup ltrfCostUnits(const cost::CostContext& c) {
  const uint32_t regs = kMaxRegs;
  const uint32_t banks = c.config.mechanisms.get<LtrfConfig>("ltrf").regs_per_interval;
  const uint32_t offsets = c.config.sm.active_warps;
  const uint32_t w = c.warps, slice = kCostSliceWarps;

  cost::UnitGroup g;
  g.name = "ltrf";
  cost::CostUnit u;
  u.module = "ltrf_wcb";
  u.parameters = {{"NumWarps", slice}, {"NumRegs", regs}, {"NumBanks", banks}, {"NumOffsets", offsets}};
  u.work_subdir = "ltrf_wcb";
  u.json_key = "synthesis_ltrf_wcb";
  u.declared_flops = wcbRtlFlops(slice, regs, banks, offsets);
  u.heading = "## LTRF's warp control blocks and address allocation units (`rtl/ltrf_wcb.sv`)";
  u.intro = fmt::format(
      "Per warp the register-cache address table ({} registers x a {}-bit cache bank and a valid bit: the "
      "working-set vector), the warp offset with its valid bit and the address allocation unit (a {}-entry "
      "unused queue of cache banks with head and count; a bank's valid table entry marks it occupied); per SM "
      "the queue of the {} warp offsets; two lookup ports. Synthesized for {} warps (the unit grows by one "
      "table and queue per warp). The paper's WCB storage for 64 warps, 64 x (256 x 5 + 3 + 256 + 256), is "
      "**114 880 bits** with its formula's 5-bit entries and **98 496** with the 4 bits its Fig. 12 draws; the "
      "liveness vector of LTRF+ (256 bits a warp) is kept by the C++ model, not this RTL. Same flow and "
      "constraints as above.",
      regs, clog2(banks), banks, offsets, slice);
  u.flops_label = fmt::format("RTL: {}", cost::grouped(u.declared_flops));
  g.units.push_back(u);
  g.after_unit = [=](std::size_t, const cost::UnitResults& res) -> std::string {
    if (!res[0]) return "";
    const cost::SynthResult& s = res[0]->synth;
    const uint64_t sm_flops = wcbRtlFlops(w, regs, banks, offsets);
    return fmt::format(
        "Per SM of {} warps: {} flops ({} with the liveness vectors; the paper: 114 880 / 98 496), about {} um2 "
        "({} GE) scaled from the slice.\n\n",
        w, cost::grouped(sm_flops), cost::grouped(sm_flops + uint64_t{w} * regs),
        cost::groupedRound(s.area_um2 / slice * w), cost::groupedRound(s.gate_equivalents / slice * w));
  };
  return g;
}

}  // namespace rfsim::mech::ltrf
