// The back end's own pre-allocation passes: transformations ptxas applies to
// the same PTX that change how many registers a function needs. Each works
// on a lowered function (mfunction.h) over virtual registers, before
// allocation, and is switched by a CompileOptions field (from the
// configuration keys backend.*, docs/backend.md). The value-following
// checker sees their output as the code to allocate, and the whole-kernel
// tests check the programs they produce against the CPU references.
//
//   foldParamOperands  kernel parameters read as constant-bank operands
//   scheduleBlocks     latency-driven list scheduling within each block
//   unrollLoops        counted single-block loops unrolled again
//   vectorizeSharedLoads  adjacent aligned ld.shared merged into .v2/.v4
//   fuseMultiplyAdd    mul.lo and the add/sub that takes its product merged into mad
#pragma once

#include <cstdint>

#include "backend/mfunction.h"
#include "ptx/ir.h"

namespace rfsim::backend {

// Kernel parameters as constant-bank operands (SASS `c[0x0][offset]`). On
// the hardware a kernel's parameters live in constant bank 0 and an
// instruction reads one as an operand; `ld.param` of a kernel parameter is
// not a register write. In a kernel, every value that is a parameter (its
// ld.param, or a cvta.to.global or move of one) is dropped, and each use
// reads the parameter instead:
//   * an arithmetic, logic, compare, select, convert or move instruction
//     takes it as the source operand `[param + offset]` (one per
//     instruction, as SASS allows one constant-bank operand);
//   * any other use (an address base, a stored value, a second parameter
//     in the same instruction) gets a move from the constant bank right
//     before it (`mov.b32 %t, [param]`, SASS `MOV R, c[0x0][...]`), a
//     register live for one instruction.
// Returns how many parameter values it removed.
struct FoldStats {
  uint32_t values = 0;   // parameter values dropped
  uint32_t folded = 0;   // uses that became constant-bank operands
  uint32_t moves = 0;    // uses that got a move right before them
};
// With `imms`, a value moved from an immediate (`mov.f32 %f6, 0f3F000000`)
// is treated the same way: SASS instructions take one immediate operand
// (FFMA R, R, 0.5, R) and ptxas materialises a constant next to its use
// rather than keeping it live. An instruction that already has an immediate
// or constant-bank operand takes no second one.
// With `consts`, a value loaded from a module's .const variable at a fixed
// address (`ld.const.f32 %f3, [ff_variable+4]`, in any function) is treated
// the same way: SASS reads it as c[0x3][offset], which the functional model
// reads from the variable's constant memory (func/decode.cpp, DKind::ConstVal).
FoldStats foldParamOperands(MFunction& mf, const ptx::Module& m, bool params = true, bool imms = true,
                            bool consts = true);

// Latency-driven list scheduling over each basic block, before allocation
// (prealloc_sched.cpp). Instructions keep every register, memory and
// control dependence; among the ready ones the longest latency-weighted path
// to the block's end goes first, so loads move ahead of the arithmetic
// that does not need them and independent loads issue back to back, as
// ptxas schedules for sm_70/sm_75. `reg_target` bounds the registers the
// scheduler may keep live to hoist a load (0: no bound): while the
// estimated live values reach it, the instruction that frees the most goes
// first instead.
struct ScheduleStats {
  uint32_t blocks = 0;   // blocks whose order changed
  uint32_t moved = 0;    // instructions not at their original position
};
// With `stores_early`, a ready store of computed values that frees registers
// goes first once its operands would be ready (prealloc_sched.cpp).
ScheduleStats scheduleBlocks(MFunction& mf, uint32_t reg_target, bool stores_early = true);

// Loop unrolling (prealloc_unroll.cpp), as ptxas unrolls again the loops
// NVVM gives it: a counted loop whose body is one block (`add i, i, step`,
// `setp p, i, n` with n invariant, `@p bra` to itself; lt/le/gt/ge in the
// step's direction, or ne) and at most `max_body`
// instructions, without barriers, warp-synchronous instructions or calls,
// and not marked `.pragma "nounroll"`, with a load in it, becomes
//   guard:     at least `factor` iterations left (no wrap-around)? else -> rest
//   unrolled:  `factor` copies of the body, each copy's values renamed so the
//              scheduler can overlap them; @p bra guard
//   exit:      bra (the block after the loop)
//   rest:      the loop as it was, for the last iterations
// The last copy writes every value the loop carries or leaves where the
// loop wrote it. Returns how many loops it unrolled.
struct UnrollStats {
  uint32_t loops = 0;
};
UnrollStats unrollLoops(MFunction& mf, uint32_t factor, uint32_t max_body);

// Shared-memory loads merged into vector loads (prealloc_vector.cpp), as
// ptxas makes LDS.64/LDS.128 of adjacent ld.shared.b32 and .b64: within a
// block, a load and later ones of the same type from the same base register
// (or symbol) at the next offsets become one ld.shared.v2/.v4 (32-bit
// values) or .v2 (64-bit) at the first one's place when the address is
// provably aligned to the whole access (8 or 16 bytes) (the base's known alignment,
// found by a fixed point over its definitions: symbols, immediates, shl,
// mul.lo, mad.lo, add, and) and nothing between them writes shared memory,
// orders it, redefines the base or touches a moved load's destination.
// Shared variables of 16 bytes or more are placed 16-byte aligned
// (alignSharedSymbols, applied to the machine program), as ptxas places them.
struct VectorStats {
  uint32_t loads = 0;   // vector loads made
  uint32_t merged = 0;  // scalar loads folded into them
};
VectorStats vectorizeSharedLoads(MFunction& mf, const ptx::Module& m);

// Multiply-add fusion (prealloc_fuse.cpp), as ptxas issues one IMAD for a
// 32-bit `mul.lo` whose product only one add or sub reads: `mul.lo %t, %a, b;
// add %d, %x, %t` (or `%t + %x`) becomes `mad.lo %d, %a, b, %x`, and
// `sub %d, %x, %t` with an immediate b becomes `mad.lo %d, %a, -b, %x`. The
// product must have no other definition or use, both in one block, no guard
// or carry, the factors unchanged between them; the mad takes the add's
// place. Returns how many pairs it merged.
uint32_t fuseMultiplyAdd(MFunction& mf);
void alignSharedSymbols(ptx::Module& m);

}  // namespace rfsim::backend

namespace rfsim::backend {

// Scratch registers of the operations ptxas expands into several SASS
// instructions (prealloc_scratch.cpp): IEEE division, reciprocal and square
// root (a Newton iteration plus a slow path called as a subroutine), integer
// division and remainder (a reciprocal estimate and correction steps), and
// 64-bit integer division (a subroutine). The machine program keeps such an
// operation as one instruction, so the functional model runs it exactly; its
// expansion's temporaries become scratch values (dst[1], mfunction.h) that
// take registers beside everything live across it, so the register count
// and occupancy are those of the expanded code. Returns the scratch values
// added.
uint32_t addExpansionScratch(MFunction& mf);
// The scratch registers (32-bit words) ptxas' expansion of `in` needs beside
// its operands on sm_70/sm_75; 0 for a single SASS instruction.
uint32_t expansionScratch(const ptx::Instr& in);

}  // namespace rfsim::backend
