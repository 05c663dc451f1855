// Liveness of an MFunction's values (virtual and physical) by backward data
// flow over its blocks, on bit sets (regalloc.h, ra_internal.h).
#include <algorithm>
#include <string>

#include "backend/ra_internal.h"
#include "backend/regalloc.h"
#include "common/error.h"
#include "ptx/analysis/cfg.h"

namespace rfsim::backend {
namespace ra {

namespace {

void addValue(MFunction& f, const ValueSpace& vs, uint32_t id, unsigned mbits, std::vector<uint32_t>& into) {
  if (id == ptx::kNoReg) return;
  if (!isPhysId(id)) {
    if (id >= vs.nv)
      throw Error(f.fn.name + ": register operand " + std::to_string(id) + " is not a value of the function");
    into.push_back(id);
    return;
  }
  const uint32_t r = physOf(id);
  if (r >= ptx::mach::kNumRegIds)
    throw Error(f.fn.name + ": physical register id " + std::to_string(r) + " is out of range");
  if (r == ptx::mach::kRZ) return;
  into.push_back(vs.nv + r);
  if (mbits == 64 && ptx::mach::isGpr(r) && r + 1 < ptx::mach::kRZ) into.push_back(vs.nv + r + 1);
}

}  // namespace

void instrEffects(MFunction& f, ptx::Instr& in, const ValueSpace& vs, InstrEffects& out) {
  out.uses.clear();
  out.defs.clear();
  const bool guarded = in.guard.kind == ptx::OperandKind::Reg;
  out.is_call = in.op == ptx::Op::Call;
  out.ends_path = !guarded && (in.op == ptx::Op::Ret || in.op == ptx::Op::Exit || in.op == ptx::Op::Trap);
  out.is_move = false;
  std::vector<uint32_t> tmp;
  forEachSlot(in, f.fn, [&](const Slot& s) {
    tmp.clear();
    addValue(f, vs, *s.reg, s.mbits, tmp);
    for (uint32_t idx : tmp) {
      if (s.def) out.defs.push_back({idx, s.guarded});
      else out.uses.push_back(idx);
    }
  });
  if (in.op == ptx::Op::Ret)
    for (uint32_t r : f.ret_uses) addValue(f, vs, r, 32, out.uses);
  if (in.op == ptx::Op::Mov && !guarded && in.ndst == 1 && in.nsrc == 1 && in.dst[0].kind == ptx::OperandKind::Reg &&
      in.src[0].kind == ptx::OperandKind::Reg && !in.src[0].negate && in.dst[0].mbits == in.src[0].mbits &&
      in.dst[0].mbits != 0 && out.defs.size() == 1 && out.uses.size() == 1) {
    out.is_move = true;
    out.move_dst = out.defs[0].idx;
    out.move_src = out.uses[0];
  }
}

BlockLive solveLiveness(MFunction& f, const ValueSpace& vs) {
  ptx::buildCfg(f.fn);
  const size_t nb = f.fn.blocks.size();
  BlockLive bl;
  bl.in.assign(nb, BitSet(vs.size()));
  bl.out.assign(nb, BitSet(vs.size()));
  // Per block: upward-exposed uses (gen) and the values it kills, computed by
  // the same backward walk as the transfer below, so a block's transfer is
  // in = gen | (out & ~kill), except after a path end (nothing flows through).
  std::vector<BitSet> gen(nb, BitSet(vs.size())), kill(nb, BitSet(vs.size()));
  std::vector<bool> opaque(nb, false);  // an unguarded ret/exit/trap: out does not flow to in
  InstrEffects fx;
  for (size_t b = 0; b < nb; ++b) {
    auto& instrs = f.fn.blocks[b].instrs;
    for (size_t k = instrs.size(); k-- > 0;) {
      instrEffects(f, instrs[k], vs, fx);
      if (fx.ends_path) {
        gen[b].clear();
        opaque[b] = true;
      }
      for (const Def& d : fx.defs)
        if (!d.guarded) {
          gen[b].reset(d.idx);
          kill[b].set(d.idx);
        }
      for (uint32_t u : fx.uses) gen[b].set(u);
    }
  }
  // Round-robin in reverse block order until nothing changes.
  BitSet next(vs.size());
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      BitSet out(vs.size());
      for (uint32_t s : f.fn.blocks[b].succs) out.orWith(bl.in[s]);
      next = gen[b];
      if (!opaque[b]) {
        out.forEach([&](uint32_t i) {
          if (!kill[b].test(i)) next.set(i);
        });
      }
      if (!(out == bl.out[b])) bl.out[b] = out;
      if (!(next == bl.in[b])) {
        bl.in[b] = next;
        changed = true;
      }
    }
  }
  return bl;
}

}  // namespace ra

Liveness computeLiveness(MFunction& f) {
  ra::ValueSpace vs{static_cast<uint32_t>(f.fn.regs.size())};
  const ra::BlockLive bl = ra::solveLiveness(f, vs);
  Liveness lv;
  const size_t nb = f.fn.blocks.size();
  lv.live_in.resize(nb);
  lv.live_out.resize(nb);
  std::vector<uint32_t> entry;
  for (uint32_t e : f.entry_defs)
    if (isPhysId(e)) entry.push_back(vs.nv + physOf(e));
  for (size_t b = 0; b < nb; ++b) {
    bl.in[b].forEach([&](uint32_t i) {
      if (b == 0 && f.fn.blocks[0].preds.empty() && std::find(entry.begin(), entry.end(), i) != entry.end()) return;
      lv.live_in[b].push_back(vs.id(i));
    });
    bl.out[b].forEach([&](uint32_t i) { lv.live_out[b].push_back(vs.id(i)); });
  }
  return lv;
}

}  // namespace rfsim::backend
