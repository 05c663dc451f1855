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
