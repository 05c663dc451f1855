// Helpers of the register allocator's tests: MFunctions built from PTX text,
// and an allocation checker that shares no code with the allocator.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "backend/mfunction.h"
#include "backend/regalloc.h"
#include "ptx/analysis/cfg.h"
#include "ptx/parser.h"

namespace rfsim::backend::test {

inline const char* const kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

inline void setMbits(ptx::Operand& o, const ptx::Function& fn, unsigned pred_bits = 0) {
  using K = ptx::OperandKind;
  if (o.kind == K::Reg || o.kind == K::Vec || o.kind == K::PredOut || o.kind == K::Addr) {
    for (uint32_t r : o.regs)
      if (r != ptx::kNoReg && r < fn.regs.size()) {
        o.mbits = static_cast<uint8_t>(pred_bits ? pred_bits : machineBits(fn.regs[r].type));
        break;
      }
  }
}

// The PTX function `name` of a module, as an MFunction over its own registers.
inline MFunction fromModule(const ptx::Module& m, uint32_t index) {
  MFunction f;
  f.fn = m.functions[index];
  f.index = index;
  ptx::buildCfg(f.fn);
  for (uint32_t r = 0; r < f.fn.regs.size(); ++r) {
    f.vbits.push_back(machineBits(f.fn.regs[r].type));
    f.origin.push_back(r);
  }
  for (auto& bb : f.fn.blocks)
    for (auto& in : bb.instrs) {
      if (in.guard.kind == ptx::OperandKind::Reg) setMbits(in.guard, f.fn, 1);
      for (unsigned i = 0; i < in.ndst; ++i) setMbits(in.dst[i], f.fn);
      for (unsigned k = 0; k < in.nsrc; ++k) setMbits(in.src[k], f.fn);
    }
  return f;
}

inline MFunction fromPtx(const std::string& body, const std::string& name) {
  const ptx::Module m = ptx::parseString(std::string(kHeader) + body, "test.ptx");
  for (uint32_t i = 0; i < m.functions.size(); ++i)
    if (m.functions[i].name == name) return fromModule(m, i);
  FAIL("no function " << name);
  return {};
}

inline uint32_t regId(const MFunction& f, const std::string& name) {
  for (uint32_t i = 0; i < f.fn.regs.size(); ++i)
    if (f.fn.regs[i].name == name) return i;
  FAIL("no register " << name);
  return 0;
}

inline ptx::Operand physReg(uint32_t r, unsigned mbits = 32) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Reg;
  o.regs[0] = physId(r);
  o.mbits = static_cast<uint8_t>(mbits);
  return o;
}

// Replaces instruction `at` of block `b` (a `mov.u32 %dst, %src` placeholder)
// with a call sequence: mov R4, %src; call (reads R4, writes R4); mov %dst, R4.
inline void insertCall(MFunction& f, uint32_t b, uint32_t at) {
  auto& instrs = f.fn.blocks[b].instrs;
  const ptx::Instr ph = instrs.at(at);
  REQUIRE(ph.op == ptx::Op::Mov);
  ptx::CallInfo ci;
  ci.machine_uses = {physId(4)};
  ci.machine_defs = {physId(4)};
  f.fn.calls.push_back(ci);
  ptx::Instr a = ph, c, r = ph;
  a.dst[0] = physReg(4);
  a.role = ptx::MRole::ArgMove;
  c.op = ptx::Op::Call;
  c.call = static_cast<uint32_t>(f.fn.calls.size() - 1);
  c.loc = ph.loc;
  r.src[0] = physReg(4);
  r.role = ptx::MRole::ArgMove;
  instrs[at] = r;
  instrs.insert(instrs.begin() + at, c);
  instrs.insert(instrs.begin() + at, a);
}

// One 32-bit part of a value: a physical register, or half `h` of a virtual one.
using Item = uint64_t;
inline Item item(uint32_t id, unsigned h) { return (uint64_t(id) << 1) | h; }

struct Access {
  std::vector<std::pair<Item, uint32_t>> uses, defs;  // (item, register)
  bool guarded = false, move = false, call = false, ends = false;
};

// Every item an instruction reads or writes, with the register the allocation
// gives it.
inline Access accessOf(MFunction& f, ptx::Instr& in, const RaResult& res) {
  Access a;
  a.guarded = in.guard.kind == ptx::OperandKind::Reg;
  a.call = in.op == ptx::Op::Call;
  a.ends = !a.guarded && (in.op == ptx::Op::Ret || in.op == ptx::Op::Exit || in.op == ptx::Op::Trap);
  a.move = in.op == ptx::Op::Mov && !a.guarded && in.ndst == 1 && in.nsrc == 1 &&
           in.dst[0].kind == ptx::OperandKind::Reg && in.src[0].kind == ptx::OperandKind::Reg &&
           in.dst[0].mbits == in.src[0].mbits;
  auto add = [&](uint32_t id, unsigned mbits, bool def) {
    auto& into = def ? a.defs : a.uses;
    if (isPhysId(id)) {
      const uint32_t r = physOf(id);
      if (r == ptx::mach::kRZ) return;
      into.push_back({item(id, 0), r});
      if (mbits == 64) into.push_back({item(physId(r + 1), 0), r + 1});
      return;
    }
    REQUIRE(id < res.assign.size());
    const uint32_t r = res.assign[id];
    REQUIRE(r != ptx::kNoReg);
    into.push_back({item(id, 0), r});
    if (mbits == 64) into.push_back({item(id, 1), r + 1});
  };
  forEachSlot(in, f.fn, [&](const Slot& s) { add(*s.reg, s.mbits, s.def); });
  if (in.op == ptx::Op::Ret)
    for (uint32_t r : f.ret_uses) add(r, 32, false);
  return a;
}

// Checks an allocation without the allocator's liveness or graph:
//  * every register is legal: below max_regs, never R1 or RZ, pairs even,
//    predicates in P0..P6;
//  * a forward data flow of what each register holds (the set of items equal
//    to its content; a copy adds its destination to its source's set, a call
//    empties every register it may clobber, a meet intersects) shows that
//    every use reads its own value and that every value live after an
//    instruction (by a liveness recomputed here) is still in its register, so
//    no two live values share a register unless one is a copy of the other.
inline void checkAllocation(MFunction& f, const RaResult& res, const RaOptions& opt) {
  using namespace ptx::mach;
  const uint32_t nv = static_cast<uint32_t>(f.fn.regs.size());
  REQUIRE(res.assign.size() == nv);
  std::vector<bool> used(nv, false);
  for (auto& bb : f.fn.blocks)
    for (auto& in : bb.instrs)
      forEachSlot(in, f.fn, [&](const Slot& s) {
        if (*s.reg != ptx::kNoReg && !isPhysId(*s.reg)) used.at(*s.reg) = true;
      });
  for (uint32_t v = 0; v < nv; ++v) {
    if (!used[v]) continue;
    const uint32_t r = res.assign[v];
    INFO("value " << f.fn.regs[v].name << " in " << r);
    const RegClass c = classOfBits(f.vbits[v]);
    if (c == RegClass::Pred) {
      CHECK(isPred(r));
      continue;
    }
    REQUIRE(r < opt.max_regs);
    CHECK(r != kSP);
    CHECK(r != kRZ);
    if (c == RegClass::Pair) {
      CHECK(r % 2 == 0);
      CHECK(r + 1 < opt.max_regs);
      CHECK(r + 1 != kSP);
    }
  }
  ptx::buildCfg(f.fn);
  const size_t nb = f.fn.blocks.size();
  // Liveness of items, per instruction, by plain sets.
  std::vector<std::vector<Access>> acc(nb);
  for (size_t b = 0; b < nb; ++b)
    for (auto& in : f.fn.blocks[b].instrs) acc[b].push_back(accessOf(f, in, res));
  std::vector<std::set<Item>> live_in(nb);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      std::set<Item> live;
      for (uint32_t s : f.fn.blocks[b].succs) live.insert(live_in[s].begin(), live_in[s].end());
      for (size_t k = acc[b].size(); k-- > 0;) {
        const Access& a = acc[b][k];
        if (a.ends) live.clear();
        if (!a.guarded)
          for (auto& d : a.defs) live.erase(d.first);
        for (auto& u : a.uses) live.insert(u.first);
      }
      if (live != live_in[b]) live_in[b] = live, changed = true;
    }
  }
  // Register contents.
  using State = std::vector<std::set<Item>>;
  State entry(kNumRegIds);
  // At entry each register holds its physical value, or whatever an
  // undefined virtual value would read (kAny).
  const Item kAny = ~uint64_t{0};
  for (uint32_t r = 0; r < kNumRegIds; ++r) entry[r] = {item(physId(r), 0), kAny};
  auto holds = [&](const std::set<Item>& s, Item it) { return s.count(it) || s.count(kAny); };
  std::vector<State> in_state(nb);
  std::vector<bool> reached(nb, false);
  in_state[0] = entry;
  reached[0] = true;
  auto transfer = [&](State& st, const Access& a) {
    if (a.call)
      for (uint32_t r = 0; r < kNumRegIds; ++r)
        if (opt.abi.clobberedByCall(r)) st[r].clear();
    for (size_t i = 0; i < a.defs.size(); ++i) {
      const auto [it, r] = a.defs[i];
      std::set<Item> now{it};
      if (a.move && i < a.uses.size() && st[a.uses[i].second].count(a.uses[i].first)) {
        now = st[a.uses[i].second];
        now.insert(it);
      }
      if (a.guarded && !holds(st[r], it)) now.clear();
      for (auto& s : st) s.erase(it);
      st[r] = now;
    }
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < nb; ++b) {
      if (!reached[b]) continue;
      State st = in_state[b];
      for (const Access& a : acc[b]) transfer(st, a);
      for (uint32_t s : f.fn.blocks[b].succs) {
        if (!reached[s]) {
          in_state[s] = st, reached[s] = true, changed = true;
          continue;
        }
        for (uint32_t r = 0; r < kNumRegIds; ++r) {
          std::set<Item> meet;
          for (Item x : in_state[s][r])
            if (st[r].count(x)) meet.insert(x);
          if (meet != in_state[s][r]) in_state[s][r] = meet, changed = true;
        }
      }
    }
  }
  for (size_t b = 0; b < nb; ++b) {
    if (!reached[b]) continue;
    // Live after each instruction, backward.
    std::vector<std::set<Item>> after(acc[b].size());
    std::set<Item> live;
    for (uint32_t s : f.fn.blocks[b].succs) live.insert(live_in[s].begin(), live_in[s].end());
    for (size_t k = acc[b].size(); k-- > 0;) {
      const Access& a = acc[b][k];
      if (a.ends) live.clear();
      after[k] = live;
      if (!a.guarded)
        for (auto& d : a.defs) live.erase(d.first);
      for (auto& u : a.uses) live.insert(u.first);
    }
    State st = in_state[b];
    for (size_t k = 0; k < acc[b].size(); ++k) {
      const Access& a = acc[b][k];
      for (auto& [it, r] : a.uses) {
        INFO(f.fn.name << " block " << b << " instr " << k << ": use of item " << it << " in register " << r);
        CHECK(holds(st[r], it));
      }
      transfer(st, a);
      // Where each live item sits: its register must still hold it.
      std::map<Item, uint32_t> where;
      for (auto& [it, r] : a.defs) where[it] = r;
      for (auto& [it, r] : a.uses) where[it] = r;
      for (Item it : after[k]) {
        const uint32_t id = static_cast<uint32_t>(it >> 1);
        const uint32_t r = isPhysId(id) ? physOf(id) : res.assign[id] + static_cast<uint32_t>(it & 1);
        INFO(f.fn.name << " block " << b << " instr " << k << ": live item " << it << " in register " << r);
        CHECK(holds(st[r], it));
      }
    }
  }
}

}  // namespace rfsim::backend::test
