// Lowering a PTX function to the working form over values (lower.h): the
// function as a whole, its .local variables and pinned extension registers;
// the calling convention is in lower_params.cpp.
#include "backend/lower.h"

#include <algorithm>

#include "backend/lower_internal.h"
#include "ptx/analysis/cfg.h"
#include "ptx/isa_ext.h"

namespace rfsim::backend {

using namespace ptx;
namespace mach = ptx::mach;

mach::ParamShape paramShape(const Symbol& s) {
  const uint32_t natural = std::max(1u, typeBits(s.type) / 8);
  return {s.size, s.align ? s.align : natural};
}

uint32_t localAlign(const Symbol& s) {
  return std::max<uint32_t>(s.align ? s.align : std::max(1u, typeBits(s.type) / 8), 4);
}

namespace lowering {

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

MFunction Lowerer::run() {
  setWidths();
  ensureEntryBlock();
  scanAccesses();
  placeOwnParams();
  placeCalls();
  analyzeWrites();
  // .local variables: after the outgoing-argument area, which is made a
  // multiple of their largest alignment (R1 is aligned to it: ownStackAlign).
  uint32_t loff = 0;
  for (uint32_t s : src_.locals)
    if (m_.symbols[s].space == Space::Local)
      mf_.out_args_bytes = mach::alignUp(mf_.out_args_bytes, localAlign(m_.symbols[s]));
  for (uint32_t s : src_.locals) {
    const Symbol& y = m_.symbols[s];
    if (y.space != Space::Local) continue;
    const uint32_t a = localAlign(y);
    loff = mach::alignUp(loff, a);
    local_off_[s] = loff;
    mf_.local_off.emplace_back(s, loff);
    loff += static_cast<uint32_t>(y.size);
  }
  mf_.locals_bytes = mach::alignUp(loff, 8);

  Function& fn = mf_.fn;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    std::vector<Instr> out;
    cur_written_ = written_in_[b];
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
    // A 64-bit register takes the pair x, x+1 of its class, x even within it.
    const unsigned bits = typeBits(src_.regs[v].type);
    const ptx::ExtRegClassDesc* cls = ptx::extRegClassOf(x);
    if (bits != 32 && !(bits == 64 && (x - cls->first) % 2 == 0 && x + 1 < cls->first + cls->count))
      throw Error(fmt::format("{}: {} {}: register {} ({} bits) is pinned to {}: extension-class registers hold "
                              "32 bits, or 64 as a pair starting at an even register of the class",
                              m_.file, src_.is_entry ? "kernel" : "function", src_.name, src_.regs[v].name,
                              bits, mach::regName(x)));
  }
  if (!any) return;
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      forEachSlot(in, fn, [&](const Slot& s) {
        if (*s.reg < nsrc && src_.regs[*s.reg].ext_reg) *s.reg = physId(src_.regs[*s.reg].ext_reg);
      });
}

}  // namespace lowering

MFunction lowerFunction(const Module& m, uint32_t index) {
  lowering::Lowerer l(m, index);
  return l.run();
}

}  // namespace rfsim::backend
