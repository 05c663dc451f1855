// Per-lane semantics of PTX's data-processing instructions: everything that
// computes destinations from sources without touching memory, control flow
// or other lanes (those are the executor's: ld/st/atom/red, bra/call/ret/
// exit, bar, shfl, vote, activemask, special registers).
//
// Values travel as raw bits in uint64_t: a register of N bits occupies the low
// N bits (upper bits zero); predicates are 0 or 1; f32 is its IEEE bits in the
// low 32 bits; f16x2 packs two halves. Sources are already read (registers) or
// decoded (immediates) by the caller, in the order of Instr::src; a negated
// predicate source (`!%p`) arrives already negated.
#pragma once

#include <cstdint>
#include <string>

#include "ptx/ir.h"

namespace rfsim::func {

// True when evalLane() implements this opcode/type/modifier combination; else
// false with the reason in *why ("div.rn.f16 is not supported"). The loader
// calls it for every instruction so that unsupported ones fail at load time.
bool laneSupports(const ptx::Instr& in, std::string* why);

// One lane: s[0..in.nsrc) -> d[0..in.ndst). For setp with a second predicate
// destination (`setp... p|q`), d[1] receives the complement as PTX defines.
// Only called for instructions laneSupports() accepted.
void evalLane(const ptx::Instr& in, const uint64_t* s, uint64_t* d);

// Whether this opcode is handled by evalLane (data processing) rather than
// by the executor.
bool isLaneOp(ptx::Op op);

}  // namespace rfsim::func
