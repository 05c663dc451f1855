// R2D2's multi-write registers (multiwrite.h): loop updates with a uniform
// offset, divergent definitions as moves from their linear registers.
#include "mech/r2d2/multiwrite.h"

#include <map>
#include <set>

#include "mech/r2d2/transform_util.h"

namespace rfsim::mech::r2d2 {

using namespace detail;

namespace {

struct ReadAt {
  uint32_t block, index;
  int src;  // -1: the guard
};

bool integerType(Type t) { return !ptx::isFloat(t) && t != Type::Pred && t != Type::None; }

// The reads of every register, by slot.
std::vector<std::vector<ReadAt>> readsOf(const ptx::Function& fn) {
  std::vector<std::vector<ReadAt>> out(fn.regs.size());
  for (uint32_t b = 0; b < fn.blocks.size(); ++b)
    for (uint32_t i = 0; i < fn.blocks[b].instrs.size(); ++i) {
      forEachRead(fn.blocks[b].instrs[i], [&](const Operand& o, int k, int s) {
        if (o.regs[k] < out.size()) out[o.regs[k]].push_back({b, i, s});
      });
    }
  return out;
}

// A memory operand the address adder computes: src 0 of an ld or st (not a
// parameter or constant load: those have no register address), nothing else
// of the instruction reading the register, no addend yet.
bool addressRead(const Instr& in, const ReadAt& at, const std::vector<ReadAt>& reads_of_r) {
  if (at.src != 0 || (in.op != Op::Ld && in.op != Op::St) || in.src[0].kind != OperandKind::Addr) return false;
  if (in.space == ptx::Space::Param || in.space == ptx::Space::Const || in.mods.uaddr) return false;
  for (const ReadAt& o : reads_of_r)
    if (o.block == at.block && o.index == at.index && o.src != 0) return false;
  return true;
}

// An update r = r + s in the position the uniform register can take: the
// other operands do not read r.
bool additiveUpdate(const Instr& in, uint32_t r) {
  auto is = [&](int s) { return in.src[s].kind == OperandKind::Reg && in.src[s].regs[0] == r; };
  if (in.guard.kind == OperandKind::Reg || in.ndst != 1) return false;
  switch (in.op) {
    case Op::Add: return in.nsrc == 2 && is(0) != is(1);
    case Op::Sub: return in.nsrc == 2 && is(0) && !is(1);
    case Op::Mad:
      return in.nsrc == 3 && is(2) && !is(0) && !is(1) &&
             (in.mods.mul == ptx::MulMode::Lo || in.mods.mul == ptx::MulMode::Wide);
    default: return false;
  }
}

CoefVec plus(const CoefVec& a, const CoefVec& b) {
  CoefVec v;
  for (int e = 0; e < kNumElems; ++e) v.e[e] = a.e[e] + b.e[e];
  v.narrow = a.narrow || b.narrow;
  return v;
}

// The linear value an operand holds, if it has one (an immediate, or a
// register written once with a linear value).
std::optional<CoefVec> linearOperand(const Operand& o, const Linearity& L) {
  if (o.kind == OperandKind::Imm) {
    CoefVec v;
    v.e[kC] = Poly::constant(o.imm);
    return v;
  }
  if (o.kind != OperandKind::Reg || o.regs[0] >= L.value.size() || L.writes[o.regs[0]] != 1) return std::nullopt;
  return L.value[o.regs[0]];
}

bool planLoop(const ptx::Function& fn, const Linearity& L, const std::vector<std::vector<ReadAt>>& reads,
              LoopPlan& lp) {
  const uint32_t r = lp.reg;
  std::set<InstrAt> updates(lp.updates.begin(), lp.updates.end());
  for (const ReadAt& at : reads[r]) {
    const Instr& in = fn.blocks[at.block].instrs[at.index];
    if (at.src < 0) return false;
    if (updates.count({at.block, at.index})) {
      if (!additiveUpdate(in, r)) return false;
      continue;
    }
    if (addressRead(in, at, reads[r])) {
      lp.reads.push_back({at.block, at.index, r, lp.init->vec});
      continue;
    }
    // t = r + x, t read only as addresses.
    if (in.op != Op::Add || in.nsrc != 2 || in.ndst != 1 || in.guard.kind == OperandKind::Reg ||
        !integerType(in.type) || in.dst[0].kind != OperandKind::Reg)
      return false;
    const uint32_t t = in.dst[0].regs[0];
    if (t >= L.writes.size() || L.writes[t] != 1 || ptx::typeBits(fn.regs[t].type) != lp.bits) return false;
    const std::optional<CoefVec> x = linearOperand(in.src[at.src == 0 ? 1 : 0], L);
    if (!x) return false;
    for (const ReadAt& tu : reads[t])
      if (tu.src < 0 || !addressRead(fn.blocks[tu.block].instrs[tu.index], tu, reads[t])) return false;
    for (const ReadAt& tu : reads[t]) lp.reads.push_back({tu.block, tu.index, t, plus(lp.init->vec, *x)});
    lp.derived.push_back({at.block, at.index});
  }
  // Every read has an index part (a uniform pointer stays on the scalar path).
  for (const LoopPlan::Read& rd : lp.reads)
    if (rd.vec.scalar()) return false;
  return !lp.reads.empty();
}

}  // namespace

MultiWrite planMultiWrite(const ptx::Function& fn, const Linearity& L) {
  MultiWrite out;
  std::map<uint32_t, std::vector<const Definition*>> by_reg;
  for (const Definition& d : L.defs)
    if (d.kind != DefKind::Single) by_reg[d.reg].push_back(&d);
  if (by_reg.empty()) return out;
  const auto reads = readsOf(fn);
  for (const auto& [r, ds] : by_reg) {
    const uint32_t bits = ptx::typeBits(fn.regs[r].type);
    if (bits != 32 && bits != 64) continue;
    LoopPlan lp;
    lp.reg = r;
    lp.bits = bits;
    bool loop = L.writes[r] == ds.size();  // every write linear
    for (const Definition* d : ds) {
      if (d->kind == DefKind::LoopInit && !lp.init) lp.init = d;
      else if (d->kind == DefKind::LoopUpdate) lp.updates.push_back({d->block, d->index});
      else loop = false;
    }
    if (loop && lp.init && !lp.updates.empty() && planLoop(fn, L, reads, lp)) {
      out.loops.push_back(std::move(lp));
      continue;
    }
    for (const Definition* d : ds)
      if ((d->kind == DefKind::Divergent || d->kind == DefKind::LoopInit) && !d->vec.scalar())
        out.divergent.push_back({d, bits});
  }
  return out;
}

void rewriteLoop(ptx::Function& fn, const LoopPlan& lp, uint32_t u) {
  Instr& init = fn.blocks[lp.init->block].instrs[lp.init->index];
  init = make(Op::Mov, lp.bits == 64 ? Type::B64 : Type::B32, u, {immOp(0)}, init.loc);
  for (const auto& [b, i] : lp.updates) {
    Instr& in = fn.blocks[b].instrs[i];
    in.dst[0].regs[0] = u;
    for (int s = 0; s < in.nsrc; ++s)
      if (in.src[s].kind == OperandKind::Reg && in.src[s].regs[0] == lp.reg) in.src[s].regs[0] = u;
  }
}

}  // namespace rfsim::mech::r2d2
