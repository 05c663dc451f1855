// Liveness of the allocated registers of a machine function (CFG built),
// for LTRF's passes: the dead-operand bits of LTRF+ and renumbering's live
// ranges. Predicates are left out (they are not in the register file). At a
// return, R1, R4..R31 count as live (the caller's: results, callee-saved
// registers, the return address); a call's implicit uses and defines are
// its arguments and results (forEachSlot) and R1, which the callee's frame
// hangs from; a kernel's return is its exit,
// where nothing is live;, the registers it clobbers are
// not defined by it (conservative: a value stays live across a call).
#pragma once

#include <cstdint>
#include <vector>

#include "mech/ltrf/wcb.h"
#include "ptx/ir.h"

namespace rfsim::mech::ltrf {

RegBits returnLive();
// One instruction, backwards: `live` from after it to before it. With
// `dead`, its dead-operand bits (bit k: none of src k's registers is live
// after it; the guard's bit is left as it is).
void stepBack(ptx::Instr& in, ptx::Function& fn, RegBits& live, uint8_t* dead = nullptr);
// Registers live at each block's entry.
std::vector<RegBits> blockLiveIn(ptx::Function& fn);
// Registers live at block b's end.
RegBits blockLiveOut(const ptx::Function& fn, const std::vector<RegBits>& live_in, uint32_t b);

}  // namespace rfsim::mech::ltrf
