// Frame layout, prologue/epilogue and the rewrite to physical registers (frame.h).
#include "backend/frame.h"

#include <algorithm>

#include <fmt/format.h>

#include "backend/lower.h"
#include "common/error.h"
#include "ptx/analysis/cfg.h"

namespace rfsim::backend {

using namespace ptx;
namespace mach = ptx::mach;

namespace {

Operand reg(uint32_t r, unsigned bits) { return regOperand(r, bits); }
Operand imm(int64_t v) { return immOperand(v); }
Operand spAddr(int64_t off) { return stackAddr(mach::kSP, off); }

Instr spAdjust(Op op, uint32_t bytes, const Instr& at) {
  Instr in;
  in.op = op;
  in.type = Type::U32;
  in.role = MRole::StackAdj;
  in.loc = at.loc;
  in.ndst = 1;
  in.dst[0] = reg(mach::kSP, 32);
  in.nsrc = 2;
  in.src[0] = reg(mach::kSP, 32);
  in.src[1] = imm(bytes);
  return in;
}

Instr saveRestore(bool save, uint32_t r, int64_t off, const Instr& at) {
  Instr in;
  in.op = save ? Op::St : Op::Ld;
  in.type = Type::B32;
  in.space = Space::Local;
  in.role = save ? MRole::Save : MRole::Restore;
  in.loc = at.loc;
  if (save) {
    in.nsrc = 2;
    in.src[0] = spAddr(off);
    in.src[1] = reg(r, 32);
  } else {
    in.ndst = 1;
    in.dst[0] = reg(r, 32);
    in.nsrc = 1;
    in.src[0] = spAddr(off);
  }
  return in;
}

unsigned accessBytes(const Instr& in) { return typeBits(in.type) / 8 * std::max<unsigned>(1, in.mods.vec); }

// Per instruction: bit k set when src k (bit 5: the guard) reads values none
// of which is live after it.
void markDeadOperands(MFunction& mf) {
  const Liveness lv = computeLiveness(mf);
  const uint32_t nv = static_cast<uint32_t>(mf.fn.regs.size());
  auto key = [&](uint32_t v) { return isPhysId(v) ? nv + physOf(v) : v; };
  std::vector<char> live(nv + mach::kNumRegIds, 0);
  for (size_t b = 0; b < mf.fn.blocks.size(); ++b) {
    std::fill(live.begin(), live.end(), 0);
    for (uint32_t v : lv.live_out[b]) live[key(v)] = 1;
    auto& instrs = mf.fn.blocks[b].instrs;
    for (size_t i = instrs.size(); i-- > 0;) {
      Instr& in = instrs[i];
      if (in.op == Op::Ret)
        for (uint32_t v : mf.ret_uses) live[key(v)] = 1;
      uint8_t dead = 0x3f;
      std::vector<uint32_t> uses;
      forEachSlot(in, mf.fn, [&](const Slot& s) {
        if (s.def) return;
        if (s.operand >= 0 && s.operand < 5 && live[key(*s.reg)]) dead &= static_cast<uint8_t>(~(1u << s.operand));
        if (s.operand == -1 && live[key(*s.reg)]) dead &= static_cast<uint8_t>(~(1u << 5));
        uses.push_back(*s.reg);
      });
      uint8_t present = in.guard.kind == OperandKind::Reg ? 0x20 : 0;
      for (unsigned k = 0; k < in.nsrc; ++k) {
        const auto kind = in.src[k].kind;
        if (kind == OperandKind::Reg || kind == OperandKind::Vec ||
            (kind == OperandKind::Addr && in.src[k].regs[0] != kNoReg))
          present |= static_cast<uint8_t>(1u << k);
      }
      in.dead = dead & present;
      forEachSlot(in, mf.fn, [&](const Slot& s) {
        if (s.def && !s.guarded) live[key(*s.reg)] = 0;
      });
      for (uint32_t v : uses) live[key(v)] = 1;
    }
  }
}

}  // namespace

void countRoles(const ptx::Function& fn, FinishedFunction& out) {
  out.spill_stores = out.spill_loads = out.saves = out.restores = out.arg_moves = 0;
  out.spill_store_bytes = out.spill_load_bytes = 0;
  for (const auto& bb : fn.blocks)
    for (const Instr& in : bb.instrs) {
      switch (in.role) {
        case MRole::Spill: out.spill_stores++; out.spill_store_bytes += accessBytes(in); break;
        case MRole::Fill: out.spill_loads++; out.spill_load_bytes += accessBytes(in); break;
        case MRole::Save: out.saves++; out.spill_store_bytes += accessBytes(in); break;
        case MRole::Restore: out.restores++; out.spill_load_bytes += accessBytes(in); break;
        case MRole::ArgMove: out.arg_moves++; break;
        default: break;
      }
    }
}

FinishedFunction finishFunction(MFunction& mf, const RaResult& ra, const mach::Abi& abi) {
  FinishedFunction out;
  Function& fn = mf.fn;
  const uint32_t nv = static_cast<uint32_t>(fn.regs.size());
  markDeadOperands(mf);
  out.value_names.resize(nv);
  for (uint32_t v = 0; v < nv; ++v) out.value_names[v] = fn.regs[mf.origin[v]].name;

  // Rewrite values to registers, recording what each slot held.
  std::vector<bool> used(mach::kNumGpr, false);
  out.values.resize(fn.blocks.size());
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    for (Instr& in : fn.blocks[b].instrs) {
      std::vector<uint32_t> vals;
      forEachSlot(in, fn, [&](const Slot& s) {
        const uint32_t v = *s.reg;
        uint32_t r;
        if (isPhysId(v)) {
          r = physOf(v);
          vals.push_back(r == mach::kSP ? kNoReg : v);
        } else {
          if (v >= nv || v >= ra.assign.size() || ra.assign[v] == kNoReg)
            throw Error(fmt::format("{}: internal: value {} has no register", fn.name, v));
          r = ra.assign[v];
          vals.push_back(mf.origin[v]);
        }
        *s.reg = r;
        if (mach::isGpr(r) && r != mach::kRZ) {
          used[r] = true;
          if (s.mbits == 64 && r + 1 < mach::kNumGpr) used[r + 1] = true;
        }
      });
      out.values[b].push_back(std::move(vals));
    }
  }
  for (uint32_t& r : mf.entry_defs) r = physOf(r);
  for (uint32_t& r : mf.ret_uses) r = physOf(r);

  // Callee-saved registers it must preserve (called functions only), and the
  // return-address pair when it makes calls (machine.h: every call changes it).
  const bool calls = !fn.calls.empty();
  if (!fn.is_entry)
    for (uint32_t r = 0; r < mach::kNumGpr; ++r)
      if ((used[r] && abi.calleeSaved(r)) || (calls && (r == mach::kRetAddr || r == mach::kRetAddr + 1)))
        out.callee_saved.push_back(r);
  if (!fn.is_entry && calls)
    for (uint32_t k = 0; k < 2; ++k) {
      mf.entry_defs.push_back(mach::kRetAddr + k);
      mf.ret_uses.push_back(mach::kRetAddr + k);
    }

  // Frame layout.
  const uint32_t spill_base = mf.out_args_bytes + mf.locals_bytes;
  const uint32_t save_base = mach::alignUp(spill_base + mf.spill_bytes, 4);
  const uint32_t frame = mach::alignUp(save_base + 4 * static_cast<uint32_t>(out.callee_saved.size()),
                                       std::max<uint32_t>(8, mf.stack_align));
  out.frame_bytes = frame;
  for (auto& bb : fn.blocks)
    for (Instr& in : bb.instrs) {
      for (unsigned k = 0; k < in.nsrc; ++k) {
        Operand& o = in.src[k];
        if (o.kind != OperandKind::Addr) continue;
        if (in.role == MRole::Spill || in.role == MRole::Fill) o.imm += spill_base;
        if (in.role == MRole::ArgStack && o.imm >= kIncomingBias / 2) o.imm = o.imm - kIncomingBias + frame;
      }
    }

  // Prologue and epilogues, with no expectations for the checker.
  auto noValues = [&](Instr& in) {
    std::vector<uint32_t> v;
    forEachSlot(in, fn, [&](const Slot&) { v.push_back(kNoReg); });
    return v;
  };
  if (!fn.blocks.empty() && frame > 0) {
    BasicBlock& bb = fn.blocks[0];
    const Instr at = bb.instrs.empty() ? Instr{} : bb.instrs[0];
    std::vector<Instr> pro;
    pro.push_back(spAdjust(Op::Sub, frame, at));
    for (size_t i = 0; i < out.callee_saved.size(); ++i)
      pro.push_back(saveRestore(true, out.callee_saved[i], save_base + 4 * i, at));
    std::vector<std::vector<uint32_t>> pv;
    for (Instr& in : pro) pv.push_back(noValues(in));
    bb.instrs.insert(bb.instrs.begin(), pro.begin(), pro.end());
    out.values[0].insert(out.values[0].begin(), pv.begin(), pv.end());
  }
  if (!fn.is_entry && frame > 0) {
    for (size_t b = 0; b < fn.blocks.size(); ++b) {
      auto& instrs = fn.blocks[b].instrs;
      auto& vals = out.values[b];
      for (size_t i = 0; i < instrs.size(); ++i) {
        if (instrs[i].op != Op::Ret) continue;
        std::vector<Instr> epi;
        for (size_t k = 0; k < out.callee_saved.size(); ++k)
          epi.push_back(saveRestore(false, out.callee_saved[k], save_base + 4 * k, instrs[i]));
        epi.push_back(spAdjust(Op::Add, frame, instrs[i]));
        for (Instr& e : epi) e.guard = instrs[i].guard;
        std::vector<std::vector<uint32_t>> ev;
        for (Instr& e : epi) ev.push_back(noValues(e));
        instrs.insert(instrs.begin() + static_cast<std::ptrdiff_t>(i), epi.begin(), epi.end());
        vals.insert(vals.begin() + static_cast<std::ptrdiff_t>(i), ev.begin(), ev.end());
        i += epi.size();
      }
    }
  }

  countRoles(fn, out);

  // The machine register table.
  uint32_t top = mach::kSP;
  for (uint32_t r = 0; r < mach::kRZ; ++r)
    if (used[r]) top = std::max(top, r);
  fn.regs = machineRegisterTable();
  fn.machine_args = mf.entry_defs;
  fn.machine_rets = mf.ret_uses;
  fn.machine_regs = top + 1;
  fn.machine_frame = frame;
  buildCfg(fn);
  out.fn = std::move(fn);
  return out;
}

}  // namespace rfsim::backend
