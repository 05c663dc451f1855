#include "mech/r2d2/r2d2_cost.h"

#include <fmt/format.h>

#include "mech/r2d2/regid.h"

namespace rfsim::mech::r2d2 {

cost::UnitGroup r2d2CostUnits(const cost::CostContext& c) {
  const uint32_t w = c.warps, r = c.warp_registers;
  uint32_t idw = 0;
  while ((1u << idw) < r) ++idw;
  // The register table: per linear register its thread-index register's ID
  // and a valid bit; the rest is combinational.
  const uint32_t entries = RegIdParams{}.num_linear;
  uint32_t lin = 0;
  while ((1u << lin) < entries) ++lin;

  cost::UnitGroup g;
  g.name = "r2d2";
  cost::CostUnit u;
  u.module = "r2d2_regid";
  u.parameters = {{"NumWarps", w}, {"NumWarpRegs", r}};
  u.work_subdir = "r2d2_regid";
  u.json_key = "synthesis_r2d2_regid";
  u.declared_flops = uint64_t{entries} * (lin + 1);
  u.heading = "## R2D2's physical register ID calculation and register table (`rtl/r2d2_regid.sv`)";
  u.intro = fmt::format(
      "The operand collector's row lookup for general, thread-index, block-index, coefficient and linear "
      "registers (Fig. 11) with the 16-entry register table that maps a linear register to its "
      "thread-index register, for {} warps and {} warp registers ({}-bit rows). The paper counts the table "
      "as 16 x 8 b = 128 bits (a 4-bit linear and a 4-bit thread-index register ID); indexed by the linear "
      "register's ID, the RTL stores the thread-index ID and a valid bit, 16 x 5 = 80 flops. It states "
      "no area or timing for the ID logic; its text allows 5 extra cycles for it at a 1 % cost. Same flow "
      "and constraints as above.",
      w, r, idw);
  u.flops_label = "paper: 128 bits";
  g.units.push_back(u);
  return g;
}

}  // namespace rfsim::mech::r2d2
