// Loop unrolling as ptxas does it (prealloc.h: unrollLoops). Evidence, from
// the cubins of the workloads' PTX compiled by ptxas for sm_75
// (docs/backend.md, "Loops"): a counted loop whose body is one block is
// unrolled again even when NVVM has unrolled it already -- spmv_csr_scalar's
// PTX has 17 global loads and its SASS 89 (the 12 of the 4x loop body seven
// times: an unrolled copy of four and the remainders), r2_kmeans_point 14 and
// 62, r2_invert_mapping 5 and 29 -- and the scheduler then overlaps the
// copies' loads, which is where ptxas' higher register counts on such loops
// come from. A loop NVVM marked `.pragma "nounroll"` keeps its shape.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backend/prealloc.h"
#include "ptx/analysis/cfg.h"

namespace rfsim::backend {

using ptx::Cmp;
using ptx::Instr;
using ptx::Op;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;

namespace {

// Instructions a copy of the body may not repeat on its own: warp-synchronous
// ones (threads that leave the unrolled copy early would run them apart),
// barriers, calls and anything that ends a thread.
bool blocksUnroll(const Instr& in) {
  switch (in.op) {
    case Op::Bar: case Op::Call: case Op::Ret: case Op::Exit: case Op::Trap: case Op::Brkpt: case Op::Shfl:
    case Op::Vote: case Op::Activemask: case Op::Match: case Op::Nanosleep: case Op::Ext:
      return true;
    default:
      return false;
  }
}

bool isIntType(Type t) {
  switch (t) {
    case Type::S32: case Type::U32: case Type::B32: case Type::S64: case Type::U64: case Type::B64:
      return true;
    default:
      return false;
  }
}

Type unsignedOf(Type t) { return ptx::typeBits(t) == 64 ? Type::U64 : Type::U32; }

// The comparison with its operands swapped (a < b  <=>  b > a).
Cmp swapped(Cmp c) {
  switch (c) {
    case Cmp::Lt: return Cmp::Gt;
    case Cmp::Le: return Cmp::Ge;
    case Cmp::Gt: return Cmp::Lt;
    case Cmp::Ge: return Cmp::Le;
    case Cmp::Lo: return Cmp::Hi;
    case Cmp::Ls: return Cmp::Hs;
    case Cmp::Hi: return Cmp::Lo;
    case Cmp::Hs: return Cmp::Ls;
    default: return c;
  }
}
Cmp negated(Cmp c) {
  switch (c) {
    case Cmp::Eq: return Cmp::Ne;
    case Cmp::Ne: return Cmp::Eq;
    case Cmp::Lt: return Cmp::Ge;
    case Cmp::Le: return Cmp::Gt;
    case Cmp::Gt: return Cmp::Le;
    case Cmp::Ge: return Cmp::Lt;
    case Cmp::Lo: return Cmp::Hs;
    case Cmp::Ls: return Cmp::Hi;
    case Cmp::Hi: return Cmp::Ls;
    case Cmp::Hs: return Cmp::Lo;
    default: return Cmp::None;
  }
}
bool ascending(Cmp c) { return c == Cmp::Lt || c == Cmp::Le || c == Cmp::Lo || c == Cmp::Ls; }
bool descending(Cmp c) { return c == Cmp::Gt || c == Cmp::Ge || c == Cmp::Hi || c == Cmp::Hs; }

// A counted single-block loop: `... add i, i, step ... setp p, i, n ... @p bra self`.
struct CountedLoop {
  uint32_t counter = ptx::kNoReg;  // i: one unguarded def in the block, `add i, i, step`
  int64_t step = 0;
  Type add_type = Type::None;
  Type cmp_type = Type::None;      // the setp's compared type
  Cmp cont = Cmp::None;            // continue while (i after the add) cont n
  Operand bound;                   // n: loop-invariant (register, immediate or parameter)
  uint32_t pred = ptx::kNoReg;     // p
  size_t setp_at = 0;              // the setp's position in the block
  bool drop_setp = false;          // p read by nothing but the branch: copies before the last skip it
};

// `op.t dst, a[, b]` (cmp: a setp's comparison).
Instr make(Op op, Type t, const Operand& dst, const Operand& a, const Operand& b = {}, Cmp cmp = Cmp::None) {
  Instr in;
  in.op = op;
  in.type = t;
  in.mods.cmp = cmp;
  in.ndst = 1;
  in.dst[0] = dst;
  in.nsrc = b.kind == OperandKind::None ? 1 : 2;
  in.src[0] = a;
  in.src[1] = b;
  return in;
}

// `[@!guard] bra block`.
Instr branch(uint32_t block, const Operand& guard = {}) {
  Instr in;
  in.op = Op::Bra;
  in.guard = guard;
  in.nsrc = 1;
  in.src[0].kind = OperandKind::Label;
  in.src[0].block = block;
  return in;
}

}  // namespace

UnrollStats unrollLoops(MFunction& mf, uint32_t factor, uint32_t max_body) {
  UnrollStats st;
  if (factor < 2) return st;
  ptx::Function& fn = mf.fn;
  ptx::buildCfg(fn);
  for (uint32_t b = 1; b + 1 < fn.blocks.size(); ++b) {
    ptx::BasicBlock& bb = fn.blocks[b];
    if (bb.nounroll || bb.instrs.size() < 3 || bb.instrs.size() - 1 > max_body) continue;
    const Instr& br = bb.instrs.back();
    if (br.op != Op::Bra || br.guard.kind != OperandKind::Reg || br.nsrc != 1 ||
        br.src[0].kind != OperandKind::Label || br.src[0].block != b)
      continue;
    const size_t n_body = bb.instrs.size() - 1;
    bool ok = true;
    // Every value's defs in the block, and whether any is guarded.
    std::unordered_map<uint32_t, uint32_t> defs;
    std::unordered_set<uint32_t> guarded;
    std::unordered_map<uint32_t, uint32_t> uses_in_block;
    for (size_t k = 0; k < n_body && ok; ++k) {
      Instr& in = bb.instrs[k];
      if (blocksUnroll(in) || in.op == Op::Bra) ok = false;
      forEachSlot(in, fn, [&](const Slot& s) {
        if (isPhysId(*s.reg)) return;
        if (s.def) {
          ++defs[*s.reg];
          if (s.guarded) guarded.insert(*s.reg);
        } else {
          ++uses_in_block[*s.reg];
        }
      });
    }
    // A loop with no memory latency to overlap (no global, shared or
    // generic load) is left as it is: ptxas' count on fp64's dpoly_horner,
    // whose loop reads only the constant bank, is the rolled loop's.
    if (!ok || std::none_of(bb.instrs.begin(), bb.instrs.end(), [](const Instr& in) {
          return (in.op == Op::Ld || in.op == Op::Ldu) &&
                 (in.space == ptx::Space::Global || in.space == ptx::Space::Shared ||
                  in.space == ptx::Space::Generic);
        }))
      continue;
    auto defsOf = [&](uint32_t v) -> uint32_t {
      auto it = defs.find(v);
      return it == defs.end() ? 0 : it->second;
    };
    auto isGuarded = [&](uint32_t v) { return guarded.count(v) != 0; };
    CountedLoop L;
    L.pred = br.guard.regs[0];
    if (isPhysId(L.pred) || defsOf(L.pred) != 1 || isGuarded(L.pred)) continue;
    // The setp that defines p, and the counter it compares.
    for (size_t k = 0; k < n_body; ++k) {
      const Instr& in = bb.instrs[k];
      if (in.ndst >= 1 && in.dst[0].kind == OperandKind::Reg && in.dst[0].regs[0] == L.pred) L.setp_at = k;
    }
    const Instr& sp = bb.instrs[L.setp_at];
    if (sp.op != Op::Setp || sp.ndst != 1 || sp.nsrc != 2 || sp.mods.boolop != ptx::BoolOp::None ||
        sp.guard.kind != OperandKind::None || !isIntType(sp.type))
      continue;
    for (int side = 0; side < 2 && L.counter == ptx::kNoReg; ++side) {
      const Operand& a = sp.src[side];
      const Operand& n = sp.src[1 - side];
      if (a.kind != OperandKind::Reg || isPhysId(a.regs[0]) || defsOf(a.regs[0]) != 1 || isGuarded(a.regs[0]))
        continue;
      // The add of the counter, before the setp.
      for (size_t k = 0; k < L.setp_at; ++k) {
        const Instr& in = bb.instrs[k];
        if (in.op != Op::Add || in.ndst != 1 || in.dst[0].kind != OperandKind::Reg || in.dst[0].regs[0] != a.regs[0])
          continue;
        if (in.guard.kind != OperandKind::None || in.mods.cc || in.mods.carry_in || in.mods.sat ||
            !isIntType(in.type) || in.nsrc != 2 || in.src[0].kind != OperandKind::Reg ||
            in.src[0].regs[0] != a.regs[0] || in.src[1].kind != OperandKind::Imm || in.src[1].imm == 0)
          break;
        if (n.kind == OperandKind::Reg && (isPhysId(n.regs[0]) || defsOf(n.regs[0]))) break;
        if (n.kind != OperandKind::Reg && n.kind != OperandKind::Imm && n.kind != OperandKind::Addr) break;
        L.counter = a.regs[0];
        L.step = in.src[1].imm;
        L.add_type = in.type;
        L.cmp_type = sp.type;
        L.cont = side == 0 ? sp.mods.cmp : swapped(sp.mods.cmp);
        if (br.guard.negate) L.cont = negated(L.cont);
        L.bound = n;
        break;
      }
    }
    if (L.counter == ptx::kNoReg) continue;
    if (ptx::typeBits(L.add_type) != ptx::typeBits(L.cmp_type)) continue;
    const bool ne = L.cont == Cmp::Ne;
    if (!ne && !(L.step > 0 && ascending(L.cont)) && !(L.step < 0 && descending(L.cont))) continue;
    L.drop_setp = !uses_in_block.count(L.pred);  // the branch's guard is not counted as a body use

    // Renamable values: defined in the block, never under a guard, not a
    // scratch register of an expansion.
    auto renamable = [&](uint32_t v) {
      return !isPhysId(v) && defsOf(v) && !isGuarded(v) &&
             std::find(mf.scratch_values.begin(), mf.scratch_values.end(), v) == mf.scratch_values.end();
    };
    // The last def of each value in the body: the last copy's writes it to
    // the value itself, so what leaves the loop or enters its next iteration
    // is where it was.
    std::unordered_map<uint32_t, size_t> last_def;
    for (size_t k = 0; k < n_body; ++k)
      forEachSlot(bb.instrs[k], fn, [&](const Slot& s) {
        if (s.def) last_def[*s.reg] = k;
      });

    const uint32_t bits = ptx::typeBits(L.add_type);
    const std::string label = bb.label.empty() ? "$L" + std::to_string(b) : bb.label;
    // The unrolled body.
    ptx::BasicBlock body;
    body.label = label + "$unrolled";
    std::unordered_map<uint32_t, uint32_t> cur;  // value -> its name in the copy being made
    for (uint32_t c = 0; c < factor; ++c) {
      const bool last = c + 1 == factor;
      for (size_t k = 0; k < n_body; ++k) {
        if (!last && L.drop_setp && k == L.setp_at) continue;
        Instr in = bb.instrs[k];
        forEachSlot(in, fn, [&](const Slot& s) {
          if (s.def) return;
          auto it = cur.find(*s.reg);
          if (it != cur.end()) *s.reg = it->second;
        });
        forEachSlot(in, fn, [&](const Slot& s) {
          if (!s.def || !renamable(*s.reg)) return;
          const uint32_t v = *s.reg;
          if (last && last_def[v] == k) {
            cur.erase(v);
            return;
          }
          const uint32_t nv = mf.newVreg(fn.regs[v].type, mf.vbits[v]);
          fn.regs[nv].name = fn.regs[v].name + "." + std::to_string(c + 1);
          cur[v] = nv;
          *s.reg = nv;
        });
        body.instrs.push_back(std::move(in));
      }
    }
    Instr back = br;  // @p bra <guard block>
    back.src[0].block = b;
    body.instrs.push_back(back);

    // The guard: enough iterations left for a whole unrolled copy.
    ptx::BasicBlock guard;
    guard.label = bb.label;
    const ptx::SrcLoc loc = br.loc;
    auto emit = [&](Instr in) {
      in.loc = loc;
      guard.instrs.push_back(in);
    };
    const Operand i = regOperand(L.counter, bits);
    Operand n = L.bound;
    if (n.kind != OperandKind::Reg) {  // the bound into a register (an immediate or a parameter)
      const Operand nr = regOperand(mf.newVreg(L.add_type, bits), bits);
      emit(make(Op::Mov, ptx::isSigned(L.add_type) ? L.add_type : unsignedOf(L.add_type), nr, n));
      n = nr;
    }
    // q: a whole unrolled copy may run.
    const uint32_t q = mf.newVreg(Type::Pred, 1);
    const Operand qo = regOperand(q, 1);
    auto ahead = [&](uint32_t k) {  // i + k*step, in a new value
      const Operand t = regOperand(mf.newVreg(L.add_type, bits), bits);
      emit(make(Op::Add, L.add_type, t, i, immOperand(L.step * static_cast<int64_t>(k))));
      return t;
    };
    if (ne) {
      // Continue while i + k*step != n for every k < factor: one compare each.
      emit(make(Op::Setp, L.cmp_type, qo, ahead(1), n, Cmp::Ne));
      for (uint32_t k = 2; k < factor; ++k) {
        const Operand qk = regOperand(mf.newVreg(Type::Pred, 1), 1);
        emit(make(Op::Setp, L.cmp_type, qk, ahead(k), n, Cmp::Ne));
        emit(make(Op::And, Type::Pred, qo, qo, qk));
      }
    } else {
      // i + (factor-1)*step still compares as the loop continues, and did not wrap.
      const Operand t = ahead(factor - 1);
      emit(make(Op::Setp, L.cmp_type, qo, t, n, L.cont));
      const bool u = L.cont == Cmp::Lo || L.cont == Cmp::Ls || L.cont == Cmp::Hi || L.cont == Cmp::Hs;
      const Operand q2 = regOperand(mf.newVreg(Type::Pred, 1), 1);
      emit(make(Op::Setp, L.cmp_type, q2, t, i, L.step > 0 ? (u ? Cmp::Hi : Cmp::Gt) : (u ? Cmp::Lo : Cmp::Lt)));
      emit(make(Op::And, Type::Pred, qo, qo, q2));
    }
    Operand not_q = qo;
    not_q.negate = true;
    emit(branch(b + 3, not_q));  // @!q bra <the loop as it was>
    // After the unrolled copy: out of the loop.
    ptx::BasicBlock out;
    out.label = label + "$exit";
    out.instrs.push_back(branch(b + 4));
    out.instrs.back().loc = loc;

    // Blocks after b move by three; b's own label is the guard's.
    for (auto& blk : fn.blocks)
      for (auto& in : blk.instrs)
        for (unsigned k = 0; k < in.nsrc; ++k)
          if (in.src[k].kind == OperandKind::Label && in.src[k].block > b) in.src[k].block += 3;
    ptx::BasicBlock rest = std::move(fn.blocks[b]);
    rest.label = label + "$rest";
    rest.instrs.back().src[0].block = b + 3;
    fn.blocks[b] = std::move(guard);
    fn.blocks.insert(fn.blocks.begin() + b + 1, {std::move(body), std::move(out), std::move(rest)});
    ++st.loops;
    b += 3;
  }
  ptx::buildCfg(fn);
  return st;
}

}  // namespace rfsim::backend
