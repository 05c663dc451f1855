// Lowering a PTX function to the working form over values (lower.h).
#include "backend/lower.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/analysis/cfg.h"
#include "ptx/isa_ext.h"

namespace rfsim::backend {

using namespace ptx;
namespace mach = ptx::mach;

mach::ParamShape paramShape(const Symbol& s) {
  const uint32_t natural = std::max(1u, typeBits(s.type) / 8);
  return {s.size, s.align ? s.align : natural};
}

namespace {

Type typeOfBits(unsigned bits) {
  switch (bits) {
    case 1: return Type::Pred;
    case 16: return Type::B16;
    case 64: return Type::B64;
    default: return Type::B32;
  }
}

Operand regOp(uint32_t v, unsigned bits) { return regOperand(v, bits); }
Operand immOp(int64_t v) { return immOperand(v); }
Operand spAddr(int64_t off) { return stackAddr(physId(mach::kSP), off); }

// Where one parameter-like symbol's bytes live inside this function.
struct Store {
  bool in_regs = false;
  uint32_t first = 0, nregs = 0;  // argument registers
  bool pair = false;              // a 64-bit scalar kept in one pair value
  uint32_t pair_vreg = kNoReg;
  bool pair_written = false;      // a st.param wrote pair_vreg
  std::vector<uint32_t> words;    // 32-bit values, one per register
  int64_t stack = 0;              // !in_regs: R1-relative offset of byte 0
};

class Lowerer {
 public:
  Lowerer(const Module& m, uint32_t index) : m_(m), src_(m.functions[index]) {
    mf_.index = index;
    mf_.fn = src_;
  }

  MFunction run();

 private:
  [[noreturn]] void fail(const Instr& in, const std::string& what) const {
    throw Error(fmt::format("{}:{}: {} {}: {}", m_.file, in.loc.line, src_.is_entry ? "kernel" : "function",
                            src_.name, what));
  }
  void setWidths();
  void ensureEntryBlock();
  void scanAccesses();
  void placeOwnParams();
  void placeCalls();
  Store& store(uint32_t sym) { return stores_.at(sym); }
  uint32_t word(Store& s, uint32_t k) {
    if (s.words[k] == kNoReg) s.words[k] = mf_.newVreg(Type::B32, 32);
    return s.words[k];
  }
  void makeStore(uint32_t sym, const mach::ParamLoc& loc, int64_t stack_base);

  Instr mk(Op op, Type t, const Instr& at, MRole role = MRole::ArgMove) const {
    Instr in;
    in.op = op;
    in.type = t;
    in.loc = at.loc;
    in.role = role;
    return in;
  }
  void emitMov(std::vector<Instr>& out, const Instr& at, uint32_t dst, unsigned dbits, const Operand& src);
  void readStore(std::vector<Instr>& out, const Instr& at, Store& s, int64_t off, unsigned bytes, const Operand& dst,
                 Type type);
  void writeStore(std::vector<Instr>& out, const Instr& at, Store& s, int64_t off, unsigned bytes, Operand src,
                  Type type);
  void lowerParamAccess(std::vector<Instr>& out, const Instr& in);
  void lowerCall(std::vector<Instr>& out, Instr in);
  void lowerRet(std::vector<Instr>& out, const Instr& in);
  bool lowerLocalSymbols(std::vector<Instr>& out, Instr& in);
  void entryMoves(std::vector<Instr>& out);
  void pinExtRegisters();

  const Module& m_;
  const Function& src_;
  MFunction mf_;
  std::map<uint32_t, Store> stores_;          // by symbol
  std::map<uint32_t, bool> only_whole64_;     // symbol: every access is 8 bytes at offset 0
  std::map<uint32_t, uint32_t> local_off_;    // .local symbol -> offset in the frame
  std::vector<uint32_t> own_params_, own_rets_;
};

void Lowerer::setWidths() {
  const size_t n = mf_.fn.regs.size();
  mf_.vbits.resize(n);
  mf_.origin.resize(n);
  for (size_t v = 0; v < n; ++v) {
    mf_.origin[v] = static_cast<uint32_t>(v);
    try {
      mf_.vbits[v] = machineBits(mf_.fn.regs[v].type);
    } catch (const Error& e) {
      throw Error(fmt::format("{}:{}: function {}: register {}: {}", m_.file, src_.loc.line, src_.name,
                              mf_.fn.regs[v].name, e.what()));
    }
  }
  auto set = [&](Operand& o) {
    switch (o.kind) {
      case OperandKind::Reg: case OperandKind::PredOut: case OperandKind::Addr:
        if (o.regs[0] != kNoReg) o.mbits = static_cast<uint8_t>(mf_.vbits[o.regs[0]]);
        break;
      case OperandKind::Vec:
        for (unsigned i = 0; i < o.vec_n; ++i)
          if (o.regs[i] != kNoReg) o.mbits = static_cast<uint8_t>(mf_.vbits[o.regs[i]]);
        break;
      default: break;
    }
  };
  for (auto& bb : mf_.fn.blocks)
    for (auto& in : bb.instrs) {
      if (in.guard.kind == OperandKind::Reg) in.guard.mbits = 1;
      for (unsigned i = 0; i < in.ndst; ++i) set(in.dst[i]);
      for (unsigned k = 0; k < in.nsrc; ++k) set(in.src[k]);
      // A vector of immediates only: the element width of the access.
      for (unsigned k = 0; k < in.nsrc; ++k)
        if (in.src[k].kind == OperandKind::Vec && in.src[k].mbits == 0) {
          const unsigned w = in.op == Op::Mov ? typeBits(in.type) / in.src[k].vec_n : typeBits(in.type);
          in.src[k].mbits = static_cast<uint8_t>(w <= 16 ? 16 : w <= 32 ? 32 : 64);
        }
    }
}

// Prologues run once: block 0 must not be a branch target.
void Lowerer::ensureEntryBlock() {
  Function& fn = mf_.fn;
  buildCfg(fn);
  if (fn.blocks.empty() || fn.blocks[0].preds.empty()) return;
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      for (unsigned k = 0; k < in.nsrc; ++k)
        if (in.src[k].kind == OperandKind::Label) in.src[k].block += 1;
  fn.blocks.insert(fn.blocks.begin(), BasicBlock{});
  fn.blocks[0].label = "$entry";
  buildCfg(fn);
}

void Lowerer::scanAccesses() {
  for (const auto& bb : src_.blocks)
    for (const auto& in : bb.instrs) {
      if ((in.op != Op::Ld && in.op != Op::St) || in.space != Space::Param) continue;
      const Operand& a = in.src[0];
      if (a.kind != OperandKind::Addr || a.sym == kNoSym) continue;
      const bool whole = in.mods.vec == 1 && typeBits(in.type) == 64 && a.imm == 0;
      auto it = only_whole64_.find(a.sym);
      if (it == only_whole64_.end()) only_whole64_[a.sym] = whole;
      else it->second = it->second && whole;
    }
}

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
  mf_.in_args_bytes = pl.stack_bytes + rl.stack_bytes;
  for (size_t i = 0; i < src_.params.size(); ++i) {
    makeStore(src_.params[i], pl.locs[i], kIncomingBias);
    own_params_.push_back(src_.params[i]);
  }
  for (size_t i = 0; i < src_.rets.size(); ++i) {
    makeStore(src_.rets[i], rl.locs[i], kIncomingBias + pl.stack_bytes);
    own_rets_.push_back(src_.rets[i]);
  }
  for (uint32_t s : own_params_) {
    const Store& st = stores_[s];
    for (uint32_t j = 0; j < st.nregs; ++j) mf_.entry_defs.push_back(physId(st.first + j));
  }
  for (uint32_t s : own_rets_) {
    const Store& st = stores_[s];
    for (uint32_t j = 0; j < st.nregs; ++j) mf_.ret_uses.push_back(physId(st.first + j));
  }
}

// The argument and result symbols of every call site, laid out by the
// callee's declaration (direct calls) or by the symbols themselves.
void Lowerer::placeCalls() {
  for (const auto& c : src_.calls) {
    std::vector<mach::ParamShape> ps, rs;
    const Function* callee = c.indirect ? nullptr : &m_.functions[c.callee];
    for (size_t i = 0; i < c.args.size(); ++i) {
      const uint32_t s = callee && i < callee->params.size() ? callee->params[i] : c.args[i];
      ps.push_back(paramShape(m_.symbols[s]));
    }
    for (size_t i = 0; i < c.rets.size(); ++i) {
      const uint32_t s = callee && i < callee->rets.size() ? callee->rets[i] : c.rets[i];
      rs.push_back(paramShape(m_.symbols[s]));
    }
    const mach::ParamLayout pl = mach::layoutParams(ps), rl = mach::layoutParams(rs);
    mf_.out_args_bytes = std::max(mf_.out_args_bytes, pl.stack_bytes + rl.stack_bytes);
    for (size_t i = 0; i < c.args.size(); ++i)
      if (!stores_.count(c.args[i])) makeStore(c.args[i], pl.locs[i], 0);
    for (size_t i = 0; i < c.rets.size(); ++i)
      if (!stores_.count(c.rets[i])) makeStore(c.rets[i], rl.locs[i], pl.stack_bytes);
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

void Lowerer::writeStore(std::vector<Instr>& out, const Instr& at, Store& s, int64_t off, unsigned bytes, Operand src,
                         Type type) {
  (void)type;
  if (s.pair) {
    if (off != 0 || bytes != 8) fail(at, "partial access to a 64-bit register parameter");
    emitMov(out, at, s.pair_vreg, 64, src);
    s.pair_written = true;
    return;
  }
  if (off < 0 || off + static_cast<int64_t>(bytes) > 4 * static_cast<int64_t>(s.nregs)) fail(at, "parameter access out of its bounds");
  const uint32_t k = static_cast<uint32_t>(off / 4), pos = static_cast<uint32_t>(off % 4);
  if (bytes == 4 && pos == 0) {
    if (src.kind == OperandKind::Reg) src.mbits = 32;
    emitMov(out, at, word(s, k), 32, src);
  } else if (bytes == 8 && pos == 0) {
    if (src.kind == OperandKind::Imm) {
      emitMov(out, at, word(s, k), 32, immOp(src.imm & 0xffffffff));
      emitMov(out, at, word(s, k + 1), 32, immOp((src.imm >> 32) & 0xffffffff));
      return;
    }
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
    b.src[1] = regOp(w, 32);
    b.src[2] = immOp(8 * pos);
    b.src[3] = immOp(8 * bytes);
    out.push_back(b);
  } else {
    fail(at, fmt::format("a {}-byte access at offset {} of a register-passed parameter is not supported", bytes, off));
  }
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
        const unsigned w = typeBits(in.type);
        e = immOp(static_cast<int64_t>((static_cast<uint64_t>(val.imm) >> (i * w)) & (w == 64 ? ~0ull : (1ull << w) - 1)));
      } else {
        e = regOp(val.regs[i], val.mbits);
      }
      if (is_ld) readStore(out, in, s, a.imm + i * eb, eb, e, in.type);
      else writeStore(out, in, s, a.imm + i * eb, eb, e, in.type);
    }
    return;
  }
  if (is_ld) readStore(out, in, s, a.imm, eb, val, in.type);
  else writeStore(out, in, s, a.imm, eb, val, in.type);
}

void Lowerer::lowerCall(std::vector<Instr>& out, Instr in) {
  CallInfo& c = mf_.fn.calls[in.call];
  // The return address into R20:R21 (machine.h): a token naming the call site.
  emitMov(out, in, physId(mach::kRetAddr), 64,
          immOp(static_cast<int64_t>((uint64_t{mf_.index} << 32) | in.call)));
  c.machine_uses.push_back(physId(mach::kRetAddr));
  c.machine_uses.push_back(physId(mach::kRetAddr + 1));
  // An argument the call sequence never wrote (nvcc declares a .param for
  // a parameter the callee does not use, under -rdc, and stores nothing in
  // it) is passed as whatever its register holds: nothing is moved.
  for (uint32_t sym : c.args) {
    Store& s = store(sym);
    if (!s.in_regs) continue;
    if (s.pair && !s.pair_written) continue;
    if (s.pair) {
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
      if (s.words[j] == kNoReg) continue;
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

void Lowerer::lowerRet(std::vector<Instr>& out, const Instr& in) {
  for (uint32_t sym : own_rets_) {
    Store& s = store(sym);
    if (!s.in_regs) continue;
    if (s.pair) {
      Instr mv = mk(Op::Mov, Type::B64, in);
      mv.ndst = 1;
      mv.dst[0] = regOp(physId(s.first), 64);
      mv.nsrc = 1;
      mv.src[0] = regOp(s.pair_vreg, 64);
      out.push_back(mv);
      continue;
    }
    for (uint32_t j = 0; j < s.nregs; ++j) emitMov(out, in, physId(s.first + j), 32, regOp(word(s, j), 32));
  }
  out.push_back(in);
}

// `mov %rd, __local_depot0` and [__local_depot0 + k]: R1-relative.
bool Lowerer::lowerLocalSymbols(std::vector<Instr>& out, Instr& in) {
  for (unsigned k = 0; k < in.nsrc; ++k) {
    Operand& o = in.src[k];
    if ((o.kind != OperandKind::Sym && o.kind != OperandKind::Addr) || o.sym == kNoSym) continue;
    const Symbol& s = m_.symbols[o.sym];
    if (s.space == Space::Param && s.owner >= 0 && !src_.is_entry && o.kind == OperandKind::Sym)
      fail(in, fmt::format("the address of parameter '{}' is taken; the back end passes parameters in registers",
                           s.name));
    if (s.space != Space::Local) continue;
    if (s.owner < 0) fail(in, fmt::format("module-scope .local variable '{}' is not supported by the back end", s.name));
    auto it = local_off_.find(o.sym);
    if (it == local_off_.end()) fail(in, fmt::format("internal: .local '{}' has no frame offset", s.name));
    const int64_t off = static_cast<int64_t>(mf_.out_args_bytes) + it->second;
    if (o.kind == OperandKind::Addr) {
      const int64_t imm = o.imm;
      o = spAddr(off + imm);
      continue;
    }
    // A symbol's address as a value: only `mov d, sym` is expected.
    if (in.op != Op::Mov || in.ndst != 1 || in.dst[0].kind != OperandKind::Reg)
      fail(in, fmt::format("the address of .local '{}' is used in an unsupported way", s.name));
    const Operand d = in.dst[0];
    Instr c = in;
    c.op = Op::Cvt;
    c.type = d.mbits == 64 ? Type::U64 : Type::U32;
    c.type2 = Type::U32;
    c.src[0] = regOp(physId(mach::kSP), 32);
    if (d.mbits == 32) c.op = Op::Mov, c.type = Type::B32;
    out.push_back(c);
    Instr add = in;
    add.op = Op::Add;
    add.type = c.type == Type::U64 ? Type::U64 : Type::U32;
    add.nsrc = 2;
    add.src[0] = d;
    add.src[1] = immOp(off);
    out.push_back(add);
    return true;
  }
  return false;
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

MFunction Lowerer::run() {
  setWidths();
  ensureEntryBlock();
  scanAccesses();
  placeOwnParams();
  placeCalls();
  // .local variables: after the outgoing-argument area.
  uint32_t loff = 0;
  for (uint32_t s : src_.locals) {
    const Symbol& y = m_.symbols[s];
    if (y.space != Space::Local) continue;
    const uint32_t a = std::max<uint32_t>(y.align ? y.align : std::max(1u, typeBits(y.type) / 8), 4);
    loff = mach::alignUp(loff, a);
    local_off_[s] = loff;
    mf_.local_off.emplace_back(s, loff);
    loff += static_cast<uint32_t>(y.size);
  }
  mf_.locals_bytes = mach::alignUp(loff, 8);

  Function& fn = mf_.fn;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    std::vector<Instr> out;
    if (b == 0) entryMoves(out);
    for (Instr in : fn.blocks[b].instrs) {
      if (lowerLocalSymbols(out, in)) continue;
      if ((in.op == Op::Ld || in.op == Op::St) && in.space == Space::Param && in.src[0].kind == OperandKind::Addr &&
          in.src[0].sym != kNoSym && stores_.count(in.src[0].sym)) {
        lowerParamAccess(out, in);
      } else if (in.op == Op::Call) {
        lowerCall(out, in);
      } else if (in.op == Op::Ret && !src_.is_entry) {
        lowerRet(out, in);
      } else {
        if ((in.op == Op::Ld || in.op == Op::St) && in.space == Space::Param && !src_.is_entry)
          fail(in, "ld.param/st.param on a symbol that is neither a parameter nor a call argument");
        out.push_back(in);
      }
    }
    fn.blocks[b].instrs = std::move(out);
  }
  pinExtRegisters();
  buildCfg(fn);
  return std::move(mf_);
}

// Virtual registers a PTX-level pass pinned to an extension class's register
// (RegInfo::ext_reg, ptx/isa_ext.h) become that machine register here,
// already coloured: the allocator never sees them.
void Lowerer::pinExtRegisters() {
  Function& fn = mf_.fn;
  const uint32_t nsrc = static_cast<uint32_t>(src_.regs.size());
  bool any = false;
  for (uint32_t v = 0; v < nsrc; ++v) {
    const uint32_t x = src_.regs[v].ext_reg;
    if (!x) continue;
    any = true;
    if (!mach::isExtReg(x) || !ptx::extRegClassOf(x))
      throw Error(fmt::format("{}: {} {}: register {} is pinned to {}, which is not a register of an extension class",
                              m_.file, src_.is_entry ? "kernel" : "function", src_.name, src_.regs[v].name,
                              mach::regName(x)));
    if (typeBits(src_.regs[v].type) != 32)
      throw Error(fmt::format("{}: {} {}: register {} ({} bits) is pinned to {}: extension-class registers hold "
                              "32 bits",
                              m_.file, src_.is_entry ? "kernel" : "function", src_.name, src_.regs[v].name,
                              typeBits(src_.regs[v].type), mach::regName(x)));
  }
  if (!any) return;
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      forEachSlot(in, fn, [&](const Slot& s) {
        if (*s.reg < nsrc && src_.regs[*s.reg].ext_reg) *s.reg = physId(src_.regs[*s.reg].ext_reg);
      });
}

}  // namespace

MFunction lowerFunction(const Module& m, uint32_t index) {
  Lowerer l(m, index);
  return l.run();
}

}  // namespace rfsim::backend
