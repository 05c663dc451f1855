// Shared-memory load vectorisation as ptxas does it (prealloc.h:
// vectorizeSharedLoads). Evidence, from the cubins of the workloads' PTX
// compiled by ptxas for sm_75 (docs/backend.md, "Vector loads"): PTX with
// only scalar ld.shared.f32 becomes SASS with LDS.64 and LDS.128 where the
// addresses are adjacent and ptxas can prove their alignment --
// corr_pairs' [%r98] and [%r98+4] (%r98 = tile + 4 * an even counter) are
// 49 LDS.64, sgemm_tiled's row of the A tile four LDS.128, knn_search 43
// LDS.64, lu_internal four LDS.128. The values of one vector load are
// defined together, so they are live together: the registers those loads
// keep in flight are part of ptxas' counts on such kernels.
//
// ptxas places the shared variables itself; it aligns them so (a variable
// of 16 bytes or more starts on a 16-byte boundary), and so does the back
// end in the machine program it hands the functional model (alignSharedSymbols).
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "backend/prealloc.h"
#include "backend/ra_internal.h"

namespace rfsim::backend {

using ptx::Instr;
using ptx::Op;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Space;

namespace {

constexpr uint32_t kMaxAlign = 16;  // the widest access: LDS.128

uint32_t lowBit(int64_t v) {
  if (v == 0) return kMaxAlign;
  const uint64_t u = static_cast<uint64_t>(v);
  return static_cast<uint32_t>(std::min<uint64_t>(kMaxAlign, u & (~u + 1)));
}

uint32_t symbolAlign(const ptx::Module& m, uint32_t sym) {
  if (sym >= m.symbols.size()) return 1;
  const ptx::Symbol& s = m.symbols[sym];
  if (s.space == Space::Shared && s.size >= kMaxAlign) return kMaxAlign;  // alignSharedSymbols
  return std::min<uint32_t>(kMaxAlign, std::max<uint32_t>(1, s.align));
}

// A vectorisable load: ld.shared of a 32- or 64-bit scalar from [reg + imm] or
// [symbol + imm], not volatile, not guarded, no address addend, the
// program's own (not one the back end or a mechanism added).
bool candidate(const Instr& in) {
  if (in.op != Op::Ld || in.role != ptx::MRole::Code || in.space != Space::Shared || in.mods.vec != 1 || in.mods.volatile_ ||
      in.mods.relaxed_or_stronger || in.mods.uaddr || in.guard.kind != OperandKind::None || in.ndst != 1 ||
      in.dst[0].kind != OperandKind::Reg || (ptx::typeBits(in.type) != 32 && ptx::typeBits(in.type) != 64) ||
      in.nsrc != 1)
    return false;
  const Operand& a = in.src[0];
  return a.kind == OperandKind::Addr && (a.regs[0] != ptx::kNoReg || a.sym != ptx::kNoSym);
}

// What may write shared memory or order accesses to it: a load is not moved
// above one.
bool barrierForLoads(const Instr& in) {
  switch (in.op) {
    case Op::St: return in.space == Space::Shared || in.space == Space::Generic || in.space == Space::None;
    case Op::Atom: case Op::Red: case Op::Bar: case Op::Membar: case Op::Fence: case Op::Call: case Op::Ext:
    case Op::Shfl: case Op::Vote: case Op::Match: case Op::Activemask: case Op::Nanosleep:
      return true;
    case Op::Ld: return in.mods.volatile_ || in.mods.relaxed_or_stronger;
    default: return false;
  }
}

// Known alignment (a power of two, at most kMaxAlign) of every 32-bit
// virtual register: the largest power of two that divides every value any
// of its definitions can give, by a fixed point from "aligned to
// kMaxAlign" down (a loop counter stepped by 2 from 0 stays even).
std::vector<uint32_t> registerAlignment(const MFunction& mf, const ptx::Module& m) {
  const uint32_t nv = static_cast<uint32_t>(mf.vbits.size());
  std::vector<uint32_t> al(nv, kMaxAlign);
  std::vector<bool> defined(nv, false);
  auto reg = [&](const Operand& o) -> uint32_t {
    switch (o.kind) {
      case OperandKind::Reg: return o.regs[0] < nv ? al[o.regs[0]] : 1;
      case OperandKind::Imm: return lowBit(o.imm);
      case OperandKind::Sym: return symbolAlign(m, o.sym);
      default: return 1;
    }
  };
  auto eval = [&](const Instr& in) -> uint32_t {
    const uint32_t bits = ptx::typeBits(in.type);
    if (bits != 32 && bits != 64) return 1;
    auto mulAl = [](uint32_t a, uint32_t b) { return static_cast<uint32_t>(std::min<uint64_t>(kMaxAlign, uint64_t{a} * b)); };
    switch (in.op) {
      case Op::Mov: return in.nsrc == 1 ? reg(in.src[0]) : 1;
      case Op::Add: case Op::Sub:
        return in.mods.cc || in.mods.carry_in ? 1 : std::min(reg(in.src[0]), reg(in.src[1]));
      case Op::Shl:
        if (in.src[1].kind != OperandKind::Imm || in.src[1].imm < 0 || in.src[1].imm > 8) return 1;
        return mulAl(reg(in.src[0]), 1u << in.src[1].imm);
      case Op::Mul:
        return in.mods.mul == ptx::MulMode::Lo ? mulAl(reg(in.src[0]), reg(in.src[1])) : 1;
      case Op::Mad:
        return in.mods.mul == ptx::MulMode::Lo && !in.mods.cc && !in.mods.carry_in
                   ? std::min(mulAl(reg(in.src[0]), reg(in.src[1])), reg(in.src[2]))
                   : 1;
      case Op::And:  // and with a mask whose low bits are clear
        return in.src[1].kind == OperandKind::Imm ? std::max(reg(in.src[0]), lowBit(in.src[1].imm)) : 1;
      default: return 1;
    }
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& bb : mf.fn.blocks)
      for (const Instr& in : bb.instrs)
        for (unsigned d = 0; d < in.ndst; ++d) {
          const Operand& o = in.dst[d];
          if (o.kind == OperandKind::Vec) {
            for (unsigned k = 0; k < o.vec_n; ++k)
              if (o.regs[k] < nv && (!defined[o.regs[k]] || al[o.regs[k]] != 1)) {
                defined[o.regs[k]] = true;
                al[o.regs[k]] = 1;
                changed = true;
              }
            continue;
          }
          if ((o.kind != OperandKind::Reg && o.kind != OperandKind::PredOut) || o.regs[0] >= nv) continue;
          const uint32_t v = o.regs[0];
          const uint32_t a = d == 0 && o.kind == OperandKind::Reg ? std::min(al[v], eval(in)) : 1;
          if (!defined[v] || a != al[v]) {
            defined[v] = true;
            changed |= a != al[v];
            al[v] = a;
          }
        }
  }
  // Read before any definition (an input of the function): nothing known.
  for (uint32_t v = 0; v < nv; ++v)
    if (!defined[v]) al[v] = 1;
  return al;
}

}  // namespace

void alignSharedSymbols(ptx::Module& m) {
  for (ptx::Symbol& s : m.symbols)
    if (s.space == Space::Shared && s.size >= kMaxAlign && s.align < kMaxAlign) s.align = kMaxAlign;
}

VectorStats vectorizeSharedLoads(MFunction& mf, const ptx::Module& m) {
  VectorStats st;
  const std::vector<uint32_t> al = registerAlignment(mf, m);
  ra::ValueSpace vs;
  vs.nv = static_cast<uint32_t>(mf.vbits.size());
  ra::InstrEffects eff;
  for (auto& bb : mf.fn.blocks) {
    std::vector<Instr>& code = bb.instrs;
    const size_t n = code.size();
    std::vector<bool> gone(n, false);
    for (size_t i = 0; i < n; ++i) {
      if (gone[i] || !candidate(code[i])) continue;
      const Operand& ai = code[i].src[0];
      const uint32_t base = ai.regs[0];
      const uint32_t base_al = base != ptx::kNoReg ? (base < vs.nv ? al[base] : 1) : symbolAlign(m, ai.sym);
      if (base_al < 8) continue;  // no pair of 32-bit values, no wider access
      // The loads after i from the same base that can move up to i: the base
      // not written in between, no store or order point in between, and the
      // moved load's destination neither read nor written in between (nor
      // the base).
      std::unordered_map<int64_t, size_t> at;  // offset -> instruction
      at[ai.imm] = i;
      std::vector<uint32_t> touched;  // values read or written since i (i included)
      ra::instrEffects(mf, code[i], vs, eff);
      for (uint32_t u : eff.uses) touched.push_back(u);
      for (const ra::Def& df : eff.defs) touched.push_back(df.idx);
      bool stop = false;
      for (size_t j = i + 1; j < n && !stop; ++j) {
        Instr& in = code[j];
        if (gone[j]) continue;
        if (candidate(in) && in.type == code[i].type && in.src[0].regs[0] == base &&
            (base != ptx::kNoReg || in.src[0].sym == ai.sym) && !at.count(in.src[0].imm)) {
          const uint32_t d = in.dst[0].regs[0];
          const bool clash = std::find(touched.begin(), touched.end(), d) != touched.end() || d == base;
          if (!clash) at[in.src[0].imm] = j;
        }
        if (barrierForLoads(in) || in.op == Op::Bra || in.op == Op::Ret || in.op == Op::Exit) stop = true;
        ra::instrEffects(mf, in, vs, eff);
        for (uint32_t u : eff.uses) touched.push_back(u);
        for (const ra::Def& df : eff.defs) {
          touched.push_back(df.idx);
          if (df.idx == base) stop = true;
        }
      }
      // The widest aligned group that starts at i's offset, as ptxas pairs
      // them: 32-bit values four on a 16-byte boundary with all four
      // present, else two on 8; 64-bit values two on 16 (LDS.128).
      const int64_t o = ai.imm;
      const unsigned bits = ptx::typeBits(code[i].type), e = bits / 8;
      unsigned width = 0;
      for (unsigned w : {4u, 2u}) {
        if (e * w > kMaxAlign || base_al < e * w || (o % (e * w)) != 0) continue;
        bool all = true;
        for (unsigned k = 1; k < w; ++k) all &= at.count(o + e * k) > 0;
        if (all) {
          width = w;
          break;
        }
      }
      if (!width) continue;
      Instr& v = code[i];
      Operand dst;
      dst.kind = OperandKind::Vec;
      dst.vec_n = static_cast<uint8_t>(width);
      dst.mbits = static_cast<uint8_t>(bits);
      for (unsigned k = 0; k < width; ++k) {
        const size_t j = at[o + e * k];
        dst.regs[k] = code[j].dst[0].regs[0];
        if (k) gone[j] = true;
      }
      v.dst[0] = dst;
      v.mods.vec = static_cast<uint8_t>(width);
      ++st.loads;
      st.merged += width - 1;
    }
    if (std::find(gone.begin(), gone.end(), true) == gone.end()) continue;
    std::vector<Instr> kept;
    kept.reserve(n);
    for (size_t i = 0; i < n; ++i)
      if (!gone[i]) kept.push_back(std::move(code[i]));
    code = std::move(kept);
  }
  return st;
}

}  // namespace rfsim::backend
