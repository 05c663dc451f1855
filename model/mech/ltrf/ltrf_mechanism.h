// LTRF as a mechanism (Sadrosadati et al., ASPLOS'18; docs/ltrf.md,
// docs/ltrf.md): the prefetch pass (register-intervals, an ltrf.prefetch at
// each one's entry) and, in every SM, the unit of ltrf_sm.h.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "backend/check.h"
#include "mech/mechanism.h"
#include "ptx/ir.h"

namespace rfsim::mech::ltrf {

// Where a prefetch goes: before instruction `begin` of block `block`, with
// the interval's working set as four 64-bit words.
struct Entry {
  uint32_t block = 0, begin = 0;
  std::array<uint64_t, 4> words{};
  uint32_t interval = 0;  // its index in formIntervals()
};
// The prefetches of an allocated function (CFG built), last in the code
// first; intervals whose instructions name no register get none.
std::vector<Entry> prefetchEntries(const ptx::Function& fn, uint32_t n, bool strands = false);
// The dead-operand bits (Instr::dead) on the allocated registers, for LTRF+'s
// liveness vector: a source is dead when none of its registers is live
// after the instruction. The back end marks them on its values before the
// registers are assigned, where two values sharing a register (a coalesced
// copy) can make a read the last of one value but not of the register.
// At a return R1, R4..R31 are taken as live (results, callee-saved,
// return address).
void markPhysicalDead(ptx::Function& fn);
// Inserts them (the pass ltrf.prefetch), keeping `values` in step, after
// marking the dead-operand bits.
void insertPrefetches(ptx::Function& fn, backend::SlotValues& values, uint32_t n, bool strands = false);

mech::MechanismInfo ltrfMechanismInfo();

}  // namespace rfsim::mech::ltrf
