// R2D2's transformation (transform.h): Algorithm 1 on the PTX IR.
#include "mech/r2d2/transform.h"

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "common/error.h"
#include "mech/r2d2/multiwrite.h"
#include "mech/r2d2/transform_util.h"
#include "ptx/analysis/cfg.h"
#include "ptx/isa_ext.h"

namespace rfsim::mech::r2d2 {

using ptx::Instr;
using ptx::Op;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;

namespace {

using namespace detail;

class Transformer {
 public:
  Transformer(ptx::Module& m, ptx::Function& fn) : m_(m), fn_(fn) {}

  KernelPlan run() {
    plan_.kernel = fn_.name;
    ptx::buildCfg(fn_);
    const Linearity L = analyzeLinearity(m_, fn_);
    plan_.symbols = L.symbols;
    const uint32_t nregs = static_cast<uint32_t>(fn_.regs.size());
    loc_ = fn_.blocks.empty() || fn_.blocks[0].instrs.empty() ? ptx::SrcLoc{} : fn_.blocks[0].instrs[0].loc;

    // Where each single-write register is defined, and which instructions
    // are linear definitions.
    std::map<std::pair<uint32_t, uint32_t>, const Definition*> def_at;
    std::vector<const Definition*> def_of(nregs, nullptr);
    for (const Definition& d : L.defs) {
      def_at[{d.block, d.index}] = &d;
      if (d.kind == DefKind::Single) def_of[d.reg] = &d;
    }

    // Algorithm 1's linearRegs: the linear values non-linear code reads, each
    // operand slot that reads one (the analysis resolved registers written
    // more than once where a single definition reaches the read).
    std::vector<Use> uses;
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> seen;
    for (const Materialised& mt : L.materialised) {
      if (def_at.count({mt.block, mt.index}) || !seen.insert({mt.block, mt.index, mt.reg}).second) continue;
      if (mt.vec.scalar()) continue;  // choice: uniform values keep their code (the scalar path)
      const uint32_t bits = ptx::typeBits(fn_.regs[mt.reg].type);
      if (bits != 32 && bits != 64) continue;
      Instr& in = fn_.blocks[mt.block].instrs[mt.index];
      forEachRead(in, [&](Operand& o, int k, int s) {
        if (s >= 0 && o.regs[k] == mt.reg)
          uses.push_back({mt.block, mt.index, s, k, o.kind == OperandKind::Addr, mt.reg, bits, mt.vec});
      });
    }
    // Algorithm 1's multi-write registers (multiwrite.h): the reads of a loop
    // update's register become lr + uniform offset; a divergent definition a
    // move from its own linear register (a placeholder until it has one).
    const MultiWrite mw = planMultiWrite(fn_, L);
    std::set<uint32_t> loop_regs;
    for (const LoopPlan& lp : mw.loops)
      for (const LoopPlan::Read& rd : lp.reads) loop_regs.insert(rd.reg);
    uses.erase(std::remove_if(uses.begin(), uses.end(), [&](const Use& u) { return loop_regs.count(u.reg) > 0; }),
               uses.end());
    std::vector<uint32_t> uniform;
    for (size_t l = 0; l < mw.loops.size(); ++l) {
      const LoopPlan& lp = mw.loops[l];
      fn_.regs.push_back({fmt::format("%r2d2_u{}", l), lp.bits == 64 ? Type::U64 : Type::U32, 0});
      uniform.push_back(static_cast<uint32_t>(fn_.regs.size() - 1));
      for (const LoopPlan::Read& rd : lp.reads) {
        Use u{rd.block, rd.index, 0, 0, true, rd.reg, lp.bits, rd.vec};
        u.uniform = uniform.back();
        u.loop = static_cast<int>(l);
        uses.push_back(u);
      }
    }
    std::vector<Instr> original;  // the divergent definitions, for those that keep their code
    for (size_t k = 0; k < mw.divergent.size(); ++k) {
      const Definition& d = *mw.divergent[k].def;
      Instr& in = fn_.blocks[d.block].instrs[d.index];
      original.push_back(in);
      const uint32_t ph = newReg(fn_.regs[d.reg].type);
      in = make(Op::Mov, mw.divergent[k].bits == 64 ? Type::B64 : Type::B32, d.reg, {regOp(ph)}, in.loc);
      Use u{d.block, d.index, 0, 0, false, ph, mw.divergent[k].bits, d.vec};
      u.divergent = static_cast<int>(k);
      uses.push_back(u);
    }
    if (uses.empty()) return fail("no linear value with an index part is read by non-linear code");

    // Grouping (Fig. 8): the same width and index parts share a linear
    // register; the most used first, at most 16 (the register table).
    std::vector<Group> groups;
    for (size_t u = 0; u < uses.size(); ++u) {
      const std::string key = groupKey(uses[u].vec, uses[u].bits, uses[u].uniform != ptx::kNoReg, L.symbols);
      size_t g = 0;
      while (g < groups.size() && groups[g].key != key) ++g;
      if (g == groups.size()) groups.push_back({key, uses[u].vec, uses[u].bits, {}});
      groups[g].uses.push_back(u);
    }
    std::vector<size_t> order(groups.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return groups[a].uses.size() > groups[b].uses.size(); });
    if (order.size() > kMaxLinear) order.resize(kMaxLinear);
    // As many as the coefficient registers hold.
    while (!order.empty() && assign(groups, order, uses) > kMaxCoefficients) order.pop_back();
    if (order.empty()) {
      for (size_t k = 0; k < mw.divergent.size(); ++k)
        fn_.blocks[mw.divergent[k].def->block].instrs[mw.divergent[k].def->index] = original[k];
      return fail("the linear values need more coefficient registers than the class has");
    }
    // A loop whose reads did not all get a linear register keeps its code.
    std::vector<bool> loop_ok(mw.loops.size(), true);
    for (const Use& u : uses)
      if (u.loop >= 0 && (u.lr < 0 || u.coef >= 0)) loop_ok[static_cast<size_t>(u.loop)] = false;
    for (Use& u : uses)
      if (u.loop >= 0 && !loop_ok[static_cast<size_t>(u.loop)]) u.lr = -1, u.coef = -1, u.fold = 0;

    // Linear registers, thread-index registers (distinct thread parts).
    for (size_t k = 0; k < order.size(); ++k) {
      const Group& g = groups[order[k]];
      uint32_t tr = 0;
      while (tr < plan_.trs.size() && !(plan_.trs[tr] == threadPart(g.vec))) ++tr;
      if (tr == plan_.trs.size()) plan_.trs.push_back(threadPart(g.vec));
      plan_.lrs.push_back({g.vec, tr, g.bits, static_cast<uint32_t>(g.uses.size())});
    }

    // The uses read their linear register: an integer difference of the
    // constant goes into the memory operand's offset (Fig. 7's +8), any other
    // difference is a coefficient register the address adder adds (Fig. 8's
    // lr + cr; fields r2d2.cr and r2d2.crk of the instruction).
    const ptx::ControlField cr_field = ptx::registerControlField("r2d2.cr", 7);
    const ptx::ControlField crk_field = ptx::registerControlField("r2d2.crk", 4);
    std::vector<uint32_t> lr_reg(plan_.lrs.size());
    for (size_t k = 0; k < plan_.lrs.size(); ++k)
      lr_reg[k] = pinned(fmt::format("%r2d2_lr{}", k), plan_.lrs[k].bits == 64 ? Type::U64 : Type::U32, "r2d2.lr",
                         2 * static_cast<uint32_t>(k));
    for (size_t u = 0; u < uses.size(); ++u) {
      const Use& us = uses[u];
      Instr& in = fn_.blocks[us.block].instrs[us.index];
      if (us.lr < 0) {
        if (us.divergent >= 0) in = original[static_cast<size_t>(us.divergent)];
        else ++plan_.uses_left;
        continue;
      }
      Operand& o = in.src[us.src];
      o.regs[us.elem] = lr_reg[static_cast<size_t>(us.lr)];
      if (us.uniform != ptx::kNoReg) {
        // The address adder adds the uniform offset (lr + uniform).
        in.mods.uaddr = true;
        in.src[in.nsrc++] = regOp(us.uniform);
        ++plan_.uniform_uses;
      }
      plan_.divergent_moves += us.divergent >= 0;
      if (us.fold) o.imm = static_cast<int64_t>(static_cast<uint64_t>(o.imm) + static_cast<uint64_t>(us.fold));
      if (us.coef >= 0) {
        cr_field.set(in, static_cast<uint32_t>(us.coef) + 1);
        crk_field.set(in, static_cast<uint32_t>(us.lr));
        ++plan_.uses_with_coefficient;
      }
      ++plan_.uses_replaced;
    }

    // The loops that advance their uniform offset now (their start values'
    // code is read by nothing then).
    for (size_t l = 0; l < mw.loops.size(); ++l) {
      if (!loop_ok[l]) continue;
      rewriteLoop(fn_, mw.loops[l], uniform[l]);
      ++plan_.loops;
    }

    // Which linear definitions go: the single-write ones no kept instruction
    // reads (choice: multi-write registers keep their code, and so does
    // everything they read).
    std::set<std::pair<uint32_t, uint32_t>> removed;
    for (const Definition& d : L.defs)
      if (d.kind == DefKind::Single) removed.insert({d.block, d.index});
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t b = 0; b < fn_.blocks.size(); ++b)
        for (uint32_t i = 0; i < fn_.blocks[b].instrs.size(); ++i) {
          if (removed.count({b, i})) continue;
          forEachRead(fn_.blocks[b].instrs[i], [&](Operand& o, int k, int) {
            const uint32_t r = o.regs[k];
            if (r < nregs && def_of[r] && removed.erase({def_of[r]->block, def_of[r]->index})) changed = true;
          });
        }
    }
    plan_.kept_linear = static_cast<uint32_t>(L.linear_instructions - removed.size());
    // The adds t = r + x of the loops (multiwrite.h), read by nothing now.
    for (size_t l = 0; l < mw.loops.size(); ++l)
      if (loop_ok[l])
        for (const InstrAt& at : mw.loops[l].derived) removed.insert(at);
    plan_.removed = static_cast<uint32_t>(removed.size());

    // Range checks: 32-bit values the removed code widened (the linear
    // register computes them exactly in 64 bits), and the thread-index parts
    // (32-bit registers).
    std::vector<std::pair<uint32_t, uint32_t>> computed;  // definitions the linear registers compute now
    for (const auto& at : removed)
      if (def_at.count(at)) computed.push_back(at);
    for (size_t l = 0; l < mw.loops.size(); ++l)
      if (loop_ok[l]) computed.push_back({mw.loops[l].init->block, mw.loops[l].init->index});
    for (const Use& u : uses)
      if (u.divergent >= 0 && u.lr >= 0) computed.push_back({u.block, u.index});
    for (const auto& [b, i] : computed)
      for (const auto& [v, sgn] : def_at.at({b, i})->widened) {
        if (v.scalar() && v.e[kC].constant()) continue;
        plan_.checks.push_back({v, sgn, fmt::format("{} at line {}", ptx::opName(fn_.blocks[b].instrs[i].op),
                                                    fn_.blocks[b].instrs[i].loc.line)});
      }
    for (size_t t = 0; t < plan_.trs.size(); ++t)
      plan_.checks.push_back({plan_.trs[t], true, fmt::format("thread-index register {}", t)});

    for (uint32_t b = 0; b < fn_.blocks.size(); ++b) {
      auto& v = fn_.blocks[b].instrs;
      std::vector<Instr> kept;
      for (uint32_t i = 0; i < v.size(); ++i)
        if (!removed.count({b, i})) kept.push_back(v[i]);
      v = std::move(kept);
      plan_.body_instructions += static_cast<uint32_t>(v.size());
    }

    emitBlocks();
    plan_.transformed = true;
    return plan_;
  }

 private:
  KernelPlan fail(const std::string& why) {
    plan_.transformed = false;
    plan_.reason = why;
    return plan_;
  }

  uint32_t newReg(Type t) {
    fn_.regs.push_back({fmt::format("%r2d2_t{}", fn_.regs.size()), t, 0});
    return static_cast<uint32_t>(fn_.regs.size() - 1);
  }
  uint32_t pinned(const std::string& name, Type t, const char* cls, uint32_t n) {
    fn_.regs.push_back({name, t, ptx::extReg(cls, n)});
    return static_cast<uint32_t>(fn_.regs.size() - 1);
  }

  static CoefVec threadPart(const CoefVec& v) {
    CoefVec t;
    for (int e = kTx; e <= kTz; ++e) t.e[e] = v.e[e];
    return t;
  }

  // Gives the groups in `order` linear registers 0, 1, ... and each use its
  // register, offset fold or added coefficient (an instruction adds at most
  // one coefficient, to one linear register: a use that would need a second
  // keeps its code), and lays out the coefficients (section 3.2, Fig. 9):
  // the block-index block reads 16 consecutive coefficients as a vector per
  // element it needs (the constant, then each block index used), so vector
  // V is coefficients 16V .. 16V+15, lane K that of linear register K; then
  // the thread-index coefficients that are not plain integers, then the
  // distinct added ones. Returns how many coefficients that takes.
  uint32_t assign(const std::vector<Group>& groups, const std::vector<size_t>& order, std::vector<Use>& uses) {
    coefs_.clear();
    vec_elems_.assign(1, kC);
    for (Elem e : {kBx, kBy, kBz})
      for (size_t g : order)
        if (!groups[g].vec.e[e].isZero()) {
          vec_elems_.push_back(e);
          break;
        }
    const uint32_t nlr = static_cast<uint32_t>(order.size());
    for (size_t v = 0; v < vec_elems_.size(); ++v)
      for (uint32_t k = 0; k < nlr; ++k)
        coefs_.push_back({uint32_t(16 * v + k), groups[order[k]].vec.e[vec_elems_[v]]});
    uint32_t next = static_cast<uint32_t>(vec_elems_.size()) * 16;
    cr_lo_.clear();
    std::vector<CoefVec> trs;
    for (size_t g : order) {
      const CoefVec t = threadPart(groups[g].vec);
      if (std::find(trs.begin(), trs.end(), t) != trs.end()) continue;
      for (int d = 0; d < 3; ++d)
        if (!t.e[kTx + d].constant()) {
          cr_lo_[{trs.size(), d}] = next;
          coefs_.push_back({next++, t.e[kTx + d]});
        }
      trs.push_back(t);
    }
    std::map<std::pair<uint32_t, uint32_t>, std::pair<int, int>> added;  // instruction -> (lr, coefficient)
    for (Use& u : uses) {
      u.lr = -1, u.coef = -1, u.fold = 0;
    }
    for (uint32_t k = 0; k < nlr; ++k)
      for (size_t ui : groups[order[k]].uses) {
        Use& u = uses[ui];
        const Poly delta = u.vec.e[kC] - groups[order[k]].vec.e[kC];
        if (delta.isZero()) {
          u.lr = static_cast<int>(k);
        } else if (delta.constant() && u.address) {
          u.lr = static_cast<int>(k);
          u.fold = *delta.constant();
        } else if (u.uniform != ptx::kNoReg) {
          continue;  // lr + uniform: no coefficient as well
        } else {
          int j = -1;
          for (const auto& [idx, p] : coefs_)
            if (idx >= static_cast<uint32_t>(vec_elems_.size()) * 16 && p == delta) j = int(idx);
          auto it = added.find({u.block, u.index});
          if (it != added.end() && (it->second.first != int(k) || (j >= 0 && it->second.second != j))) continue;
          if (it != added.end()) j = it->second.second;
          if (j < 0) {
            j = static_cast<int>(next++);
            coefs_.push_back({uint32_t(j), delta});
          }
          added[{u.block, u.index}] = {int(k), j};
          u.lr = static_cast<int>(k);
          u.coef = j;
        }
      }
    return next;
  }

  std::vector<Instr> trBlock() {
    std::vector<Instr> out;
    uint32_t tid[3] = {ptx::kNoReg, ptx::kNoReg, ptx::kNoReg};
    for (const CoefVec& t : plan_.trs)
      for (int d = 0; d < 3; ++d)
        if (!t.e[kTx + d].isZero() && tid[d] == ptx::kNoReg) {
          tid[d] = newReg(Type::U32);
          out.push_back(make(Op::Mov, Type::U32, tid[d], {sregOp(ptx::SReg::Tid, uint8_t(d))}, loc_));
        }
    for (size_t t = 0; t < plan_.trs.size(); ++t) {
      const uint32_t tr = tr_reg_[t];
      bool first = true;
      for (int d = 0; d < 3; ++d) {
        const Poly& p = plan_.trs[t].e[kTx + d];
        if (p.isZero()) continue;
        // mad.tr: the coefficient register read as a scalar (its low word: a
        // thread-index register holds 32 bits).
        const auto c = p.constant();
        const Operand coef = c ? immOp(static_cast<int32_t>(*c)) : regOp(cr_lo_reg_.at({t, d}));
        const bool one = c && static_cast<int32_t>(*c) == 1;
        if (first && one)
          out.push_back(make(Op::Mov, Type::B32, tr, {regOp(tid[d])}, loc_));
        else if (first)
          out.push_back(make(Op::Mul, Type::S32, tr, {regOp(tid[d]), coef}, loc_));
        else if (one)
          out.push_back(make(Op::Add, Type::S32, tr, {regOp(tid[d]), regOp(tr)}, loc_));
        else
          out.push_back(make(Op::Mad, Type::S32, tr, {regOp(tid[d]), coef, regOp(tr)}, loc_));
        first = false;
      }
      if (first) out.push_back(make(Op::Mov, Type::B32, tr, {immOp(0)}, loc_));
    }
    return out;
  }

  void emitBlocks() {
    const uint16_t end_id = extId("r2d2.end"), wait_id = extId("r2d2.wait");
    auto marker = [&](uint16_t id, std::vector<uint64_t> imms) {
      Instr in = ptx::makeExtInstr(id, imms);
      in.loc = loc_;
      return in;
    };
    uint32_t ncoef = 0;
    for (const auto& [j, p] : coefs_) ncoef = std::max(ncoef, j + 1);
    plan_.coefficients = ncoef;
    cr_lo_reg_.clear();
    for (const auto& [td, j] : cr_lo_)
      cr_lo_reg_[td] = pinned(fmt::format("%r2d2_crlo{}", j), Type::U32, "r2d2.cr", 2 * j);
    tr_reg_.clear();
    for (size_t t = 0; t < plan_.trs.size(); ++t)
      tr_reg_.push_back(pinned(fmt::format("%r2d2_tr{}", t), Type::U32, "r2d2.tr", static_cast<uint32_t>(t)));

    // One basic block per coefficient (the pre-allocation scheduler works
    // within a block, so it cannot hoist every product to the top and raise
    // the kernel's register count); a symbol is read again in each (a
    // parameter is a constant-bank operand, free).
    std::vector<std::vector<Instr>> coef_blocks;
    std::vector<Instr> coef_code;
    std::map<uint32_t, uint32_t> sym_reg;  // launch symbol -> its 64-bit value, in this block
    std::map<std::vector<uint32_t>, uint32_t> mono_reg;  // product of symbols -> its value, in this block
    auto symbol = [&](uint32_t id) {
      auto it = sym_reg.find(id);
      if (it != sym_reg.end()) return it->second;
      const LaunchSymbol& s = plan_.symbols.at(id);
      const uint32_t r64 = newReg(Type::S64);
      switch (s.kind) {
        case LaunchSymbol::Kind::Param: {
          // As the kernel read it: the same type, widened as its sign says.
          Instr ld;
          ld.op = Op::Ld;
          ld.space = ptx::Space::Param;
          ld.type = s.type;
          ld.ndst = 1;
          ld.nsrc = 1;
          ld.src[0].kind = OperandKind::Addr;
          ld.src[0].sym = fn_.params.at(s.index);
          ld.src[0].imm = static_cast<int64_t>(s.offset);
          ld.loc = loc_;
          if (ptx::typeBits(s.type) == 64) {
            ld.dst[0] = regOp(r64);
            coef_code.push_back(ld);
          } else {
            const uint32_t r = newReg(s.type);
            ld.dst[0] = regOp(r);
            coef_code.push_back(ld);
            Instr cv = make(Op::Cvt, ptx::isSigned(s.type) ? Type::S64 : Type::U64, r64, {regOp(r)}, loc_);
            cv.type2 = s.type;
            coef_code.push_back(cv);
          }
          break;
        }
        case LaunchSymbol::Kind::Ntid:
        case LaunchSymbol::Kind::Nctaid: {
          const uint32_t r = newReg(Type::U32);
          coef_code.push_back(make(Op::Mov, Type::U32, r,
                                   {sregOp(s.kind == LaunchSymbol::Kind::Ntid ? ptx::SReg::Ntid : ptx::SReg::Nctaid,
                                           uint8_t(s.index))},
                                   loc_));
          Instr cv = make(Op::Cvt, Type::U64, r64, {regOp(r)}, loc_);
          cv.type2 = Type::U32;
          coef_code.push_back(cv);
          break;
        }
        case LaunchSymbol::Kind::Address: {
          Operand o;
          o.kind = OperandKind::Sym;
          o.sym = s.index;
          coef_code.push_back(make(Op::Mov, Type::U64, r64, {o}, loc_));
          break;
        }
      }
      sym_reg[id] = r64;
      return r64;
    };
    // Each distinct value is computed once and written to every coefficient
    // register that holds it; four values per basic block (some independent
    // work for the in-order warp, few registers live).
    std::map<std::string, std::vector<uint32_t>> by_value;
    std::vector<std::pair<std::string, Poly>> values;
    for (const auto& [j, p] : coefs_) {
      const std::string key = p.str(plan_.symbols);
      if (!by_value.count(key)) values.push_back({key, p});
      by_value[key].push_back(j);
    }
    uint32_t in_block = 0;
    for (const auto& [key, p] : values) {
      std::vector<uint32_t> crs;
      for (uint32_t j : by_value[key]) crs.push_back(pinned(fmt::format("%r2d2_cr{}", j), Type::U64, "r2d2.cr", 2 * j));
      if (auto c = p.constant()) {
        for (uint32_t cr : crs) coef_code.push_back(make(Op::Mov, Type::B64, cr, {immOp(*c)}, loc_));
        continue;
      }
      if (in_block == 4) {
        coef_blocks.push_back(std::move(coef_code));
        coef_code.clear();
        sym_reg.clear();
        mono_reg.clear();
        in_block = 0;
      }
      ++in_block;
      uint32_t acc = ptx::kNoReg;
      for (const auto& [mono, factor] : p.terms()) {
        if (mono.empty()) continue;
        // A product of symbols is computed once per basic block.
        uint32_t t = symbol(mono[0]);
        for (size_t i = 1; i < mono.size(); ++i) {
          const std::vector<uint32_t> prefix(mono.begin(), mono.begin() + static_cast<std::ptrdiff_t>(i) + 1);
          auto known = mono_reg.find(prefix);
          if (known != mono_reg.end()) {
            t = known->second;
            continue;
          }
          const uint32_t n = newReg(Type::S64);
          coef_code.push_back(make(Op::Mul, Type::S64, n, {regOp(t), regOp(symbol(mono[i]))}, loc_));
          mono_reg[prefix] = n;
          t = n;
        }
        if (factor != 1) {
          const uint32_t n = newReg(Type::S64);
          coef_code.push_back(make(Op::Mul, Type::S64, n, {regOp(t), immOp(factor)}, loc_));
          t = n;
        }
        if (acc == ptx::kNoReg) {
          acc = t;
        } else {
          const uint32_t n = newReg(Type::S64);
          coef_code.push_back(make(Op::Add, Type::S64, n, {regOp(acc), regOp(t)}, loc_));
          acc = n;
        }
      }
      if (const int64_t c = p.constantTerm()) {
        const uint32_t n = newReg(Type::S64);
        coef_code.push_back(make(Op::Add, Type::S64, n, {regOp(acc), immOp(c)}, loc_));
        acc = n;
      }
      for (uint32_t cr : crs) coef_code.push_back(make(Op::Mov, Type::B64, cr, {regOp(acc)}, loc_));
    }
    coef_code.push_back(marker(end_id, {0}));
    coef_blocks.push_back(std::move(coef_code));

    std::vector<Instr> tr_code = trBlock();
    tr_code.push_back(marker(end_id, {1}));
    std::vector<Instr> tr2_code = trBlock();
    tr2_code.push_back(marker(end_id, {1}));
    tr2_code.push_back(marker(wait_id, {}));

    // Block-index parts: lane K of the pair is linear register K's
    // (mov.br / mad.br: the coefficient vector read lane by lane).
    std::vector<Instr> br_code;
    const uint32_t br = pinned("%r2d2_br", Type::U64, "r2d2.br", 0);
    for (size_t v = 0; v < vec_elems_.size(); ++v) {
      const uint32_t cv = pinned(fmt::format("%r2d2_cv{}", v), Type::U64, "r2d2.cv", 2 * static_cast<uint32_t>(v));
      if (vec_elems_[v] == kC) {
        br_code.push_back(make(Op::Mov, Type::B64, br, {regOp(cv)}, loc_));
        continue;
      }
      const uint32_t r = newReg(Type::U32), r64 = newReg(Type::U64);
      br_code.push_back(make(Op::Mov, Type::U32, r, {sregOp(ptx::SReg::Ctaid, uint8_t(vec_elems_[v] - kBx))}, loc_));
      Instr cvt = make(Op::Cvt, Type::U64, r64, {regOp(r)}, loc_);
      cvt.type2 = Type::U32;
      br_code.push_back(cvt);
      br_code.push_back(make(Op::Mad, Type::S64, br, {regOp(r64), regOp(cv), regOp(br)}, loc_));
    }
    br_code.push_back(marker(end_id, {2}));

    // Layout: the three blocks before the body, the copy after it.
    const uint32_t shift = static_cast<uint32_t>(coef_blocks.size()) + 2;
    for (auto& bb : fn_.blocks)
      for (auto& in : bb.instrs)
        for (int s = 0; s < in.nsrc; ++s)
          if (in.src[s].kind == OperandKind::Label) in.src[s].block += shift;
    if (fn_.blocks[0].label.empty()) fn_.blocks[0].label = kBodyLabel;
    plan_.body_label = fn_.blocks[0].label;
    Instr bra;
    bra.op = Op::Bra;
    bra.mods.uni = true;
    bra.nsrc = 1;
    bra.src[0].kind = OperandKind::Label;
    bra.src[0].block = shift;
    bra.loc = loc_;
    tr2_code.push_back(bra);
    // Every instruction of the blocks carries r2d2.lin (the SM counts them).
    const ptx::ControlField lin = ptx::registerControlField("r2d2.lin", 1);
    std::vector<std::vector<Instr>*> all{&tr_code, &br_code, &tr2_code};
    for (auto& b : coef_blocks) all.push_back(&b);
    plan_.added = 0;
    for (auto* code : all) {
      plan_.added += static_cast<uint32_t>(code->size());
      for (Instr& in : *code) lin.set(in, 1);
    }
    std::vector<ptx::BasicBlock> blocks;
    for (size_t i = 0; i < coef_blocks.size(); ++i)
      blocks.push_back({i ? fmt::format("{}_{}", kCoefLabel, i) : std::string(kCoefLabel), std::move(coef_blocks[i]), {}, {}});
    blocks.push_back({kTrLabel, std::move(tr_code), {}, {}});
    blocks.push_back({kBrLabel, std::move(br_code), {}, {}});
    for (auto& bb : fn_.blocks) blocks.push_back(std::move(bb));
    blocks.push_back({kTr2Label, std::move(tr2_code), {}, {}});
    fn_.blocks = std::move(blocks);
  }

  ptx::Module& m_;
  ptx::Function& fn_;
  KernelPlan plan_;
  ptx::SrcLoc loc_;
  std::vector<Elem> vec_elems_;
  std::vector<uint32_t> tr_reg_;
  std::map<std::pair<size_t, int>, uint32_t> cr_lo_;      // (tr, dim) -> its coefficient
  std::map<std::pair<size_t, int>, uint32_t> cr_lo_reg_;  // ... its low word, as a pinned register
  std::vector<std::pair<uint32_t, Poly>> coefs_;          // coefficient index -> value
};

}  // namespace

void transformModule(ptx::Module& m, PlanTable& plans) {
  for (ptx::Function& fn : m.functions) {
    if (!fn.is_entry || fn.is_extern || fn.blocks.empty()) continue;
    plans[fn.name] = Transformer(m, fn).run();
  }
}

}  // namespace rfsim::mech::r2d2
