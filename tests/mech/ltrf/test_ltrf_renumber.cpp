// LTRF's register renumbering (mech/ltrf/renumber.h) with 64-bit values:
// an aligned register pair moves whole, by an even distance, to a pair of
// banks its interval leaves free (Sadrosadati et al. section 4.2: every
// register-live-range gets a register of its colour's bank; a 64-bit value
// is two of them that must stay an even/odd pair), and a value live across a
// call moves only to a callee-saved register.
#include <catch2/catch.hpp>

#include "mech/ltrf/renumber.h"
#include "ptx/analysis/cfg.h"
#include "ptx/machine.h"

using namespace rfsim;
using namespace rfsim::mech::ltrf;

namespace {

ptx::Operand reg(uint32_t r, unsigned bits = 32) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Reg;
  o.regs[0] = r;
  o.mbits = static_cast<uint8_t>(bits);
  return o;
}

ptx::Operand imm(int64_t v) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Imm;
  o.imm = v;
  return o;
}

ptx::Instr ins(ptx::Op op, ptx::Type t, std::vector<ptx::Operand> d, std::vector<ptx::Operand> s) {
  ptx::Instr in;
  in.op = op;
  in.type = t;
  in.ndst = static_cast<uint8_t>(d.size());
  in.nsrc = static_cast<uint8_t>(s.size());
  for (size_t i = 0; i < d.size(); ++i) in.dst[i] = d[i];
  for (size_t i = 0; i < s.size(); ++i) in.src[i] = s[i];
  return in;
}

// A kernel of one interval (N = 4) naming two 64-bit values, R2:R3 and
// R6:R7, and their sum's low word in R2: with 4 banks interleaved (register
// mod 4) both pairs lie in banks 2 and 3, two same-bank registers that only
// moving a whole pair to R4:R5 (banks 0 and 1) resolves.
ptx::Function twoPairs() {
  using ptx::Op;
  using ptx::Type;
  ptx::Function fn;
  fn.name = "two_pairs";
  fn.is_entry = true;
  fn.blocks.resize(1);
  fn.blocks[0].instrs = {ins(Op::Mov, Type::U64, {reg(2, 64)}, {imm(0x1234)}),
                         ins(Op::Mov, Type::U64, {reg(6, 64)}, {imm(0x5678)}),
                         ins(Op::Add, Type::U64, {reg(2, 64)}, {reg(2, 64), reg(6, 64)}),
                         ins(Op::Add, Type::U32, {reg(2)}, {reg(2), reg(3)}),
                         ins(Op::Exit, Type::U32, {}, {})};
  ptx::buildCfg(fn);
  return fn;
}

// Each 64-bit operand's register (its low word) and each 32-bit operand's.
std::vector<std::pair<uint32_t, unsigned>> regsOf(const ptx::Function& fn) {
  std::vector<std::pair<uint32_t, unsigned>> v;
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs) {
      for (unsigned k = 0; k < in.ndst; ++k)
        if (in.dst[k].kind == ptx::OperandKind::Reg) v.push_back({in.dst[k].regs[0], in.dst[k].mbits});
      for (unsigned k = 0; k < in.nsrc; ++k)
        if (in.src[k].kind == ptx::OperandKind::Reg) v.push_back({in.src[k].regs[0], in.src[k].mbits});
    }
  return v;
}

}  // namespace

TEST_CASE("ltrf renumbering: a 64-bit pair moves whole to an aligned pair of free banks", "[ltrf][renumber]") {
  ptx::Function fn = twoPairs();
  const BankMapping bm{4, 0};
  const ConflictCount before = bankConflicts(fn, 4, bm);
  REQUIRE(before.intervals == 1);
  CHECK(before.conflict_free == 0);
  CHECK(before.max_conflicts == 1);

  const RenumberResult r = renumber(fn, 4, bm, 0);
  CHECK(r.kept);
  CHECK(r.moved >= 2);  // at least the two halves of one pair
  CHECK(r.fixed == 0);
  const ConflictCount after = bankConflicts(fn, 4, bm);
  CHECK(after.conflict_free == after.intervals);

  // Every 64-bit operand names an even register, the pairs are R4:R5 and
  // one of R2:R3 / R6:R7, and the sum's low word and its high word are read
  // from the pair the sum was written to.
  const auto regs = regsOf(fn);
  for (auto [reg64, bits] : regs)
    if (bits == 64) CHECK(reg64 % 2 == 0);
  const ptx::Instr& sum = fn.blocks[0].instrs[2];
  const ptx::Instr& low = fn.blocks[0].instrs[3];
  CHECK(sum.dst[0].regs[0] == sum.src[0].regs[0]);
  CHECK(sum.src[0].regs[0] != sum.src[1].regs[0]);
  CHECK((sum.src[0].regs[0] == 4 || sum.src[1].regs[0] == 4));
  CHECK(low.src[0].regs[0] == sum.dst[0].regs[0]);
  CHECK(low.src[1].regs[0] == sum.dst[0].regs[0] + 1);
  CHECK(low.dst[0].regs[0] == sum.dst[0].regs[0]);
  CHECK(fn.blocks[0].instrs[0].dst[0].regs[0] == sum.dst[0].regs[0]);
}

TEST_CASE("ltrf renumbering: pairs already in different banks stay where they are", "[ltrf][renumber]") {
  // 8 banks of one register each (contiguous): the two pairs are in banks
  // 2, 3, 6 and 7, no conflict, and nothing moves.
  ptx::Function fn = twoPairs();
  const BankMapping bm{8, 1};
  CHECK(bankConflicts(fn, 4, bm).conflict_free == 1);
  const RenumberResult r = renumber(fn, 4, bm, 0);
  CHECK_FALSE(r.kept);
  for (auto [reg64, bits] : regsOf(fn))
    if (bits == 64) CHECK(reg64 % 2 == 0);
}
