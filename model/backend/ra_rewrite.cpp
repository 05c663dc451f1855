// The register allocator's code rewrites (regalloc.h): spill code for values
// that did not get a register, and the GPR round trip of predicates that did
// not get one of P0..P6 (ptxas' P2R/R2P).
#include <string>

#include "backend/ra_internal.h"
#include "common/error.h"

namespace rfsim::backend::ra {

namespace {

ptx::Operand stackSlot(uint32_t off) { return stackAddr(physId(ptx::mach::kSP), off); }

ptx::Type slotType(unsigned bits) {
  return bits == 64 ? ptx::Type::B64 : bits == 16 ? ptx::Type::B16 : ptx::Type::B32;
}

// How one instruction touches a rewritten value, and the temporary standing
// in for it there.
struct Touch {
  uint32_t value, temp;
  bool use = false, def = false, guarded_def = false;
};

// Rewrites every slot of `in` whose value has `want[value]` set to a temporary
// made by `make(value)` (one per value and instruction) and lists the touches.
template <class Make>
void touchSlots(MFunction& f, ptx::Instr& in, const std::vector<uint8_t>& want, Make&& make, std::vector<Touch>& out) {
  out.clear();
  forEachSlot(in, f.fn, [&](const Slot& s) {
    const uint32_t v = *s.reg;
    if (v == ptx::kNoReg || isPhysId(v) || v >= want.size() || !want[v]) return;
    Touch* t = nullptr;
    for (Touch& x : out)
      if (x.value == v) t = &x;
    if (!t) {
      out.push_back({v, ptx::kNoReg});
      t = &out.back();
    }
    if (s.def) {
      t->def = true;
      t->guarded_def |= s.guarded;
    } else {
      t->use = true;
    }
  });
  for (Touch& t : out) t.temp = make(t.value);
  forEachSlot(in, f.fn, [&](const Slot& s) {
    for (const Touch& t : out)
      if (*s.reg == t.value) {
        *s.reg = t.temp;
        break;
      }
  });
}

}  // namespace

void spillValues(MFunction& f, const std::vector<uint32_t>& vals, std::vector<uint8_t>& flags, RaResult& res) {
  const uint32_t nv = static_cast<uint32_t>(f.fn.regs.size());
  std::vector<uint8_t> want(nv, 0);
  std::vector<uint32_t> slot(nv, 0);
  for (uint32_t v : vals) {
    const unsigned bits = f.vbits[v];
    const uint32_t size = bits == 64 ? 8 : 4;
    slot[v] = ptx::mach::alignUp(f.spill_bytes, size);
    f.spill_bytes = slot[v] + size;
    f.spilled_bytes = f.spill_bytes;
    want[v] = 1;
  }
  std::vector<Touch> touches;
  for (ptx::BasicBlock& bb : f.fn.blocks) {
    std::vector<ptx::Instr> out;
    out.reserve(bb.instrs.size());
    for (ptx::Instr& in : bb.instrs) {
      touchSlots(f, in, want, [&](uint32_t v) {
        const uint32_t t = f.newVreg(f.fn.regs[v].type, f.vbits[v], v);
        flags.push_back(kNoSpill);
        return t;
      }, touches);
      for (const Touch& t : touches) {
        // A guarded def writes only some lanes: the rest keep the stored value.
        if (!t.use && !t.guarded_def) continue;
        const unsigned bits = f.vbits[t.value];
        ptx::Instr ld;
        ld.op = ptx::Op::Ld;
        ld.space = ptx::Space::Local;
        ld.type = slotType(bits);
        ld.ndst = 1;
        ld.dst[0] = regOperand(t.temp, bits);
        ld.nsrc = 1;
        ld.src[0] = stackSlot(slot[t.value]);
        ld.loc = in.loc;
        ld.role = ptx::MRole::Fill;
        out.push_back(ld);
        ++res.spill_loads;
      }
      out.push_back(in);
      for (const Touch& t : touches) {
        if (!t.def) continue;
        const unsigned bits = f.vbits[t.value];
        ptx::Instr st;
        st.op = ptx::Op::St;
        st.space = ptx::Space::Local;
        st.type = slotType(bits);
        st.nsrc = 2;
        st.src[0] = stackSlot(slot[t.value]);
        st.src[1] = regOperand(t.temp, bits);
        st.loc = in.loc;
        st.role = ptx::MRole::Spill;
        out.push_back(st);
        ++res.spill_stores;
      }
    }
    bb.instrs = std::move(out);
  }
  res.spilled_values += static_cast<uint32_t>(vals.size());
}

// A slot is live from a Spill store of it to the Fill loads that may read
// that store (backward liveness over the CFG: a Fill uses its slot, a Spill
// store, which writes the whole slot, kills it). Two slots interfere when one
// is stored to while the other is live. Slots of one size then share an
// offset greedily, in the order they were made, with the first group none
// of whose slots interferes; the 8-byte groups are laid out first, then the
// 4-byte ones.
void shareSpillSlots(MFunction& f) {
  if (f.spill_bytes == 0) return;
  // The slots, by offset: their index and size.
  std::vector<uint32_t> index_of(f.spill_bytes, UINT32_MAX);
  std::vector<uint32_t> offset, size;
  auto slotOf = [&](ptx::Instr& in) -> ptx::Operand* {
    if (in.role != ptx::MRole::Spill && in.role != ptx::MRole::Fill) return nullptr;
    return &in.src[0];
  };
  for (ptx::BasicBlock& bb : f.fn.blocks)
    for (ptx::Instr& in : bb.instrs)
      if (ptx::Operand* o = slotOf(in)) {
        const uint32_t off = static_cast<uint32_t>(o->imm);
        const uint32_t bytes = in.type == ptx::Type::B64 ? 8 : 4;
        if (off >= f.spill_bytes) throw Error(f.fn.name + ": a spill slot outside the spill area");
        if (index_of[off] == UINT32_MAX) {
          index_of[off] = static_cast<uint32_t>(offset.size());
          offset.push_back(off);
          size.push_back(bytes);
        } else if (size[index_of[off]] != bytes) {
          throw Error(f.fn.name + ": spill slot " + std::to_string(off) + " accessed with two widths");
        }
      }
  const uint32_t n = static_cast<uint32_t>(offset.size());
  if (n < 2) return;
  auto slot = [&](ptx::Instr& in) { return index_of[static_cast<uint32_t>(slotOf(in)->imm)]; };
  // Liveness of the slots.
  const size_t nb = f.fn.blocks.size();
  std::vector<BitSet> live_in(nb, BitSet(n));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      BitSet live(n);
      for (uint32_t s : f.fn.blocks[b].succs) live.orWith(live_in[s]);
      auto& instrs = f.fn.blocks[b].instrs;
      for (size_t i = instrs.size(); i-- > 0;) {
        if (!slotOf(instrs[i])) continue;
        if (instrs[i].role == ptx::MRole::Spill) live.reset(slot(instrs[i]));
        else live.set(slot(instrs[i]));
      }
      if (!(live == live_in[b])) {
        live_in[b] = live;
        changed = true;
      }
    }
  }
  // Interference: a store against every other slot live after it.
  std::vector<BitSet> adj(n, BitSet(n));
  for (size_t b = 0; b < nb; ++b) {
    BitSet live(n);
    for (uint32_t s : f.fn.blocks[b].succs) live.orWith(live_in[s]);
    auto& instrs = f.fn.blocks[b].instrs;
    for (size_t i = instrs.size(); i-- > 0;) {
      if (!slotOf(instrs[i])) continue;
      const uint32_t k = slot(instrs[i]);
      if (instrs[i].role == ptx::MRole::Spill) {
        live.reset(k);
        live.forEach([&](uint32_t m) {
          adj[k].set(m);
          adj[m].set(k);
        });
      } else {
        live.set(k);
      }
    }
  }
  // Groups: each slot joins the first group of its size it interferes with
  // no member of.
  std::vector<std::vector<uint32_t>> groups;
  std::vector<uint32_t> group_of(n);
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t g = 0;
    for (; g < groups.size(); ++g) {
      if (size[groups[g][0]] != size[k]) continue;
      bool clash = false;
      for (uint32_t m : groups[g]) clash = clash || adj[k].test(m);
      if (!clash) break;
    }
    if (g == groups.size()) groups.emplace_back();
    groups[g].push_back(k);
    group_of[k] = g;
  }
  std::vector<uint32_t> group_off(groups.size());
  uint32_t end = 0;
  for (uint32_t bytes : {8u, 4u})
    for (size_t g = 0; g < groups.size(); ++g)
      if (size[groups[g][0]] == bytes) {
        group_off[g] = ptx::mach::alignUp(end, bytes);
        end = group_off[g] + bytes;
      }
  for (ptx::BasicBlock& bb : f.fn.blocks)
    for (ptx::Instr& in : bb.instrs)
      if (ptx::Operand* o = slotOf(in)) o->imm = group_off[group_of[slot(in)]];
  f.spill_bytes = end;
}

void predsToGpr(MFunction& f, const std::vector<uint32_t>& vals, std::vector<uint8_t>& flags, RaResult& res) {
  const uint32_t nv = static_cast<uint32_t>(f.fn.regs.size());
  std::vector<uint8_t> want(nv, 0);
  std::vector<uint32_t> gpr(nv, ptx::kNoReg);
  for (uint32_t p : vals) {
    want[p] = 1;
    gpr[p] = f.newVreg(ptx::Type::U32, 32, p);
    flags.push_back(0);
  }
  std::vector<Touch> touches;
  for (ptx::BasicBlock& bb : f.fn.blocks) {
    std::vector<ptx::Instr> out;
    out.reserve(bb.instrs.size());
    for (ptx::Instr& in : bb.instrs) {
      touchSlots(f, in, want, [&](uint32_t p) {
        const uint32_t t = f.newVreg(ptx::Type::Pred, 1, p);
        flags.push_back(kNoSpill | kNoConvert);
        return t;
      }, touches);
      for (const Touch& t : touches) {
        if (!t.use && !t.guarded_def) continue;
        ptx::Instr setp;  // setp.ne.u32 t, g, 0
        setp.op = ptx::Op::Setp;
        setp.type = ptx::Type::U32;
        setp.mods.cmp = ptx::Cmp::Ne;
        setp.ndst = 1;
        setp.dst[0] = regOperand(t.temp, 1);
        setp.nsrc = 2;
        setp.src[0] = regOperand(gpr[t.value], 32);
        setp.src[1] = immOperand(0);
        setp.loc = in.loc;
        out.push_back(setp);
      }
      out.push_back(in);
      for (const Touch& t : touches) {
        if (!t.def) continue;
        ptx::Instr selp;  // selp.u32 g, 1, 0, t
        selp.op = ptx::Op::Selp;
        selp.type = ptx::Type::U32;
        selp.ndst = 1;
        selp.dst[0] = regOperand(gpr[t.value], 32);
        selp.nsrc = 3;
        selp.src[0] = immOperand(1);
        selp.src[1] = immOperand(0);
        selp.src[2] = regOperand(t.temp, 1);
        selp.loc = in.loc;
        out.push_back(selp);
      }
    }
    bb.instrs = std::move(out);
  }
  res.preds_to_gpr += static_cast<uint32_t>(vals.size());
}

}  // namespace rfsim::backend::ra
