// Control-flow graph of a function: fills BasicBlock::succs and ::preds from
// the blocks' terminators.
//
//   unguarded bra      -> its target
//   guarded bra        -> its target, then the fall-through block
//   ret / exit / trap  -> no successor (the block leaves the function)
//   guarded ret / exit -> the fall-through block (and it leaves the function)
//   anything else last -> the fall-through block (none after the last block)
//
// Successors are listed branch target first, fall-through second, without
// duplicates (a guarded bra to the next block has one successor). Predecessors
// are in increasing block order.
#pragma once

#include "ptx/ir.h"

namespace rfsim::ptx {

void buildCfg(Function& fn);
// Every function that has a body.
void buildCfg(Module& m);

// ret, exit or trap (guarded or not): the instruction can leave the function.
bool leavesFunction(const Instr& in);
// The block holds an instruction that can leave the function: it joins the
// virtual exit node of post-dominance (dominators.h).
bool leavesFunction(const BasicBlock& bb);

}  // namespace rfsim::ptx
