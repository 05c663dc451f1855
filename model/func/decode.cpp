#include "func/decode.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "func/memory.h"
#include "func/semantics/semantics.h"
#include "ptx/analysis/dominators.h"
#include "ptx/analysis/printer.h"
#include "ptx/isa_ext.h"

namespace rfsim::func {

using ptx::Op;
using ptx::OperandKind;
using ptx::Space;
using ptx::Type;

std::string mnemonic(const ptx::Instr& in) {
  std::string s = ptx::opName(in.op);
  if (in.space != Space::None && in.space != Space::Generic && in.space != Space::Reg) {
    s += '.';
    s += ptx::spaceName(in.space);
  }
  if (in.mods.vec > 1) s += fmt::format(".v{}", in.mods.vec);
  if (in.type != Type::None) {
    s += '.';
    s += ptx::typeName(in.type);
  }
  return s;
}

namespace {

uint64_t widthMask(unsigned bits) {
  return bits >= 64 || bits == 0 ? ~0ull : (1ull << bits) - 1;
}

struct Decoder {
  const ptx::Module& m;
  const ptx::Function& fn;
  const std::vector<SymbolPlace>& places;
  const std::string& file;
  DFunction& out;

  [[noreturn]] void reject(const ptx::Instr& in, const std::string& why) const {
    throw Error(fmt::format("{}:{}: unsupported instruction '{}' in {}: {}", file, in.loc.line,
                            ptx::printInstr(m, fn, in), fn.name, why));
  }

  void checkReg(const ptx::Instr& in, uint32_t r) const {
    if (r != ptx::kNoReg && r >= fn.regs.size())
      reject(in, fmt::format("register {} out of range ({} registers)", r, fn.regs.size()));
  }

  // A symbol's address. `generic`: the instruction takes a generic address
  // (ld/st/atom without a state space), so the symbol's own space address is
  // moved into its generic window.
  DOperand symbol(const ptx::Instr& in, uint32_t sym, int64_t off, bool generic) const {
    if (sym >= places.size()) reject(in, fmt::format("symbol {} out of range", sym));
    const SymbolPlace& p = places[sym];
    DOperand d;
    d.kind = DKind::Const;
    const uint64_t o = static_cast<uint64_t>(off);
    switch (p.place) {
      case Place::Global: case Place::Code: d.value = p.addr + o; break;
      case Place::Shared: d.value = (generic ? kSharedWindow : 0) + p.addr + o; break;
      case Place::KernelParam: d.value = (generic ? kParamWindow : 0) + p.addr + o; break;
      case Place::ModuleLocal: d.value = (generic ? kLocalWindow : 0) + p.addr + o; break;
      case Place::FrameLocal:
        if (m.machine) rejectFrameSymbol(in, sym);
        d.kind = DKind::Local;
        d.value = (generic ? kLocalWindow : 0) + p.addr + o;
        break;
      case Place::FrameParam:
        if (m.machine) rejectFrameSymbol(in, sym);
        if (generic) reject(in, "generic address of a .func parameter");
        d.kind = DKind::FrameParam;
        d.value = p.addr + o;
        break;
      case Place::None:
        reject(in, fmt::format("symbol '{}' has no address", m.symbols[sym].name));
    }
    return d;
  }

  [[noreturn]] void rejectFrameSymbol(const ptx::Instr& in, uint32_t sym) const {
    reject(in, fmt::format("internal error: '{}' is a .local or .func .param symbol, which a machine program "
                           "must address through R1 (the back end lowers them)", m.symbols[sym].name));
  }

  // Machine programs: register r read or written at the operand's width
  // (Operand::mbits), plus the address offset `off`.
  DOperand machineReg(const ptx::Instr& in, const ptx::Operand& o, uint32_t r, bool dst, int64_t off) const {
    namespace mach = ptx::mach;
    checkReg(in, r);
    const unsigned bits = o.mbits;
    if (bits != 1 && bits != 16 && bits != 32 && bits != 64)
      reject(in, fmt::format("register operand {} without a machine width (mbits {})", mach::regName(r), bits));
    if ((bits == 1) != mach::isPred(r))
      reject(in, fmt::format("register {} used as a {}-bit operand", mach::regName(r), bits));
    DOperand d;
    d.negate = o.negate;
    d.value = static_cast<uint64_t>(off);
    if (bits == 64) {
      if (r == mach::kRZ) {
        if (dst) {
          d.kind = DKind::RegPair;
          d.reg = kSinkReg;
        } else {
          d.kind = DKind::Const;  // RZ as a 64-bit source: zero
        }
        return d;
      }
      if (mach::isExtReg(r)) {
        // An extension class's pair: two of its registers, from an even one.
        const ptx::ExtRegClassDesc* c = ptx::extRegClassOf(r);
        if (!c || (r - c->first) % 2 || r + 1 >= c->first + c->count)
          reject(in, fmt::format("64-bit operand {}: a pair must start at an even register of its class, below "
                                 "its last",
                                 mach::regName(r)));
      } else if (r % 2 || r + 1 >= mach::kRZ) {
        reject(in, fmt::format("64-bit operand {}: a pair must start at an even register below R254",
                               mach::regName(r)));
      }
      d.kind = DKind::RegPair;
      d.reg = r;
      return d;
    }
    d.kind = DKind::Reg;
    d.reg = r;
    d.mask = widthMask(bits);
    if (dst && r == mach::kRZ) {
      d.reg = kSinkReg;
    } else if (!dst && bits == 16) {
      d.kind = DKind::RegNarrow;
    }
    return d;
  }

  DOperand machineVec(const ptx::Instr& in, const ptx::Operand& o, bool dst) const {
    DOperand d;
    d.kind = DKind::Vec;
    d.vec_n = o.vec_n;
    d.value = static_cast<uint64_t>(o.imm);
    d.value_hi = static_cast<uint64_t>(o.imm_hi);
    for (unsigned i = 0; i < o.vec_n && i < 4; ++i) {
      if (o.regs[i] == ptx::kNoReg) continue;
      const DOperand e = machineReg(in, o, o.regs[i], dst, 0);
      d.pair = e.kind == DKind::RegPair || o.mbits == 64;
      // A source RZ pair is a zero immediate element.
      d.regs[i] = e.kind == DKind::Const ? ptx::kNoReg : e.reg;
      d.masks[i] = d.pair ? 0xffffffffull : e.mask;
    }
    return d;
  }

  DOperand source(const ptx::Instr& in, const ptx::Operand& o, bool generic) const {
    DOperand d;
    if (m.machine) {
      if (o.kind == OperandKind::Reg) return machineReg(in, o, o.regs[0], false, 0);
      if (o.kind == OperandKind::Addr && o.regs[0] != ptx::kNoReg) return machineReg(in, o, o.regs[0], false, o.imm);
      if (o.kind == OperandKind::Vec) return machineVec(in, o, false);
    }
    switch (o.kind) {
      case OperandKind::Reg:
        checkReg(in, o.regs[0]);
        d.kind = DKind::Reg;
        d.reg = o.regs[0];
        d.negate = o.negate;
        return d;
      case OperandKind::Imm:
        d.kind = DKind::Const;
        d.value = static_cast<uint64_t>(o.imm);
        return d;
      case OperandKind::SReg:
        if (o.sreg == ptx::SReg::Envreg || o.sreg == ptx::SReg::None)
          reject(in, "special register not supported");
        d.kind = DKind::SReg;
        d.sreg = o.sreg;
        d.dim = o.dim;
        return d;
      case OperandKind::Sym:
        return symbol(in, o.sym, o.imm, generic);
      case OperandKind::Addr:
        if (o.regs[0] != ptx::kNoReg) {
          checkReg(in, o.regs[0]);
          d.kind = DKind::Reg;
          d.reg = o.regs[0];
          d.value = static_cast<uint64_t>(o.imm);
          return d;
        }
        if (o.sym != ptx::kNoSym) return symbol(in, o.sym, o.imm, generic);
        d.kind = DKind::Const;
        d.value = static_cast<uint64_t>(o.imm);
        return d;
      case OperandKind::Vec:
        d.kind = DKind::Vec;
        d.vec_n = o.vec_n;
        d.value = static_cast<uint64_t>(o.imm);  // kNoReg source elements: immediates packed here
        d.value_hi = static_cast<uint64_t>(o.imm_hi);
        for (unsigned i = 0; i < o.vec_n && i < 4; ++i) {
          checkReg(in, o.regs[i]);
          d.regs[i] = o.regs[i];
          if (o.regs[i] != ptx::kNoReg) d.masks[i] = out.reg_mask[o.regs[i]];
        }
        return d;
      default:
        reject(in, "operand kind not supported here");
    }
  }

  DOperand dest(const ptx::Instr& in, const ptx::Operand& o) const {
    DOperand d;
    if (o.kind == OperandKind::Reg || o.kind == OperandKind::PredOut) {
      if (o.regs[0] == ptx::kNoReg) return d;  // `_` sink
      if (m.machine) return machineReg(in, o, o.regs[0], true, 0);
      checkReg(in, o.regs[0]);
      d.kind = DKind::Reg;
      d.reg = o.regs[0];
      d.mask = out.reg_mask[o.regs[0]];
      return d;
    }
    if (o.kind == OperandKind::Vec) return m.machine ? machineVec(in, o, true) : source(in, o, false);
    reject(in, "destination must be a register");
  }

  void memoryAccess(const ptx::Instr& in, DInstr& d) const {
    const unsigned bits = ptx::typeBits(in.type);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
      reject(in, fmt::format("{}-bit accesses are not supported", bits));
    d.bytes = static_cast<uint8_t>(bits / 8);
    if (in.mods.vec != 1 && in.mods.vec != 2 && in.mods.vec != 4)
      reject(in, fmt::format("vector of {}", in.mods.vec));
  }

  // The address addend of ld/st (ptx::Mods::uaddr): a 32- or 64-bit
  // register, the instruction's last source.
  void addend(const ptx::Instr& in, DInstr& d) const {
    if (!in.mods.uaddr) return;
    const uint8_t k = static_cast<uint8_t>(in.nsrc - 1);
    const ptx::Operand& o = in.src[k];
    if (o.kind != OperandKind::Reg || o.regs[0] == ptx::kNoReg) reject(in, "an address addend must be a register");
    d.src[k] = source(in, o, false);  // checks the register
    const unsigned bits = m.machine ? (o.mbits == 64 ? 64u : 32u) : ptx::typeBits(fn.regs[o.regs[0]].type);
    if (bits != 32 && bits != 64) reject(in, "an address addend must be a 32- or 64-bit register");
    d.addend = k;
    d.addend_bits = static_cast<uint8_t>(bits);
  }

  void checkAtom(const ptx::Instr& in) const {
    using ptx::AtomOp;
    if (in.space != Space::Generic && in.space != Space::Global && in.space != Space::Shared &&
        in.space != Space::None)
      reject(in, "atomics need a generic, global or shared address");
    const Type t = in.type;
    const unsigned bits = ptx::typeBits(t);
    const bool int32 = t == Type::U32 || t == Type::S32 || t == Type::B32;
    const bool int64 = t == Type::U64 || t == Type::S64 || t == Type::B64;
    bool ok = false;
    switch (in.mods.atom) {
      case AtomOp::Add: ok = int32 || int64 || t == Type::F32 || t == Type::F64; break;
      case AtomOp::Min: case AtomOp::Max: ok = int32 || int64; break;
      case AtomOp::Exch: case AtomOp::Cas: case AtomOp::And: case AtomOp::Or: case AtomOp::Xor:
        ok = bits == 32 || bits == 64;
        ok = ok && !ptx::isFloat(t);
        break;
      case AtomOp::Inc: case AtomOp::Dec: ok = t == Type::U32 || t == Type::S32 || t == Type::B32; break;
      case AtomOp::None: break;
    }
    if (!ok) reject(in, "atomic operation/type combination not supported");
  }

  DInstr decode(const ptx::Instr& in) {
    DInstr d;
    d.in = &in;
    d.op = in.op;
    d.ndst = in.ndst;
    d.nsrc = in.nsrc;
    if (in.ndst > 2 || in.nsrc > 5) reject(in, "too many operands");
    d.role = static_cast<uint8_t>(in.role);
    if (in.guard.kind == OperandKind::Reg) {
      if (m.machine) machineReg(in, in.guard, in.guard.regs[0], false, 0);  // checks a 1-bit P register
      checkReg(in, in.guard.regs[0]);
      d.has_guard = true;
      d.guard_neg = in.guard.negate;
      d.guard_reg = in.guard.regs[0];
    }
    const bool generic = in.space == Space::Generic || in.space == Space::None;
    switch (in.op) {
      case Op::Ld: case Op::Ldu:
        d.cls = Cls::Ld;
        memoryAccess(in, d);
        if (in.space == Space::Reg) reject(in, "state space not supported");
        if (in.ndst != 1 || in.nsrc != 1u + in.mods.uaddr) reject(in, "ld needs one destination and an address");
        d.dst[0] = dest(in, in.dst[0]);
        d.src[0] = source(in, in.src[0], generic);
        addend(in, d);
        return d;
      case Op::St:
        d.cls = Cls::St;
        memoryAccess(in, d);
        if (in.space == Space::Reg || in.space == Space::Const) reject(in, "state space not writable");
        if (in.nsrc != 2u + in.mods.uaddr) reject(in, "st needs an address and a value");
        d.src[0] = source(in, in.src[0], generic);
        d.src[1] = source(in, in.src[1], false);
        addend(in, d);
        return d;
      case Op::Atom: case Op::Red:
        d.cls = in.op == Op::Atom ? Cls::Atom : Cls::Red;
        checkAtom(in);
        d.bytes = static_cast<uint8_t>(ptx::typeBits(in.type) / 8);
        if (in.nsrc < 2 || (in.mods.atom == ptx::AtomOp::Cas && in.nsrc < 3))
          reject(in, "missing operands");
        if (in.op == Op::Atom) {
          if (in.ndst != 1) reject(in, "atom needs a destination");
          d.dst[0] = dest(in, in.dst[0]);
        }
        for (unsigned i = 0; i < in.nsrc; ++i) d.src[i] = source(in, in.src[i], i == 0 && generic);
        return d;
      case Op::Cvta:
        d.cls = Cls::Cvta;
        if (in.space != Space::Global && in.space != Space::Shared && in.space != Space::Local &&
            in.space != Space::Const && in.space != Space::Param)
          reject(in, "cvta needs a state space");
        if (in.ndst != 1 || in.nsrc != 1) reject(in, "cvta needs one source and one destination");
        d.dst[0] = dest(in, in.dst[0]);
        d.src[0] = source(in, in.src[0], false);
        return d;
      case Op::Bra:
        d.cls = Cls::Bra;
        if (in.nsrc < 1 || in.src[0].kind != OperandKind::Label) reject(in, "indirect branches are not supported");
        if (in.src[0].block >= fn.blocks.size()) reject(in, "branch target out of range");
        return d;  // target/rpc filled by the caller
      case Op::Call: {
        d.cls = Cls::Call;
        if (in.call >= fn.calls.size()) reject(in, "call without call information");
        const ptx::CallInfo& ci = fn.calls[in.call];
        d.call = &ci;
        if (m.machine) {
          // Values travel in registers and on the stack, placed by the code.
          if (ci.indirect) {
            ptx::Operand t;
            t.mbits = 64;
            d.src[0] = machineReg(in, t, ci.target_reg, false, 0);
            if (d.src[0].kind != DKind::RegPair) reject(in, "indirect call through RZ");
          } else if (ci.callee >= m.functions.size()) {
            reject(in, "callee out of range");
          } else {
            d.callee = ci.callee;
            const ptx::Function& callee = m.functions[ci.callee];
            if ((callee.is_extern || callee.blocks.empty()) && callee.name != "malloc" && callee.name != "free" &&
                callee.name != "vprintf")
              reject(in, fmt::format("call to external function '{}' which has no body (only malloc, "
                                     "free and vprintf are built in)", callee.name));
          }
          return d;
        }
        if (ci.indirect) {
          checkReg(in, ci.target_reg);
          if (ci.target_reg == ptx::kNoReg) reject(in, "indirect call without a target register");
        } else {
          if (ci.callee >= m.functions.size()) reject(in, "callee out of range");
          d.callee = ci.callee;
          const ptx::Function& callee = m.functions[ci.callee];
          if (callee.is_extern || callee.blocks.empty()) {
            if (callee.name != "malloc" && callee.name != "free" && callee.name != "vprintf")
              reject(in, fmt::format("call to external function '{}' which has no body (only malloc, "
                                     "free and vprintf are built in)", callee.name));
          } else if (ci.args.size() != callee.params.size() || ci.rets.size() > callee.rets.size()) {
            reject(in, fmt::format("call passes {} arguments and {} returns; '{}' has {} and {}",
                                   ci.args.size(), ci.rets.size(), callee.name, callee.params.size(),
                                   callee.rets.size()));
          }
        }
        for (uint32_t s : ci.args) d.arg_off.push_back(frameOffset(in, s));
        for (uint32_t s : ci.rets) d.ret_off.push_back(frameOffset(in, s));
        return d;
      }
      case Op::Ret: d.cls = Cls::Ret; return d;
      case Op::Exit: d.cls = Cls::Exit; return d;
      case Op::Trap: d.cls = Cls::Trap; return d;
      case Op::Brkpt: d.cls = Cls::Brkpt; return d;
      case Op::Membar: case Op::Fence: case Op::Prefetch: case Op::Nanosleep:
        d.cls = Cls::Nop;
        return d;
      case Op::Ext:
        // A mechanism's instruction (ptx/isa_ext.h): no architectural value
        // changes; its effect is the mechanism's hardware's, seen at issue.
        d.cls = Cls::Nop;
        return d;
      case Op::Bar:
        if (in.mods.warp) {
          d.cls = Cls::Nop;  // bar.warp.sync: a warp's threads run in lockstep here
          return d;
        }
        d.cls = Cls::Bar;
        if (in.nsrc < 1 && !in.mods.red_popc && in.mods.boolop == ptx::BoolOp::None) {
          d.src[0].kind = DKind::Const;  // `bar.sync` without an id: barrier 0
          return d;
        }
        for (unsigned i = 0; i < in.nsrc; ++i) d.src[i] = source(in, in.src[i], false);
        if (in.ndst) d.dst[0] = dest(in, in.dst[0]);
        if ((in.mods.red_popc || in.mods.boolop != ptx::BoolOp::None) && (in.ndst != 1 || in.nsrc < 2))
          reject(in, "bar.red needs a destination, a barrier and a predicate");
        return d;
      case Op::Shfl:
        d.cls = Cls::Shfl;
        if (in.mods.shfl == ptx::ShflMode::None) reject(in, "shfl without a mode");
        if (ptx::typeBits(in.type) != 32) reject(in, "shfl moves 32-bit values");
        if (in.nsrc < 3 || in.ndst < 1) reject(in, "shfl needs d, a, b, c");
        for (unsigned i = 0; i < in.ndst; ++i) d.dst[i] = dest(in, in.dst[i]);
        for (unsigned i = 0; i < in.nsrc; ++i) d.src[i] = source(in, in.src[i], false);
        return d;
      case Op::Vote:
        d.cls = Cls::Vote;
        if (in.mods.vote == ptx::VoteMode::None) reject(in, "vote without a mode");
        if (in.nsrc < 1 || in.ndst != 1) reject(in, "vote needs a destination and a predicate");
        d.dst[0] = dest(in, in.dst[0]);
        for (unsigned i = 0; i < in.nsrc; ++i) d.src[i] = source(in, in.src[i], false);
        return d;
      case Op::Activemask:
        d.cls = Cls::Activemask;
        if (in.ndst != 1) reject(in, "activemask needs a destination");
        d.dst[0] = dest(in, in.dst[0]);
        return d;
      case Op::Match:
        reject(in, "match is not supported by the functional model");
      default: break;
    }
    // mov with a vector operand: pack / unpack.
    if (in.op == Op::Mov && ((in.ndst == 1 && in.dst[0].kind == OperandKind::Vec) ||
                             (in.nsrc == 1 && in.src[0].kind == OperandKind::Vec))) {
      d.cls = Cls::MovVec;
      if (in.ndst != 1 || in.nsrc != 1) reject(in, "mov needs one source and one destination");
      d.dst[0] = dest(in, in.dst[0]);
      d.src[0] = source(in, in.src[0], false);
      return d;
    }
    if (!isLaneOp(in.op)) reject(in, "not executed by the functional model");
    std::string why;
    if (!laneSupports(in, &why, /*with_carry=*/true))
      reject(in, why.empty() ? "not supported by the lane semantics" : why);
    d.cls = Cls::Lane;
    d.fn = laneFunction(in);
    d.wfn = in.ndst == 1 ? warpFunction(in) : nullptr;
    d.carry_in = in.mods.carry_in;
    d.carry_out = in.mods.cc;
    for (unsigned i = 0; i < in.ndst; ++i) {
      d.dst[i] = dest(in, in.dst[i]);
      if (d.dst[i].kind == DKind::Vec) reject(in, "vector destination");
    }
    for (unsigned i = 0; i < in.nsrc; ++i) {
      d.src[i] = constBank(in, in.src[i]) ? paramValue(in, in.src[i]) : source(in, in.src[i], false);
      if (d.src[i].kind == DKind::Vec) reject(in, "vector source");
    }
    return d;
  }

  // Machine programs: a kernel parameter (constant bank 0) or a .const
  // variable (bank 3) named as the source of an arithmetic or move
  // instruction is read as a value (backend/prealloc.h: foldParamOperands).
  bool constBank(const ptx::Instr&, const ptx::Operand& o) const {
    if (!m.machine || o.kind != OperandKind::Addr || o.regs[0] != ptx::kNoReg || o.sym == ptx::kNoSym ||
        o.sym >= places.size())
      return false;
    return places[o.sym].place == Place::KernelParam ||
           (places[o.sym].place == Place::Global && m.symbols[o.sym].space == ptx::Space::Const);
  }
  DOperand paramValue(const ptx::Instr& in, const ptx::Operand& o) const {
    if (o.mbits != 32 && o.mbits != 64) reject(in, "a constant-bank operand must be 32 or 64 bits wide");
    DOperand d;
    d.kind = places[o.sym].place == Place::KernelParam ? DKind::ParamVal : DKind::ConstVal;
    d.value = places[o.sym].addr + static_cast<uint64_t>(o.imm);
    d.mask = o.mbits == 64 ? ~0ull : 0xffffffffull;
    return d;
  }

  uint32_t frameOffset(const ptx::Instr& in, uint32_t sym) const {
    if (sym >= places.size() || places[sym].place != Place::FrameParam)
      reject(in, "call argument is not a .param variable of the calling function");
    return static_cast<uint32_t>(places[sym].addr);
  }
};

}  // namespace

void decodeFunction(const ptx::Module& m, uint32_t index, const std::vector<SymbolPlace>& places,
                    const std::string& file, DFunction& out) {
  const ptx::Function& fn = m.functions[index];
  out.fn = &fn;
  out.index = index;
  out.nregs = static_cast<uint32_t>(fn.regs.size());
  out.machine = m.machine;
  if (m.machine) {
    if (fn.regs.size() != ptx::mach::kNumRegIds)
      throw Error(fmt::format("{}: machine function {} has {} registers, not {}", file, fn.name, fn.regs.size(),
                              ptx::mach::kNumRegIds));
    out.nregs = kMachineColumns;
    // Built-ins take their parameters and return their results in registers.
    auto shapes = [&](const std::vector<uint32_t>& syms, std::vector<ptx::mach::ParamShape> dflt) {
      std::vector<ptx::mach::ParamShape> v;
      for (uint32_t s : syms) {
        const ptx::Symbol& sym = m.symbols.at(s);
        const uint32_t nat = std::max(1u, ptx::typeBits(sym.type) / 8);
        v.push_back({sym.size, sym.align ? sym.align : nat});
      }
      return v.empty() ? dflt : v;
    };
    const bool vp = fn.name == "vprintf";
    out.mach_params = ptx::mach::layoutParams(shapes(fn.params, vp ? std::vector<ptx::mach::ParamShape>{{8, 8}, {8, 8}}
                                                                    : std::vector<ptx::mach::ParamShape>{{8, 8}}))
                          .locs;
    out.mach_rets = ptx::mach::layoutParams(shapes(fn.rets, {{vp ? 4u : 8u, vp ? 4u : 8u}})).locs;
  }
  out.reg_mask.resize(fn.regs.size());
  for (size_t r = 0; r < fn.regs.size(); ++r) out.reg_mask[r] = widthMask(ptx::typeBits(fn.regs[r].type));
  if (fn.is_extern || fn.blocks.empty()) {
    if (fn.name == "malloc") out.builtin = Builtin::Malloc;
    else if (fn.name == "free") out.builtin = Builtin::Free;
    else if (fn.name == "vprintf") out.builtin = Builtin::Vprintf;
    return;
  }
  Decoder dec{m, fn, places, file, out};
  out.block_pc.resize(fn.blocks.size());
  uint32_t pc = 0;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    out.block_pc[b] = pc;
    pc += static_cast<uint32_t>(fn.blocks[b].instrs.size());
  }
  const ptx::PostDom pd = ptx::postDominators(fn);
  out.code.reserve(pc + 1);
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    for (const ptx::Instr& in : fn.blocks[b].instrs) {
      DInstr d = dec.decode(in);
      if (d.cls == Cls::Bra) {
        d.target = out.block_pc[in.src[0].block];
        const int32_t ip = b < pd.ipdom.size() ? pd.ipdom[b] : ptx::kVirtualExit;
        d.rpc = ip >= 0 ? out.block_pc[static_cast<uint32_t>(ip)] : kNoPc;
      }
      if (m.machine) fillRegUse(in, d.call, d);
      out.code.push_back(std::move(d));
    }
  }
  if (m.machine) setReuseFlags(out.code, out.block_pc);
  // Falling off the end of the body returns (exits, in a kernel).
  out.implicit_ret.op = Op::Ret;
  out.implicit_ret.loc = fn.loc;
  DInstr r;
  r.in = &out.implicit_ret;
  r.op = Op::Ret;
  r.cls = Cls::Ret;
  out.code.push_back(r);
}

}  // namespace rfsim::func
