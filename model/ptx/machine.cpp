// The machine program's register names and parameter layout (machine.h).
#include "ptx/machine.h"

#include <algorithm>

#include "ptx/isa_ext.h"

namespace rfsim::ptx::mach {

std::string regName(uint32_t id) {
  if (id == kRZ) return "RZ";
  if (isGpr(id)) return "R" + std::to_string(id);
  if (isPred(id)) return "P" + std::to_string(id - kPredBase);
  if (isExtReg(id)) {
    if (const ExtRegClassDesc* c = extRegClassOf(id)) return c->prefix + std::to_string(id - c->first);
    return "X" + std::to_string(id - kExtRegBase);  // an id no class was given
  }
  return "?" + std::to_string(id);
}

ParamLayout layoutParams(const std::vector<ParamShape>& params) {
  ParamLayout out;
  out.locs.resize(params.size());
  uint32_t next = kArgFirst;
  bool spilled = false;  // once one parameter goes to the stack, the rest follow
  uint32_t off = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamShape& p = params[i];
    const uint32_t n = static_cast<uint32_t>((std::max<uint64_t>(p.size, 1) + 3) / 4);
    uint32_t first = next;
    if (p.size >= 8 && p.align >= 8) first = alignUp(first, 2);
    if (!spilled && first + n - 1 <= kArgLast) {
      out.locs[i] = {true, first, n, 0};
      next = first + n;
      continue;
    }
    spilled = true;
    const uint32_t a = std::max<uint32_t>(p.align, 4);
    off = alignUp(off, a);
    out.stack_align = std::max(out.stack_align, a);
    out.locs[i] = {false, 0, 0, off};
    off += static_cast<uint32_t>(p.size);
  }
  out.stack_bytes = alignUp(off, 8);
  return out;
}

}  // namespace rfsim::ptx::mach
