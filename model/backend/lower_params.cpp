// Lowering, the calling convention's part (lower.h): where each parameter,
// result and call-argument symbol lives, and its ld.param / st.param, calls
// and returns as moves between virtual registers and R4..R15.
//
// A register-passed aggregate is a run of 32-bit words. Its bytes need not
// all be written: padding (`struct { double d; int i; }` is 16 bytes, 12 of
// them data), a field a path leaves unset, the bytes after the first of a
// word written byte by byte. So a forward pass first finds, for every
// point, the words a st.param may have written on some path to it
// (analyzeWrites); then
//   * the first sub-word store into a word written on no path so far
//     inserts into zero instead of reading the word;
//   * a call moves into the argument registers only the words written;
//   * a function returns in registers only the words some st.param writes
//     (MFunction::ret_uses lists just those); a ret reached on a path that
//     wrote none of a returned word gives 0 for it.
// Reading a word no path wrote would read a value defined nowhere, which
// no register holds (the checker's "holds the entry value of R7").
#include <algorithm>

#include "backend/lower_internal.h"

namespace rfsim::backend::lowering {

using namespace ptx;

void Lowerer::makeStore(uint32_t sym, const mach::ParamLoc& loc, int64_t stack_base) {
  Store s;
  s.in_regs = loc.in_regs;
  if (loc.in_regs) {
    s.first = loc.first_reg;
    s.nregs = loc.nregs;
    const Symbol& y = m_.symbols[sym];
    auto it = only_whole64_.find(sym);
    s.pair = y.size == 8 && loc.nregs == 2 && loc.first_reg % 2 == 0 && (it == only_whole64_.end() || it->second);
    if (s.pair) s.pair_vreg = mf_.newVreg(Type::B64, 64);
    else s.words.assign(loc.nregs, kNoReg);
  } else {
    s.stack = stack_base + loc.stack_off;
  }
  stores_[sym] = std::move(s);
}

void Lowerer::placeOwnParams() {
  if (src_.is_entry) return;
  // The return address (machine.h): a leaf leaves it in R20:R21 from entry
  // to ret; a function that calls saves and restores it in its frame
  // (frame.cpp), since its calls change the pair.
  if (src_.calls.empty()) {
    for (uint32_t k = 0; k < 2; ++k) {
      mf_.entry_defs.push_back(physId(mach::kRetAddr + k));
      mf_.ret_uses.push_back(physId(mach::kRetAddr + k));
    }
  }
  std::vector<mach::ParamShape> ps, rs;
  for (uint32_t s : src_.params) ps.push_back(paramShape(m_.symbols[s]));
  for (uint32_t s : src_.rets) rs.push_back(paramShape(m_.symbols[s]));
  const mach::ParamLayout pl = mach::layoutParams(ps), rl = mach::layoutParams(rs);
  mf_.in_args_bytes = mach::resultsOffset(pl, rl) + rl.stack_bytes;
  for (size_t i = 0; i < src_.params.size(); ++i) {
    makeStore(src_.params[i], pl.locs[i], kIncomingBias);
    own_params_.push_back(src_.params[i]);
  }
  for (size_t i = 0; i < src_.rets.size(); ++i) {
    makeStore(src_.rets[i], rl.locs[i], kIncomingBias + mach::resultsOffset(pl, rl));
    own_rets_.push_back(src_.rets[i]);
  }
  for (uint32_t s : own_params_) {
    const Store& st = stores_[s];
    for (uint32_t j = 0; j < st.nregs; ++j) mf_.entry_defs.push_back(physId(st.first + j));
  }
  // The result registers a ret reads (ret_uses) are known after analyzeWrites.
}

namespace {

// A call site's arguments and results, laid out by the callee's
// declaration (direct calls) or by the call's own symbols.
std::pair<mach::ParamLayout, mach::ParamLayout> callLayouts(const Module& m, const CallInfo& c) {
  std::vector<mach::ParamShape> ps, rs;
  const Function* callee = c.indirect ? nullptr : &m.functions[c.callee];
  for (size_t i = 0; i < c.args.size(); ++i) {
    const uint32_t s = callee && i < callee->params.size() ? callee->params[i] : c.args[i];
    ps.push_back(paramShape(m.symbols[s]));
  }
  for (size_t i = 0; i < c.rets.size(); ++i) {
    const uint32_t s = callee && i < callee->rets.size() ? callee->rets[i] : c.rets[i];
    rs.push_back(paramShape(m.symbols[s]));
  }
  return {mach::layoutParams(ps), mach::layoutParams(rs)};
}

}  // namespace

// The argument and result symbols of every call site.
void Lowerer::placeCalls() {
  for (const auto& c : src_.calls) {
    const auto [pl, rl] = callLayouts(m_, c);
    const uint32_t roff = mach::resultsOffset(pl, rl);
    mf_.out_args_bytes = std::max(mf_.out_args_bytes, roff + rl.stack_bytes);
    for (size_t i = 0; i < c.args.size(); ++i)
      if (!stores_.count(c.args[i])) makeStore(c.args[i], pl.locs[i], 0);
    for (size_t i = 0; i < c.rets.size(); ++i)
      if (!stores_.count(c.rets[i])) makeStore(c.rets[i], rl.locs[i], roff);
  }
}

// The words of a register-passed store that a st.param writes (any byte of).
void Lowerer::noteWrite(const Instr& in, std::vector<bool>& written) const {
  if (in.op != Op::St || in.space != Space::Param) return;
  const Operand& a = in.src[0];
  if (a.kind != OperandKind::Addr || a.sym == kNoSym) return;
  auto it = stores_.find(a.sym);
  if (it == stores_.end() || !it->second.in_regs) return;
  const Store& s = it->second;
  const int64_t lo = std::max<int64_t>(a.imm, 0);
  const int64_t hi = a.imm + int64_t{typeBits(in.type) / 8} * std::max<int64_t>(in.mods.vec, 1);
  for (int64_t k = lo / 4; k < s.nregs && 4 * k < hi; ++k) written[s.bit + k] = true;
  if (s.pair) written[s.bit] = written[s.bit + 1] = true;
}

// Forward, over the CFG: which words may be written on some path to the
// start of each block (a union at joins). A function's own parameters are
// written on entry.
void Lowerer::analyzeWrites() {
  uint32_t n = 0;
  for (auto& [sym, s] : stores_)
    if (s.in_regs) {
      s.bit = n;
      n += s.nregs;
    }
  const Function& fn = mf_.fn;
  const size_t nb = fn.blocks.size();
  std::vector<bool> entry(n, false);
  for (uint32_t p : own_params_) {
    const Store& s = stores_.at(p);
    if (s.in_regs) std::fill_n(entry.begin() + s.bit, s.nregs, true);
  }
  ever_written_ = entry;
  written_in_.assign(nb, std::vector<bool>(n, false));
  std::vector<std::vector<bool>> out(nb, std::vector<bool>(n, false));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < nb; ++b) {
      std::vector<bool> cur = b == 0 ? entry : std::vector<bool>(n, false);
      for (uint32_t p : fn.blocks[b].preds)
        for (uint32_t i = 0; i < n; ++i) cur[i] = cur[i] || out[p][i];
      written_in_[b] = cur;
      for (const Instr& in : fn.blocks[b].instrs) noteWrite(in, cur);
      if (cur != out[b]) {
        out[b] = std::move(cur);
        changed = true;
      }
    }
  }
  for (const BasicBlock& bb : fn.blocks)
    for (const Instr& in : bb.instrs) noteWrite(in, ever_written_);
  for (uint32_t r : own_rets_) {
    const Store& s = stores_.at(r);
    for (uint32_t j = 0; j < s.nregs; ++j)
      if (ever_written_[s.bit + j]) mf_.ret_uses.push_back(physId(s.first + j));
  }
}

void Lowerer::emitMov(std::vector<Instr>& out, const Instr& at, uint32_t dst, unsigned dbits, const Operand& src) {
  Instr in = mk(Op::Mov, typeOfBits(dbits), at);
  in.ndst = 1;
  in.dst[0] = regOp(dst, dbits);
  in.nsrc = 1;
  in.src[0] = src;
  out.push_back(in);
}

void Lowerer::readStore(std::vector<Instr>& out, const Instr& at, Store& s, int64_t off, unsigned bytes,
                        const Operand& dst, Type type) {
  const uint32_t d = dst.regs[0];
  const unsigned dbits = dst.mbits;
  if (s.pair) {
    if (off != 0 || bytes != 8) fail(at, "partial access to a 64-bit register parameter");
    emitMov(out, at, d, 64, regOp(s.pair_vreg, 64));
    return;
  }
  if (off < 0 || off + static_cast<int64_t>(bytes) > 4 * static_cast<int64_t>(s.nregs)) fail(at, "parameter access out of its bounds");
  const uint32_t k = static_cast<uint32_t>(off / 4), pos = static_cast<uint32_t>(off % 4);
  if (bytes == 4 && pos == 0) {
    emitMov(out, at, d, dbits, regOp(word(s, k), 32));
  } else if (bytes == 8 && pos == 0) {
    Operand v;
    v.kind = OperandKind::Vec;
    v.vec_n = 2;
    v.regs[0] = word(s, k);
    v.regs[1] = word(s, k + 1);
    v.mbits = 32;
    emitMov(out, at, d, 64, v);
  } else if (bytes < 4 && pos + bytes <= 4) {
    const bool sgn = isSigned(type);
    const uint32_t t = dbits == 32 ? d : mf_.newVreg(Type::B32, 32);
    Instr e = mk(Op::Bfe, sgn ? Type::S32 : Type::U32, at);
    e.ndst = 1;
    e.dst[0] = regOp(t, 32);
    e.nsrc = 3;
    e.src[0] = regOp(word(s, k), 32);
    e.src[1] = immOp(8 * pos);
    e.src[2] = immOp(8 * bytes);
    out.push_back(e);
    if (t != d) {
      Instr c = mk(Op::Cvt, dbits == 16 ? (sgn ? Type::S16 : Type::U16) : (sgn ? Type::S64 : Type::U64), at);
      c.type2 = sgn ? Type::S32 : Type::U32;
      c.ndst = 1;
      c.dst[0] = regOp(d, dbits);
      c.nsrc = 1;
      c.src[0] = regOp(t, 32);
      out.push_back(c);
    }
  } else {
    fail(at, fmt::format("a {}-byte access at offset {} of a register-passed parameter is not supported", bytes, off));
  }
}

void Lowerer::writeStore(std::vector<Instr>& out, const Instr& at, Store& s, int64_t off, unsigned bytes,
                         Operand src) {
  if (s.pair) {
    if (off != 0 || bytes != 8) fail(at, "partial access to a 64-bit register parameter");
    emitMov(out, at, s.pair_vreg, 64, src);
    cur_written_[s.bit] = cur_written_[s.bit + 1] = true;
    return;
  }
  if (off < 0 || off + static_cast<int64_t>(bytes) > 4 * static_cast<int64_t>(s.nregs)) fail(at, "parameter access out of its bounds");
  const uint32_t k = static_cast<uint32_t>(off / 4), pos = static_cast<uint32_t>(off % 4);
  if (bytes == 4 && pos == 0) {
    if (src.kind == OperandKind::Reg) src.mbits = 32;
    emitMov(out, at, word(s, k), 32, src);
  } else if (bytes == 8 && pos == 0) {
    cur_written_[s.bit + k + 1] = true;
    if (src.kind == OperandKind::Imm) {
      emitMov(out, at, word(s, k), 32, immOp(src.imm & 0xffffffff));
      emitMov(out, at, word(s, k + 1), 32, immOp((src.imm >> 32) & 0xffffffff));
    } else {
      Instr in = mk(Op::Mov, Type::B64, at);
      in.ndst = 1;
      in.dst[0].kind = OperandKind::Vec;
      in.dst[0].vec_n = 2;
      in.dst[0].regs[0] = word(s, k);
      in.dst[0].regs[1] = word(s, k + 1);
      in.dst[0].mbits = 32;
      in.nsrc = 1;
      in.src[0] = src;
      out.push_back(in);
    }
  } else if (bytes < 4 && pos + bytes <= 4) {
    Operand v = src;
    if (src.kind == OperandKind::Reg && src.mbits != 32) {
      const uint32_t t = mf_.newVreg(Type::B32, 32);
      Instr c = mk(Op::Cvt, Type::U32, at);
      c.type2 = src.mbits == 16 ? Type::U16 : Type::U64;
      c.ndst = 1;
      c.dst[0] = regOp(t, 32);
      c.nsrc = 1;
      c.src[0] = src;
      out.push_back(c);
      v = regOp(t, 32);
    }
    const uint32_t w = word(s, k);
    Instr b = mk(Op::Bfi, Type::B32, at);
    b.ndst = 1;
    b.dst[0] = regOp(w, 32);
    b.nsrc = 4;
    b.src[0] = v;
    // The word's other bytes: what earlier stores wrote, or zero when no
    // path so far wrote any (padding, or bytes a later store fills).
    b.src[1] = cur_written_[s.bit + k] ? regOp(w, 32) : immOp(0);
    b.src[2] = immOp(8 * pos);
    b.src[3] = immOp(8 * bytes);
    out.push_back(b);
  } else {
    fail(at, fmt::format("a {}-byte access at offset {} of a register-passed parameter is not supported", bytes, off));
  }
  cur_written_[s.bit + k] = true;
}

// ld.param / st.param on a parameter, result or call-sequence symbol.
void Lowerer::lowerParamAccess(std::vector<Instr>& out, const Instr& in) {
  const Operand& a = in.src[0];
  Store& s = store(a.sym);
  if (!s.in_regs) {
    Instr l = in;
    l.space = Space::Local;
    l.src[0] = spAddr(s.stack + a.imm);
    l.role = MRole::ArgStack;
    out.push_back(l);
    return;
  }
  const unsigned eb = typeBits(in.type) / 8;
  const bool is_ld = in.op == Op::Ld;
  const Operand& val = is_ld ? in.dst[0] : in.src[1];
  if (in.guard.kind == OperandKind::Reg) fail(in, "a guarded ld.param/st.param is not supported by the back end");
  if (val.kind == OperandKind::Vec) {
    for (unsigned i = 0; i < val.vec_n; ++i) {
      Operand e;
      if (val.regs[i] == kNoReg) {
        if (is_ld) continue;
        e = immOp(static_cast<int64_t>(vecImm(val, i, typeBits(in.type))));
      } else {
        e = regOp(val.regs[i], val.mbits);
      }
      if (is_ld) readStore(out, in, s, a.imm + i * eb, eb, e, in.type);
      else writeStore(out, in, s, a.imm + i * eb, eb, e);
    }
    return;
  }
  if (is_ld) readStore(out, in, s, a.imm, eb, val, in.type);
  else writeStore(out, in, s, a.imm, eb, val);
}

void Lowerer::lowerCall(std::vector<Instr>& out, Instr in) {
  CallInfo& c = mf_.fn.calls[in.call];
  // The return address into R20:R21 (machine.h): a token naming the call site.
  emitMov(out, in, physId(mach::kRetAddr), 64,
          immOp(static_cast<int64_t>((uint64_t{mf_.index} << 32) | in.call)));
  c.machine_uses.push_back(physId(mach::kRetAddr));
  c.machine_uses.push_back(physId(mach::kRetAddr + 1));
  // Only the words the call sequence wrote are moved. A word it never wrote
  // (padding; a whole .param nvcc declares for a parameter the callee does
  // not use, under -rdc, and stores nothing in) is passed as whatever its
  // register holds.
  for (uint32_t sym : c.args) {
    Store& s = store(sym);
    if (!s.in_regs) continue;
    if (s.pair) {
      if (!cur_written_[s.bit]) continue;
      Instr mv = mk(Op::Mov, Type::B64, in);
      mv.ndst = 1;
      mv.dst[0] = regOp(physId(s.first), 64);
      mv.nsrc = 1;
      mv.src[0] = regOp(s.pair_vreg, 64);
      out.push_back(mv);
      c.machine_uses.push_back(physId(s.first));
      c.machine_uses.push_back(physId(s.first + 1));
      continue;
    }
    for (uint32_t j = 0; j < s.nregs; ++j) {
      if (!cur_written_[s.bit + j]) continue;
      emitMov(out, in, physId(s.first + j), 32, regOp(word(s, j), 32));
      c.machine_uses.push_back(physId(s.first + j));
    }
  }
  std::vector<Instr> after;
  for (uint32_t sym : c.rets) {
    Store& s = store(sym);
    if (!s.in_regs) continue;
    for (uint32_t j = 0; j < s.nregs; ++j) c.machine_defs.push_back(physId(s.first + j));
    if (s.pair) {
      emitMov(after, in, s.pair_vreg, 64, regOp(physId(s.first), 64));
      continue;
    }
    for (uint32_t j = 0; j < s.nregs; ++j) emitMov(after, in, word(s, j), 32, regOp(physId(s.first + j), 32));
  }
  c.args.clear();
  c.rets.clear();
  out.push_back(in);
  out.insert(out.end(), after.begin(), after.end());
}

// Every word the function returns (ret_uses) goes into its register: the
// value written, or 0 where no path to this ret wrote it.
void Lowerer::lowerRet(std::vector<Instr>& out, const Instr& in) {
  for (uint32_t sym : own_rets_) {
    Store& s = store(sym);
    if (!s.in_regs) continue;
    if (s.pair) {
      if (!ever_written_[s.bit]) continue;
      emitMov(out, in, physId(s.first), 64, cur_written_[s.bit] ? regOp(s.pair_vreg, 64) : immOp(0));
      continue;
    }
    for (uint32_t j = 0; j < s.nregs; ++j) {
      if (!ever_written_[s.bit + j]) continue;
      emitMov(out, in, physId(s.first + j), 32, cur_written_[s.bit + j] ? regOp(word(s, j), 32) : immOp(0));
    }
  }
  out.push_back(in);
}

void Lowerer::entryMoves(std::vector<Instr>& out) {
  const Instr at = mf_.fn.blocks[0].instrs.empty() ? Instr{} : mf_.fn.blocks[0].instrs[0];
  for (uint32_t sym : own_params_) {
    Store& s = store(sym);
    if (!s.in_regs) continue;
    if (s.pair) {
      emitMov(out, at, s.pair_vreg, 64, regOp(physId(s.first), 64));
      continue;
    }
    for (uint32_t j = 0; j < s.nregs; ++j) emitMov(out, at, word(s, j), 32, regOp(physId(s.first + j), 32));
  }
}

}  // namespace rfsim::backend::lowering

namespace rfsim::backend {

uint32_t ownStackAlign(const ptx::Module& m, uint32_t index) {
  const ptx::Function& fn = m.functions[index];
  uint32_t a = 8;
  for (uint32_t s : fn.locals)
    if (m.symbols[s].space == ptx::Space::Local) a = std::max(a, localAlign(m.symbols[s]));
  for (const ptx::CallInfo& c : fn.calls) {
    const auto [pl, rl] = lowering::callLayouts(m, c);
    if (pl.stack_bytes) a = std::max(a, pl.stack_align);
    if (rl.stack_bytes) a = std::max(a, rl.stack_align);
  }
  return a;
}

}  // namespace rfsim::backend
