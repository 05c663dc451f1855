// Instruction spelling for printer.h: mnemonic with its modifiers in the
// order PTX ISA 9.0 writes them, then the operands.
#include <fmt/format.h>

#include "ptx/analysis/printer.h"
#include "ptx/analysis/printer_names.h"
#include "ptx/isa_ext.h"

namespace rfsim::ptx {

// The printer spells "no type" and the generic space as nothing; otherwise
// the names are ir.h's.
const char* ptxTypeName(Type t) { return t == Type::None ? "" : typeName(t); }

const char* ptxSpaceName(Space s) { return s == Space::None || s == Space::Generic ? "" : spaceName(s); }

const char* ptxOpName(Op op) { return opName(op); }

namespace printer_detail {

namespace {

const char* cmpName(Cmp c) {
  static const char* const names[] = {"", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                      "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  return names[static_cast<size_t>(c)];
}
const char* boolName(BoolOp b) {
  static const char* const names[] = {"", "and", "or", "xor"};
  return names[static_cast<size_t>(b)];
}
const char* roundName(Round r) {
  static const char* const names[] = {"", "rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi"};
  return names[static_cast<size_t>(r)];
}
const char* mulName(MulMode m) {
  static const char* const names[] = {"", "lo", "hi", "wide"};
  return names[static_cast<size_t>(m)];
}
const char* atomName(AtomOp a) {
  static const char* const names[] = {"", "add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec"};
  return names[static_cast<size_t>(a)];
}
const char* shflName(ShflMode s) {
  static const char* const names[] = {"", "up", "down", "bfly", "idx"};
  return names[static_cast<size_t>(s)];
}
const char* voteName(VoteMode v) {
  static const char* const names[] = {"", "all", "any", "uni", "ballot"};
  return names[static_cast<size_t>(v)];
}
const char* sregName(SReg s) {
  static const char* const names[] = {
      "", "tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid", "gridid",
      "clock", "clock64", "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt",
      "dynamic_smem_size", "total_smem_size", "globaltimer", "envreg"};
  return names[static_cast<size_t>(s)];
}

class Mnemonic {
 public:
  explicit Mnemonic(const char* base) : s_(base) {}
  void add(const char* part) {
    if (*part) {
      s_ += '.';
      s_ += part;
    }
  }
  void add(bool on, const char* part) {
    if (on) add(part);
  }
  std::string str() const { return s_; }

 private:
  std::string s_;
};

std::string mnemonic(const Instr& in) {
  const Mods& m = in.mods;
  const char* type = ptxTypeName(in.type);
  const char* space = ptxSpaceName(in.space);
  switch (in.op) {
    case Op::Ext:
      return extOp(in.ext).mnemonic;
    case Op::Ld: case Op::Ldu: case Op::St: {
      Mnemonic s(ptxOpName(in.op));
      s.add(m.volatile_, "volatile");
      if (!m.volatile_ && m.relaxed_or_stronger) {
        s.add("relaxed");
        s.add("gpu");
      }
      s.add(space);
      s.add(m.nc, "nc");
      if (m.vec > 1) s.add(m.vec == 2 ? "v2" : m.vec == 4 ? "v4" : "v8");
      s.add(type);
      return s.str();
    }
    case Op::Cvta: {
      Mnemonic s("cvta");
      s.add(m.to, "to");
      s.add(space);
      s.add(type);
      return s.str();
    }
    case Op::Cvt: case Op::Set: case Op::Setp: case Op::Slct: case Op::Dp4a: case Op::Dp2a: {
      Mnemonic s(ptxOpName(in.op));
      s.add(cmpName(m.cmp));
      s.add(boolName(m.boolop));
      s.add(mulName(m.mul));
      s.add(roundName(m.round));
      s.add(m.ftz, "ftz");
      s.add(m.sat, "sat");
      s.add(type);
      s.add(ptxTypeName(in.type2));
      return s.str();
    }
    case Op::Shf: {
      Mnemonic s("shf");
      s.add(m.mul == MulMode::Hi ? "r" : "l");
      s.add(m.shift_clamp ? "clamp" : "wrap");
      s.add(type);
      return s.str();
    }
    case Op::Bmsk: {
      Mnemonic s("bmsk");
      s.add(m.shift_clamp ? "clamp" : "wrap");
      s.add(type);
      return s.str();
    }
    case Op::Atom: case Op::Red: {
      Mnemonic s(ptxOpName(in.op));
      s.add(space);
      s.add(atomName(m.atom));
      s.add(type);
      return s.str();
    }
    case Op::Shfl: case Op::Vote: {
      Mnemonic s(ptxOpName(in.op));
      s.add(m.sync, "sync");
      s.add(shflName(m.shfl));
      s.add(voteName(m.vote));
      s.add(type);
      return s.str();
    }
    case Op::Match: {  // match.any.sync.b32: the mode is in `vote`
      Mnemonic s("match");
      s.add(voteName(m.vote));
      s.add(m.sync, "sync");
      s.add(type);
      return s.str();
    }
    case Op::Bar: {
      // bar.* is barrier.*.aligned (PTX ISA 9.7.13.1).
      if (m.warp) return "bar.warp.sync";
      Mnemonic s(m.aligned ? "bar" : "barrier");
      if (m.arrive)
        s.add("arrive");
      else if (m.red_popc || m.boolop != BoolOp::None)
        s.add("red");
      else
        s.add("sync");
      s.add(m.red_popc, "popc");
      s.add(boolName(m.boolop));
      s.add(type);
      return s.str();
    }
    case Op::Membar: return "membar.gl";
    case Op::Fence: return "fence.acq_rel.gpu";
    case Op::Prefetch: {
      Mnemonic s("prefetch");
      s.add(space);
      s.add("L2");
      return s.str();
    }
    case Op::Testp: {
      // The parser keeps .number / .notanumber (as Cmp::Num / Cmp::Nan).
      Mnemonic s("testp");
      s.add(m.cmp == Cmp::Nan ? "notanumber" : "number");
      s.add(type);
      return s.str();
    }
    case Op::Bra: case Op::Call: case Op::Ret: {
      Mnemonic s(ptxOpName(in.op));
      s.add(m.uni, "uni");
      return s.str();
    }
    default: break;
  }
  // Arithmetic and everything else: op{.carry}{.mode}{.rnd}{.approx|.full}{.ftz}{.sat}{.cc}.type
  std::string base = ptxOpName(in.op);
  if (m.carry_in && (in.op == Op::Add || in.op == Op::Sub || in.op == Op::Mad)) base += 'c';
  Mnemonic s(base.c_str());
  s.add(in.op == Op::Bfind && m.shiftamt, "shiftamt");
  s.add(mulName(m.mul));
  s.add(roundName(m.round));
  s.add(m.approx, "approx");
  s.add(m.full, "full");
  s.add(m.ftz, "ftz");
  s.add(m.sat, "sat");
  s.add(m.cc, "cc");
  s.add(type);
  return s.str();
}

// The type an immediate source operand is read as (decides 0f/0d spelling).
Type srcType(const Instr& in, unsigned i) {
  switch (in.op) {
    case Op::Cvt: case Op::Set: return in.type2;
    case Op::Slct: return i == 2 ? in.type2 : in.type;
    case Op::Shl: case Op::Shr: return i == 1 ? Type::U32 : in.type;
    case Op::Bfe: return i >= 1 ? Type::U32 : in.type;
    case Op::Bfi: return i >= 2 ? Type::U32 : in.type;
    case Op::Shfl: case Op::Vote: case Op::Bar: case Op::Prmt: case Op::Lop3: return Type::B32;
    default: return in.type;
  }
}

std::string spellOperand(const Module& m, const Function& fn, const FunctionNames& names, const Operand& o, Type t,
                         bool is_src) {
  switch (o.kind) {
    case OperandKind::None: return "";
    case OperandKind::Reg: case OperandKind::PredOut:
      return (o.negate ? "!" : "") + regName(fn, o.regs[0]);
    case OperandKind::Vec: {
      std::string s = "{";
      // In a source, a kNoReg element is an immediate: bits [i*w, (i+1)*w) of imm_hi:imm.
      const unsigned w = typeBytes(t) * 8;
      for (unsigned i = 0; i < o.vec_n && i < o.regs.size(); ++i) {
        s += i ? ", " : "";
        if (is_src && o.regs[i] == kNoReg && w > 0 && w * (i + 1) <= 128) {
          s += spellImm(static_cast<int64_t>(vecImm(o, i, w)), t);
        } else {
          s += regName(fn, o.regs[i]);
        }
      }
      return s + "}";
    }
    case OperandKind::Imm: return spellImm(o.imm, t);
    case OperandKind::SReg: {
      std::string s = std::string("%") + sregName(o.sreg);
      if (o.sreg == SReg::Tid || o.sreg == SReg::Ntid || o.sreg == SReg::Ctaid || o.sreg == SReg::Nctaid)
        s += o.dim == 0 ? ".x" : o.dim == 1 ? ".y" : ".z";
      else if (o.sreg == SReg::Envreg)
        s += std::to_string(o.dim);
      return s;
    }
    case OperandKind::Sym: return symName(m, names, o.sym);
    case OperandKind::Addr: {
      std::string s = "[";
      if (o.regs[0] != kNoReg)
        s += regName(fn, o.regs[0]);
      else if (o.sym != kNoSym)
        s += symName(m, names, o.sym);
      else
        return fmt::format("[{}]", o.imm);
      if (o.imm != 0) s += fmt::format("+{}", o.imm);
      return s + "]";
    }
    case OperandKind::Label:
      return o.block < names.labels.size() ? names.labels[o.block] : fmt::format("$BB{}", o.block);
  }
  return "";
}

std::string spellCall(const Module& m, const Function& fn, const FunctionNames& names, const Instr& in) {
  std::string s = mnemonic(in) + " ";
  if (in.call >= fn.calls.size()) return s + "?;";
  const CallInfo& c = fn.calls[in.call];
  auto list = [&](const std::vector<uint32_t>& syms) {
    std::string l = "(";
    for (size_t i = 0; i < syms.size(); ++i) l += (i ? ", " : "") + symName(m, names, syms[i]);
    return l + ")";
  };
  if (!c.rets.empty()) s += list(c.rets) + ", ";
  if (c.indirect)
    s += regName(fn, c.target_reg);
  else
    s += c.callee < m.functions.size() ? m.functions[c.callee].name : fmt::format("$F{}", c.callee);
  if (!c.args.empty() || c.indirect) s += ", " + list(c.args);
  if (c.indirect) {
    auto ct = names.calltargets.find(in.call);
    if (ct != names.calltargets.end())
      s += ", " + ct->second;
    else if (c.prototype < m.prototypes.size())
      s += ", " + m.prototypes[c.prototype].label;
  }
  return s + ";";
}

}  // namespace

std::string spellImm(int64_t imm, Type t) {
  if (t == Type::F32) return fmt::format("0f{:08X}", static_cast<uint32_t>(imm));
  if (t == Type::F64) return fmt::format("0d{:016X}", static_cast<uint64_t>(imm));
  return std::to_string(imm);
}

namespace {

// " dst, src, ..." of an instruction other than a call.
std::string spellOperands(const Module& m, const Function& fn, const FunctionNames& names, const Instr& in) {
  std::string s;
  bool first = true;
  for (unsigned i = 0; i < in.ndst && i < in.dst.size(); ++i) {
    const Operand& o = in.dst[i];
    if (o.kind == OperandKind::PredOut) {
      s += "|" + spellOperand(m, fn, names, o, Type::Pred, false);
      continue;
    }
    s += (first ? " " : ", ") + spellOperand(m, fn, names, o, in.type, false);
    first = false;
  }
  // An address addend (Mods::uaddr, the last source) is spelled inside the
  // address, SASS-style: [%rd4+%rd9+8].
  const unsigned nsrc = in.mods.uaddr && in.nsrc > 1 ? in.nsrc - 1u : in.nsrc;
  for (unsigned i = 0; i < nsrc && i < in.src.size(); ++i) {
    std::string o = spellOperand(m, fn, names, in.src[i], srcType(in, i), true);
    if (i == 0 && nsrc != in.nsrc && o.size() > 1 && o.front() == '[') {
      const size_t at = o.find_first_of("+]", 1);
      o.insert(at, "+" + spellOperand(m, fn, names, in.src[nsrc], srcType(in, nsrc), true));
    }
    s += (first ? " " : ", ") + o;
    first = false;
  }
  return s;
}

}  // namespace

std::string spellInstr(const Module& m, const Function& fn, const FunctionNames& names, const Instr& in) {
  std::string s;
  if (in.guard.kind == OperandKind::Reg) s = std::string("@") + (in.guard.negate ? "!" : "") + regName(fn, in.guard.regs[0]) + " ";
  if (in.op == Op::Call)
    s += spellCall(m, fn, names, in);  // ends with its ';'
  else
    s += mnemonic(in) + spellOperands(m, fn, names, in) + ";";
  // Mechanisms' control fields (ptx/isa_ext.h), as a comment: the line
  // stays PTX.
  if (in.ctrl) s += " // " + spellControl(in.ctrl);
  // Dependency control (sm.dependency: barriers), as nvdisasm prints it:
  // [B wait mask : R read barrier : W write barrier : S stall].
  if (in.stall) {
    std::string b = "B------";
    for (int k = 0; k < 6; ++k)
      if (in.wait >> k & 1) b[1 + k] = static_cast<char>('0' + k);
    auto bar = [](uint8_t v) { return v ? std::string(1, static_cast<char>('0' + v - 1)) : std::string("-"); };
    s += fmt::format(" // [{}:R{}:W{}:S{:02}]", b, bar(in.rbar), bar(in.wbar), in.stall);
  }
  return s;
}

}  // namespace printer_detail

}  // namespace rfsim::ptx
