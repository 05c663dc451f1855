// R2D2's code analysis (linearity.h): coefficient vectors by Fig. 6's
// transfer rules, in program order (Algorithm 1), with the choices the paper
// leaves open marked "Choice:".
#include "mech/r2d2/linearity.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace rfsim::mech::r2d2 {

// ---------------------------------------------------------------------------
// Poly

Poly Poly::constant(int64_t v) {
  Poly p;
  if (v != 0) p.terms_[{}] = v;
  return p;
}

Poly Poly::symbol(uint32_t id) {
  Poly p;
  p.terms_[{id}] = 1;
  return p;
}

std::optional<int64_t> Poly::constant() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_.begin()->first.empty()) return terms_.begin()->second;
  return std::nullopt;
}

int64_t Poly::constantTerm() const {
  auto it = terms_.find(std::vector<uint32_t>{});
  return it == terms_.end() ? 0 : it->second;
}

Poly Poly::withoutConstant() const {
  Poly p = *this;
  p.terms_.erase(std::vector<uint32_t>{});
  return p;
}

Poly Poly::operator+(const Poly& o) const {
  Poly r = *this;
  for (const auto& [m, c] : o.terms_) {
    // Exact integer arithmetic, as the paper assumes; factors wrap as the
    // hardware's 64-bit coefficient registers would.
    int64_t v = static_cast<int64_t>(static_cast<uint64_t>(r.terms_[m]) + static_cast<uint64_t>(c));
    if (v == 0)
      r.terms_.erase(m);
    else
      r.terms_[m] = v;
  }
  return r;
}

Poly Poly::operator-(const Poly& o) const { return *this + o * Poly::constant(-1); }

Poly Poly::operator*(const Poly& o) const {
  Poly r;
  for (const auto& [ma, ca] : terms_)
    for (const auto& [mb, cb] : o.terms_) {
      std::vector<uint32_t> m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      Poly t;
      t.terms_[m] = static_cast<int64_t>(static_cast<uint64_t>(ca) * static_cast<uint64_t>(cb));
      if (t.terms_[m] == 0) t.terms_.clear();
      r = r + t;
    }
  return r;
}

std::string Poly::str(const std::vector<LaunchSymbol>& symbols) const {
  if (terms_.empty()) return "0";
  std::vector<std::pair<std::vector<uint32_t>, int64_t>> t(terms_.begin(), terms_.end());
  std::stable_sort(t.begin(), t.end(), [](const auto& a, const auto& b) {
    if (a.first.size() != b.first.size()) return a.first.size() > b.first.size();
    return a.first < b.first;
  });
  std::string s;
  for (size_t i = 0; i < t.size(); ++i) {
    const auto& [m, c] = t[i];
    int64_t mag = c < 0 ? -c : c;
    if (i == 0)
      s += c < 0 ? "-" : "";
    else
      s += c < 0 ? " - " : " + ";
    std::string mono;
    for (size_t k = 0; k < m.size(); ++k) mono += (k ? "*" : "") + symbols.at(m[k]).name;
    if (m.empty())
      s += fmt::format("{}", mag);
    else if (mag == 1)
      s += mono;
    else
      s += fmt::format("{}*{}", mag, mono);
  }
  return s;
}

// ---------------------------------------------------------------------------
// CoefVec

bool CoefVec::scalar() const { return !hasThreadPart() && !hasBlockPart(); }
bool CoefVec::hasThreadPart() const { return !e[kTx].isZero() || !e[kTy].isZero() || !e[kTz].isZero(); }
bool CoefVec::hasBlockPart() const { return !e[kBx].isZero() || !e[kBy].isZero() || !e[kBz].isZero(); }

std::string CoefVec::str(const std::vector<LaunchSymbol>& symbols) const {
  std::string s = "{";
  for (int i = 0; i < kNumElems; ++i) s += (i ? ", " : "") + e[i].str(symbols);
  return s + "}";
}

const char* defKindName(DefKind k) {
  switch (k) {
    case DefKind::Single: return "single";
    case DefKind::Divergent: return "divergent";
    case DefKind::LoopInit: return "loop-init";
    case DefKind::LoopUpdate: return "loop-update";
    case DefKind::NonScalarStep: return "non-scalar-step";
  }
  return "?";
}

// ---------------------------------------------------------------------------
// The analysis

namespace {

using ptx::Instr;
using ptx::Op;
using ptx::Operand;
using ptx::OperandKind;

bool integerType(ptx::Type t) { return t != ptx::Type::None && t != ptx::Type::Pred && !ptx::isFloat(t); }

CoefVec scaled(const CoefVec& v, const Poly& k) {
  CoefVec r = v;
  for (auto& x : r.e) x = x * k;
  return r;
}

CoefVec sum(const CoefVec& a, const CoefVec& b, bool minus = false) {
  CoefVec r;
  for (int i = 0; i < kNumElems; ++i) r.e[i] = minus ? a.e[i] - b.e[i] : a.e[i] + b.e[i];
  r.narrow = a.narrow || b.narrow;
  return r;
}

class Analyzer {
 public:
  Analyzer(const ptx::Module& m, const ptx::Function& fn) : m_(m), fn_(fn) {
    out_.writes.assign(fn.regs.size(), 0);
    out_.value.assign(fn.regs.size(), std::nullopt);
    self_update_.assign(fn.regs.size(), false);
  }

  Linearity run() {
    // Writes per register, and which registers a definition of their own reads
    // (a loop-carried update: PTX is near-SSA, so a self-reading write is one).
    for (const auto& bb : fn_.blocks)
      for (const auto& in : bb.instrs) {
        uint32_t d = defReg(in);
        if (d == ptx::kNoReg) continue;
        ++out_.writes[d];
        if (readsReg(in, d)) self_update_[d] = true;
      }
    reachingDefinitions();
    for (uint32_t b = 0; b < fn_.blocks.size(); ++b)
      for (uint32_t i = 0; i < fn_.blocks[b].instrs.size(); ++i) {
        cur_ = {b, i};
        step(b, i, fn_.blocks[b].instrs[i]);
      }
    for (const auto& mat : out_.materialised)
      if (std::find(out_.combinations.begin(), out_.combinations.end(), mat.vec) == out_.combinations.end())
        out_.combinations.push_back(mat.vec);
    return std::move(out_);
  }

 private:
  // Reaching definitions of the registers written more than once (the CFG
  // must be built): which of their definitions reach each instruction that
  // reads them. A read that exactly one definition reaches sees its value
  // (the loop-init value before the loop, a divergent value after its own
  // definition); bit 63 stands for "not written yet". Without a CFG (no
  // block has predecessors) every such read stays unresolved.
  void reachingDefinitions() {
    const uint32_t nb = static_cast<uint32_t>(fn_.blocks.size());
    bool cfg = nb <= 1;
    for (const auto& bb : fn_.blocks) cfg = cfg || !bb.preds.empty();
    if (!cfg) return;
    std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> defs;  // multi-write register -> its writes
    for (uint32_t b = 0; b < nb; ++b)
      for (uint32_t i = 0; i < fn_.blocks[b].instrs.size(); ++i) {
        const uint32_t d = defReg(fn_.blocks[b].instrs[i]);
        if (d != ptx::kNoReg && out_.writes[d] > 1) defs[d].push_back({b, i});
      }
    constexpr uint64_t kUndef = uint64_t{1} << 63;
    for (const auto& [r, ds] : defs) {
      if (ds.size() > 63) continue;
      std::vector<uint64_t> gen(nb, 0), in(nb, 0), out(nb, 0);
      std::vector<bool> kills(nb, false);
      for (uint32_t k = 0; k < ds.size(); ++k) {
        gen[ds[k].first] = uint64_t{1} << k;  // the block's last write of r (program order within the block)
        kills[ds[k].first] = true;
      }
      for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < nb; ++b) {
          uint64_t i = b == 0 ? kUndef : 0;
          for (uint32_t p : fn_.blocks[b].preds) i |= out[p];
          const uint64_t o = kills[b] ? gen[b] : i;
          if (i != in[b] || o != out[b]) changed = true;
          in[b] = i;
          out[b] = o;
        }
      }
      for (uint32_t b = 0; b < nb; ++b) {
        uint64_t cur = in[b];
        for (uint32_t i = 0; i < fn_.blocks[b].instrs.size(); ++i) {
          const Instr& x = fn_.blocks[b].instrs[i];
          if (readsReg(x, r) || (x.guard.kind == OperandKind::Reg && x.guard.regs[0] == r)) reach_[{b, i, r}] = cur;
          if (defReg(x) == r)
            for (uint32_t k = 0; k < ds.size(); ++k)
              if (ds[k].first == b && ds[k].second == i) cur = uint64_t{1} << k;
        }
      }
      multi_defs_[r] = ds;
    }
  }

  // The vector a read of multi-write register r at the current instruction
  // sees: that of the one definition reaching it, if that one is linear and
  // was analysed already (earlier in program order).
  std::optional<CoefVec> reachingValue(uint32_t r) const {
    auto it = reach_.find({cur_.first, cur_.second, r});
    if (it == reach_.end() || __builtin_popcountll(it->second) != 1 || (it->second >> 63)) return std::nullopt;
    const auto& ds = multi_defs_.at(r);
    const auto at = ds.at(static_cast<size_t>(__builtin_ctzll(it->second)));
    auto v = def_value_.find(at);
    if (v == def_value_.end()) return std::nullopt;
    return v->second;
  }

  static uint32_t defReg(const Instr& in) {
    if (in.ndst == 0 || in.dst[0].kind != OperandKind::Reg) return ptx::kNoReg;
    return in.dst[0].regs[0];
  }

  static bool readsReg(const Instr& in, uint32_t r) {
    for (int s = 0; s < in.nsrc; ++s) {
      const Operand& o = in.src[s];
      if ((o.kind == OperandKind::Reg || o.kind == OperandKind::Addr) && o.regs[0] == r) return true;
      if (o.kind == OperandKind::Vec)
        for (int k = 0; k < o.vec_n; ++k)
          if (o.regs[k] == r) return true;
    }
    return false;
  }

  uint32_t symbolId(LaunchSymbol::Kind kind, uint32_t index, uint64_t offset, const std::string& name,
                    ptx::Type type = ptx::Type::U32) {
    for (uint32_t i = 0; i < out_.symbols.size(); ++i) {
      const auto& s = out_.symbols[i];
      if (s.kind == kind && s.index == index && s.offset == offset) return i;
    }
    out_.symbols.push_back({kind, index, offset, name, type});
    return uint32_t(out_.symbols.size() - 1);
  }

  static CoefVec unit(Elem e) {
    CoefVec v;
    v.e[e] = Poly::constant(1);
    return v;
  }
  static CoefVec constVec(const Poly& p) {
    CoefVec v;
    v.e[kC] = p;
    return v;
  }

  // A source operand's vector. `self`: the register being redefined, whose
  // tracked value a loop update reads even though it is written twice.
  std::optional<CoefVec> operand(const Operand& o, uint32_t self) {
    static const char* dims = "xyz";
    switch (o.kind) {
      case OperandKind::Reg: {
        uint32_t r = o.regs[0];
        // Choice: a register written more than once is read as linear only
        // where one definition reaches the read (reaching definitions), or
        // by its own loop update; elsewhere its value depends on the path.
        if (out_.writes[r] > 1 && r != self) return reachingValue(r);
        return out_.value[r];
      }
      case OperandKind::Imm:
        return constVec(Poly::constant(o.imm));
      case OperandKind::SReg:
        switch (o.sreg) {
          case ptx::SReg::Tid: return unit(Elem(kTx + o.dim));
          case ptx::SReg::Ctaid: return unit(Elem(kBx + o.dim));
          case ptx::SReg::Ntid:
            return constVec(Poly::symbol(
                symbolId(LaunchSymbol::Kind::Ntid, o.dim, 0, fmt::format("ntid.{}", dims[o.dim % 3]))));
          case ptx::SReg::Nctaid:
            return constVec(Poly::symbol(
                symbolId(LaunchSymbol::Kind::Nctaid, o.dim, 0, fmt::format("nctaid.{}", dims[o.dim % 3]))));
          default: return std::nullopt;  // laneid, warpid, smid, clocks: not linear in the indices
        }
      case OperandKind::Sym: {
        // The address of a module variable: fixed at load, unknown here.
        if (o.sym == ptx::kNoSym || o.sym >= m_.symbols.size()) return std::nullopt;
        const auto& s = m_.symbols[o.sym];
        if (s.space != ptx::Space::Global && s.space != ptx::Space::Const && s.space != ptx::Space::Shared)
          return std::nullopt;
        return constVec(Poly::symbol(symbolId(LaunchSymbol::Kind::Address, o.sym, 0, "&" + s.name)));
      }
      default: return std::nullopt;
    }
  }

  // Fig. 6's transfer rules; nullopt: not linear.
  std::optional<CoefVec> transfer(const Instr& in, uint32_t self) {
    // Choice: a guarded definition may or may not happen in a thread.
    if (in.guard.kind == OperandKind::Reg) return std::nullopt;
    if (in.ndst != 1 || in.dst[0].kind != OperandKind::Reg) return std::nullopt;
    const bool narrow32 = ptx::typeBits(in.type) == 32;
    switch (in.op) {
      case Op::Ld: {
        if (in.space != ptx::Space::Param || !integerType(in.type) || in.mods.vec != 1) return std::nullopt;
        const Operand& a = in.src[0];
        if (a.kind != OperandKind::Addr || a.regs[0] != ptx::kNoReg || a.sym == ptx::kNoSym) return std::nullopt;
        auto it = std::find(fn_.params.begin(), fn_.params.end(), a.sym);
        if (it == fn_.params.end()) return std::nullopt;  // a call's parameter, not the kernel's
        uint32_t pos = uint32_t(it - fn_.params.begin());
        std::string name = a.imm ? fmt::format("P{}+{}", pos, a.imm) : fmt::format("P{}", pos);
        return constVec(Poly::symbol(symbolId(LaunchSymbol::Kind::Param, pos, uint64_t(a.imm), name, in.type)));
      }
      case Op::Mov:
        if (!integerType(in.type) || in.src[0].kind == OperandKind::Vec) return std::nullopt;
        return operand(in.src[0], self);
      case Op::Cvt: {
        // Choice: integer conversions that widen or keep the width copy the
        // vector (exact arithmetic, as the paper); narrowing ones are not linear.
        if (!integerType(in.type) || !integerType(in.type2)) return std::nullopt;
        if (ptx::typeBits(in.type) < ptx::typeBits(in.type2)) return std::nullopt;
        auto v = operand(in.src[0], self);
        if (v && ptx::typeBits(in.type2) == 32) v->narrow = true;
        if (v && ptx::typeBits(in.type2) == 32 && ptx::typeBits(in.type) == 64)
          widened_.push_back({*v, ptx::isSigned(in.type2)});
        return v;
      }
      case Op::Cvta:
        // Choice: a global address is the same in the generic and the global
        // window; other windows move it.
        if (in.space != ptx::Space::Global) return std::nullopt;
        return operand(in.src[0], self);
      case Op::Add:
      case Op::Sub: {
        if (!integerType(in.type) || in.mods.cc || in.mods.carry_in || in.mods.sat) return std::nullopt;
        auto a = operand(in.src[0], self), b = operand(in.src[1], self);
        if (!a || !b) return std::nullopt;
        CoefVec r = sum(*a, *b, in.op == Op::Sub);
        r.narrow |= narrow32;
        return r;
      }
      case Op::Mul:
      case Op::Mad: {
        // Choice: .lo and .wide are linear, .hi is not; either factor may be
        // the scalar one (commutative).
        if (!integerType(in.type) || (in.mods.mul != ptx::MulMode::Lo && in.mods.mul != ptx::MulMode::Wide))
          return std::nullopt;
        auto a = operand(in.src[0], self), b = operand(in.src[1], self);
        if (!a || !b) return std::nullopt;
        if (!b->scalar()) std::swap(a, b);
        if (!b->scalar()) return std::nullopt;  // both operands vary per thread
        if (in.mods.mul == ptx::MulMode::Wide) {
          widened_.push_back({*a, ptx::isSigned(in.type)});
          if (!b->e[kC].constant()) widened_.push_back({*b, ptx::isSigned(in.type)});
        }
        CoefVec r = scaled(*a, b->e[kC]);
        r.narrow = a->narrow || b->narrow || (narrow32 && in.mods.mul == ptx::MulMode::Lo);
        if (in.op == Op::Mad) {
          auto c = operand(in.src[2], self);
          if (!c) return std::nullopt;
          bool n = r.narrow;
          r = sum(r, *c);
          r.narrow |= n;
        }
        return r;
      }
      case Op::Shl: {
        // Choice: the shift must be a constant integer (2^k is then a factor).
        if (!integerType(in.type)) return std::nullopt;
        auto a = operand(in.src[0], self), b = operand(in.src[1], self);
        if (!a || !b || !b->scalar()) return std::nullopt;
        auto k = b->e[kC].constant();
        if (!k || *k < 0 || *k >= 64) return std::nullopt;
        CoefVec r = scaled(*a, Poly::constant(int64_t(uint64_t{1} << *k)));
        r.narrow |= narrow32;
        return r;
      }
      default:
        return std::nullopt;
    }
  }

  void materialise(uint32_t b, uint32_t i, uint32_t reg, const CoefVec& v) {
    out_.materialised.push_back({b, i, reg, v});
  }

  void step(uint32_t b, uint32_t i, const Instr& in) {
    ++out_.instructions;
    const uint32_t d = defReg(in);
    widened_.clear();
    std::optional<CoefVec> v = d == ptx::kNoReg ? std::nullopt : transfer(in, d);
    if (!v) {
      // A non-linear instruction: the linear values it reads are the ones
      // R2D2 materialises (section 3.1.3).
      auto use = [&](uint32_t r) {
        if (r == ptx::kNoReg || r >= out_.value.size()) return;
        const std::optional<CoefVec> v = out_.writes[r] > 1 ? reachingValue(r) : out_.value[r];
        if (v) materialise(b, i, r, *v);
      };
      for (int s = 0; s < in.nsrc; ++s) {
        const Operand& o = in.src[s];
        if (o.kind == OperandKind::Reg || o.kind == OperandKind::Addr) use(o.regs[0]);
        if (o.kind == OperandKind::Vec)
          for (int k = 0; k < o.vec_n; ++k) use(o.regs[k]);
      }
      if (in.guard.kind == OperandKind::Reg) use(in.guard.regs[0]);
      if (d != ptx::kNoReg) out_.value[d] = std::nullopt;
      return;
    }
    ++out_.linear_instructions;
    Definition def{b, i, d, DefKind::Single, *v, std::nullopt, widened_};
    if (out_.writes[d] > 1) {
      if (readsReg(in, d)) {
        // A loop update: its vector is the previous value plus a step.
        const auto& before = out_.value[d];
        CoefVec stepv = before ? sum(*v, *before, true) : *v;
        if (before && stepv.scalar()) {
          def.kind = DefKind::LoopUpdate;
          def.vec = *before;  // the first iteration's value
          def.step = stepv;
          out_.defs.push_back(def);
          return;  // value[d] keeps the first iteration's vector
        }
        def.kind = DefKind::NonScalarStep;
        out_.defs.push_back(def);
        out_.value[d] = std::nullopt;
        return;
      }
      def.kind = self_update_[d] ? DefKind::LoopInit : DefKind::Divergent;
      def_value_[{b, i}] = *v;
      // Its own linear register, moved into the register where it is defined.
      materialise(b, i, d, *v);
    }
    out_.defs.push_back(def);
    out_.value[d] = *v;
  }

  const ptx::Module& m_;
  const ptx::Function& fn_;
  Linearity out_;
  std::vector<bool> self_update_;
  std::pair<uint32_t, uint32_t> cur_{0, 0};  // the instruction being analysed
  std::vector<std::pair<CoefVec, bool>> widened_;  // its 32-bit sources widened to 64 bits (signed?)
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> reach_;  // (block, index, reg) -> definitions
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> multi_defs_;
  std::map<std::pair<uint32_t, uint32_t>, CoefVec> def_value_;  // a multi-write register's linear definitions
};

}  // namespace

Linearity analyzeLinearity(const ptx::Module& m, const ptx::Function& fn) { return Analyzer(m, fn).run(); }

}  // namespace rfsim::mech::r2d2
