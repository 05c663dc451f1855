// Per-lane semantics of PTX's data-processing instructions: everything that
// computes destinations from sources without touching memory, control flow
// or other lanes (those are the executor's: ld/st/atom/red's accesses, bra/call/ret/
// exit, bar, shfl, vote, activemask, special registers).
//
// Values travel as raw bits in uint64_t: a register of N bits occupies the low
// N bits (upper bits zero); predicates are 0 or 1; f32 is its IEEE bits in the
// low 32 bits; f16x2 packs two halves. Sources are already read (registers) or
// decoded (immediates) by the caller, in the order of Instr::src; a negated
// predicate source (`!%p`) arrives already negated.
//
// Operand slots (the exact convention):
//  - s[] holds the sources in Instr::src order, one slot per operand, except
//    that a Vec source contributes vec_n consecutive slots, element 0 first.
//    The only instruction with a Vec source is mov (pack): for
//    `mov.b64 %rd, {%r1,%r2}` s[0] = %r1, s[1] = %r2 and d[0] = %r1 | %r2<<32
//    (element i lands in bits [i*w, (i+1)*w), w = type width / vec_n). An
//    immediate element (kNoReg in regs[i]) is passed as its value, the bits
//    [i*w, (i+1)*w) of Operand::imm. (The executor may also do mov
//    pack/unpack itself; both give the same bits.)
//  - d[] likewise: one slot per destination, a Vec destination gets vec_n
//    consecutive slots. `mov.b64 {%r1,%r2}, %rd` writes d[0] = low half,
//    d[1] = high half. A sink `_` element is still written; the caller drops
//    it. The caller's d[] must have room for 4 entries.
//  - setp with `p|q` (ndst == 2) writes d[0] = p and d[1] = q.
//  - Immediates: an integer immediate may arrive sign-extended to 64 bits;
//    every operation reads only the low bits its type defines. A float
//    immediate arrives as the IEEE bits of the instruction's type (f32 bits for
//    .f32, f64 bits for .f64; for cvt, of the source type).
//  - mov's source may also be a special register, a symbol or an address the
//    caller has already resolved to a value: evalLane copies s[0].
//  - Results: the low N bits of the destination type, upper bits zero. One
//    exception: an 8-bit integer destination type (cvt.s8/.u8) is sign- or
//    zero-extended to 64 bits, since it lands in a wider register; the caller
//    keeps its register's width.
//  - Types in two-type instructions: cvt: type = destination, type2 = source;
//    set: type = destination (.u32/.s32/.f32), type2 = compared type (None:
//    same as type); slct: type = data type, type2 = selector type (.s32/.f32);
//    dp4a/dp2a: type = a's type, type2 = b's type (None: same). Modifiers
//    carried in shared fields: dp2a's .lo/.hi and shf's .l/.r are mods.mul
//    (Lo/Hi); shf's and bmsk's .clamp is mods.shift_clamp; testp's
//    .number/.notanumber are mods.cmp Num/Nan; bfind's .shiftamt is
//    mods.shiftamt.
//  - Division by zero (undefined in PTX): div gives all ones, rem gives the
//    dividend. NaN results are canonical: 0x7fffffff (f32), 0x7fff
//    (f16/bf16), 0x7fffffffffffffff (f64, a model choice).
//  - .approx functions are computed in double and rounded to nearest, i.e.
//    more accurate than the hardware's MUFU results (float_slow.cpp).
//  - Directed rounding (.rz/.rm/.rp) switches the host's rounding mode
//    (per thread) for one operation and restores round-to-nearest, which the
//    callers must leave as the host's mode. evalLane never allocates.
#pragma once

#include <cstdint>
#include <string>

#include "ptx/ir.h"

namespace rfsim::func {

// True when evalLane() implements this opcode/type/modifier combination; else
// false with the reason in *why ("div.rn.f16 is not supported"). The loader
// calls it for every instruction so that unsupported ones fail at load time.
//
// Carry (add.cc, addc, sub.cc, subc, mad.cc, madc; PTX ISA 9.7.2): CC.CF is
// per-lane state the caller keeps. A caller that does passes with_carry =
// true; then for mods.carry_in the carry-in (0/1) arrives in s[nsrc] (the slot
// after the last source) and for mods.cc evalLane writes the carry-out (0/1)
// to d[ndst] (the slot after the last destination, i.e. d[1]). For sub/subc
// CF is the borrow: d = a - (b + CF), CF' = 1 when that borrows. Without
// with_carry, carry forms are rejected (they would silently read CF = 0).
bool laneSupports(const ptx::Instr& in, std::string* why, bool with_carry = false);

// One lane: s[0..in.nsrc) -> d[0..in.ndst). For setp with a second predicate
// destination (`setp... p|q`), d[1] receives the complement as PTX defines.
// Only called for instructions laneSupports() accepted.
void evalLane(const ptx::Instr& in, const uint64_t* s, uint64_t* d);

// A lane function specialised for one instruction, with evalLane's contract
// and results: pick it once at load time (the Instr must outlive its use) and
// call it per lane to skip evalLane's opcode/type dispatch. The common integer
// and round-to-nearest float forms get a dedicated function (about 2x faster
// than evalLane in a microbenchmark); every other instruction gets &evalLane.
// Never null. Only for instructions laneSupports() accepted.
using LaneFn = void (*)(const ptx::Instr& in, const uint64_t* s, uint64_t* d);
LaneFn laneFunction(const ptx::Instr& in);

// The same specialisation over the 32 lanes of a warp in one call, for the
// instructions laneFunction() specialises (nullptr for every other one):
// r[l] = the result of lane l from sources s[0][l], s[1][l], s[2][l] (s holds
// three columns of 32 values; those past in.nsrc are not read for their
// values but must be readable). It computes all 32 lanes, whatever they
// hold: the caller keeps the results of its active lanes. Its results are
// laneFunction()'s bit for bit.
using WarpFn = void (*)(const ptx::Instr& in, const uint64_t* const* s, uint64_t* r);
WarpFn warpFunction(const ptx::Instr& in);

// Whether this opcode is handled by evalLane (data processing) rather than
// by the executor.
bool isLaneOp(ptx::Op op);

// atom/red's arithmetic (their memory access is the executor's): the value an
// atomic of operation `op` on type `t` leaves in memory, given the value `old`
// there before and its operands b and c (c: cas's new value).
uint64_t atomicResult(ptx::AtomOp op, ptx::Type t, uint64_t old, uint64_t b, uint64_t c);

}  // namespace rfsim::func
