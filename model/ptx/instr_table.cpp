#include "ptx/instr_table.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace rfsim::ptx {

namespace {

struct Base {
  Op op;
  bool carry_in;  // addc / subc / madc
};

const std::unordered_map<std::string, Base>& bases() {
  static const std::unordered_map<std::string, Base> m = {
      {"mov", {Op::Mov, false}},     {"ld", {Op::Ld, false}},         {"ldu", {Op::Ldu, false}},
      {"st", {Op::St, false}},       {"cvta", {Op::Cvta, false}},     {"cvt", {Op::Cvt, false}},
      {"prefetch", {Op::Prefetch, false}}, {"prefetchu", {Op::Prefetch, false}},
      {"add", {Op::Add, false}},     {"addc", {Op::Add, true}},       {"sub", {Op::Sub, false}},
      {"subc", {Op::Sub, true}},     {"mul", {Op::Mul, false}},       {"mad", {Op::Mad, false}},
      {"madc", {Op::Mad, true}},     {"mul24", {Op::Mul24, false}},   {"mad24", {Op::Mad24, false}},
      {"div", {Op::Div, false}},     {"rem", {Op::Rem, false}},       {"abs", {Op::Abs, false}},
      {"neg", {Op::Neg, false}},     {"min", {Op::Min, false}},       {"max", {Op::Max, false}},
      {"fma", {Op::Fma, false}},     {"sad", {Op::Sad, false}},       {"rcp", {Op::Rcp, false}},
      {"sqrt", {Op::Sqrt, false}},   {"rsqrt", {Op::Rsqrt, false}},   {"ex2", {Op::Ex2, false}},
      {"lg2", {Op::Lg2, false}},     {"sin", {Op::Sin, false}},       {"cos", {Op::Cos, false}},
      {"tanh", {Op::Tanh, false}},   {"copysign", {Op::Copysign, false}},
      {"testp", {Op::Testp, false}}, {"and", {Op::And, false}},       {"or", {Op::Or, false}},
      {"xor", {Op::Xor, false}},     {"not", {Op::Not, false}},       {"cnot", {Op::Cnot, false}},
      {"shl", {Op::Shl, false}},     {"shr", {Op::Shr, false}},       {"popc", {Op::Popc, false}},
      {"clz", {Op::Clz, false}},     {"brev", {Op::Brev, false}},     {"bfe", {Op::Bfe, false}},
      {"bfi", {Op::Bfi, false}},     {"prmt", {Op::Prmt, false}},     {"lop3", {Op::Lop3, false}},
      {"shf", {Op::Shf, false}},     {"bfind", {Op::Bfind, false}},   {"fns", {Op::Fns, false}}, {"bmsk", {Op::Bmsk, false}},
      {"setp", {Op::Setp, false}},   {"set", {Op::Set, false}},       {"selp", {Op::Selp, false}},
      {"slct", {Op::Slct, false}},   {"bra", {Op::Bra, false}},       {"call", {Op::Call, false}},
      {"ret", {Op::Ret, false}},     {"exit", {Op::Exit, false}},     {"trap", {Op::Trap, false}},
      {"brkpt", {Op::Brkpt, false}}, {"bar", {Op::Bar, false}},       {"barrier", {Op::Bar, false}},
      {"membar", {Op::Membar, false}}, {"fence", {Op::Fence, false}}, {"atom", {Op::Atom, false}},
      {"red", {Op::Red, false}},     {"shfl", {Op::Shfl, false}},     {"vote", {Op::Vote, false}},
      {"activemask", {Op::Activemask, false}}, {"match", {Op::Match, false}},
      {"nanosleep", {Op::Nanosleep, false}}, {"dp4a", {Op::Dp4a, false}}, {"dp2a", {Op::Dp2a, false}},
  };
  return m;
}

// PTX instructions that exist but that ir.h has no Op for.
const std::unordered_set<std::string>& unsupportedBases() {
  static const std::unordered_set<std::string> s = {
      "cp", "mma", "wmma", "wgmma", "tcgen05", "tex", "tld4", "txq", "suld", "sust", "sured", "suq",
      "ldmatrix", "stmatrix", "movmatrix", "isspacep", "istypep", "brx", "mapa", "getctarank",
      "elect", "griddepcontrol", "setmaxnreg", "multimem", "tensormap", "mbarrier",
      "applypriority", "discard", "createpolicy", "alloca", "stacksave", "stackrestore",
      "pmevent", "redux", "szext", "clusterlaunchcontrol", "cctl",
      "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset",
      "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
      "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4",
      "st.async", "red.async", "cvt.pack", "fence.proxy", "barrier.cluster",
  };
  return s;
}

const std::unordered_map<std::string, Type>& typeWords() {
  static const std::unordered_map<std::string, Type> m = {
      {"pred", Type::Pred}, {"b8", Type::B8},   {"b16", Type::B16}, {"b32", Type::B32},
      {"b64", Type::B64},   {"b128", Type::B128}, {"u8", Type::U8}, {"u16", Type::U16},
      {"u32", Type::U32},   {"u64", Type::U64}, {"s8", Type::S8},   {"s16", Type::S16},
      {"s32", Type::S32},   {"s64", Type::S64}, {"f16", Type::F16}, {"f16x2", Type::F16x2},
      {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2}, {"f32", Type::F32}, {"f64", Type::F64},
  };
  return m;
}

Cmp cmpFromWord(const std::string& w) {
  static const std::unordered_map<std::string, Cmp> m = {
      {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},   {"gt", Cmp::Gt},
      {"ge", Cmp::Ge},   {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},   {"hs", Cmp::Hs},
      {"equ", Cmp::Equ}, {"neu", Cmp::Neu}, {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu},
      {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan},
  };
  auto it = m.find(w);
  return it == m.end() ? Cmp::None : it->second;
}

Round roundFromWord(const std::string& w) {
  static const std::unordered_map<std::string, Round> m = {
      {"rn", Round::Rn},   {"rz", Round::Rz},   {"rm", Round::Rm},   {"rp", Round::Rp},
      {"rna", Round::Rna}, {"rni", Round::Rni}, {"rzi", Round::Rzi}, {"rmi", Round::Rmi},
      {"rpi", Round::Rpi},
  };
  auto it = m.find(w);
  return it == m.end() ? Round::None : it->second;
}

AtomOp atomFromWord(const std::string& w) {
  static const std::unordered_map<std::string, AtomOp> m = {
      {"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max}, {"exch", AtomOp::Exch},
      {"cas", AtomOp::Cas}, {"and", AtomOp::And}, {"or", AtomOp::Or},   {"xor", AtomOp::Xor},
      {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec},
  };
  auto it = m.find(w);
  return it == m.end() ? AtomOp::None : it->second;
}

bool startsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Modifiers that only steer caches, scopes or memory ordering strength:
// no effect on what an instruction computes, so the IR does not keep them.
bool ignorable(const std::string& w) {
  static const std::unordered_set<std::string> s = {
      "ca", "cg", "cs", "lu", "cv", "wb", "wt", "cta", "gpu", "sys", "cluster", "gl", "weak",
      "noftz", "L1", "L2", "unified",
  };
  if (s.count(w)) return true;
  return (startsWith(w, "L1::") || startsWith(w, "L2::") || startsWith(w, "level::")) &&
         w != "L2::cache_hint";
}

Space spaceFromWord(const std::string& w) {
  if (w == "global") return Space::Global;
  if (w == "shared" || w == "shared::cta") return Space::Shared;
  if (w == "local") return Space::Local;
  if (w == "const") return Space::Const;
  if (w == "param") return Space::Param;
  return Space::None;
}

}  // namespace

Type typeFromWord(const std::string& word) {
  auto it = typeWords().find(word);
  return it == typeWords().end() ? Type::None : it->second;
}

DecodeStatus decodeOpcode(const std::string& text, Instr& in, std::string* why) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (;;) {
    const size_t e = text.find('.', b);
    parts.push_back(text.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  const std::string& base = parts[0];
  const std::string two = parts.size() > 1 ? base + "." + parts[1] : std::string();
  if (unsupportedBases().count(base) || unsupportedBases().count(two)) {
    *why = "unsupported instruction '" + text + "'";
    return DecodeStatus::Unsupported;
  }
  auto bit = bases().find(base);
  if (bit == bases().end()) {
    *why = "unknown opcode '" + text + "'";
    return DecodeStatus::Unknown;
  }
  in = Instr{};
  in.op = bit->second.op;
  in.mods.carry_in = bit->second.carry_in;
  const Op op = in.op;
  if (op == Op::Bar) in.mods.aligned = base == "bar";  // bar.sync == barrier.sync.aligned
  bool bar_red = false;
  int ntypes = 0;
  auto unsupported = [&](const std::string& w) {
    *why = "unsupported instruction '" + text + "' (modifier '." + w + "')";
    return DecodeStatus::Unsupported;
  };
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& w = parts[i];
    if (w.empty()) return unsupported(w);
    const Type t = typeFromWord(w);
    if (t != Type::None) {
      if (ntypes == 0) in.type = t;
      else if (ntypes == 1) in.type2 = t;
      else return unsupported(w);
      ++ntypes;
      continue;
    }
    const bool memop = op == Op::Ld || op == Op::Ldu || op == Op::St || op == Op::Atom ||
                       op == Op::Red || op == Op::Cvta || op == Op::Prefetch;
    const Space sp = spaceFromWord(w);
    if (sp != Space::None && memop) {
      in.space = sp;
      continue;
    }
    if (op == Op::Setp || op == Op::Set || op == Op::Slct) {
      const Cmp c = cmpFromWord(w);
      if (c != Cmp::None) {
        in.mods.cmp = c;
        continue;
      }
    }
    if (op == Op::Testp) {
      if (w == "number") { in.mods.cmp = Cmp::Num; continue; }
      if (w == "notanumber") { in.mods.cmp = Cmp::Nan; continue; }
    }
    const Round r = roundFromWord(w);
    if (r != Round::None) {
      in.mods.round = r;
      continue;
    }
    if (op == Op::Mul || op == Op::Mad || op == Op::Mul24 || op == Op::Mad24 || op == Op::Dp2a) {
      if (w == "lo") { in.mods.mul = MulMode::Lo; continue; }
      if (w == "hi") { in.mods.mul = MulMode::Hi; continue; }
      if (w == "wide" && op != Op::Dp2a) { in.mods.mul = MulMode::Wide; continue; }
    }
    if (op == Op::Shf) {
      if (w == "l") { in.mods.mul = MulMode::Lo; continue; }
      if (w == "r") { in.mods.mul = MulMode::Hi; continue; }
    }
    if (op == Op::Shf || op == Op::Bmsk) {
      if (w == "clamp") { in.mods.shift_clamp = true; continue; }
      if (w == "wrap") { in.mods.shift_clamp = false; continue; }
    }
    if ((op == Op::Setp || op == Op::Set || (op == Op::Bar && bar_red)) &&
        (w == "and" || w == "or" || w == "xor")) {
      in.mods.boolop = w == "and" ? BoolOp::And : w == "or" ? BoolOp::Or : BoolOp::Xor;
      continue;
    }
    if (op == Op::Atom || op == Op::Red) {
      const AtomOp a = atomFromWord(w);
      if (a != AtomOp::None) {
        in.mods.atom = a;
        continue;
      }
    }
    if (op == Op::Shfl) {
      if (w == "up") { in.mods.shfl = ShflMode::Up; continue; }
      if (w == "down") { in.mods.shfl = ShflMode::Down; continue; }
      if (w == "bfly") { in.mods.shfl = ShflMode::Bfly; continue; }
      if (w == "idx") { in.mods.shfl = ShflMode::Idx; continue; }
    }
    // match.any / match.all reuse the vote mode.
    if (op == Op::Vote || op == Op::Match) {
      if (w == "all") { in.mods.vote = VoteMode::All; continue; }
      if (w == "any") { in.mods.vote = VoteMode::Any; continue; }
      if (w == "uni" && op == Op::Vote) { in.mods.vote = VoteMode::Uni; continue; }
      if (w == "ballot" && op == Op::Vote) { in.mods.vote = VoteMode::Ballot; continue; }
    }
    if (op == Op::Bar) {
      if (w == "sync") { in.mods.sync = true; continue; }
      if (w == "arrive") { in.mods.arrive = true; continue; }
      if (w == "red") { bar_red = true; continue; }
      if (w == "popc" && bar_red) { in.mods.red_popc = true; continue; }
      if (w == "warp" && i == 1 && base == "bar") { in.mods.warp = true; in.mods.aligned = false; continue; }
      if (w == "aligned") { in.mods.aligned = true; continue; }
    }
    if (op == Op::Bfind && w == "shiftamt") { in.mods.shiftamt = true; continue; }
    if (w == "v2") { in.mods.vec = 2; continue; }
    if (w == "v4") { in.mods.vec = 4; continue; }
    if (w == "ftz") { in.mods.ftz = true; continue; }
    if (w == "sat") { in.mods.sat = true; continue; }
    if (w == "approx") { in.mods.approx = true; continue; }
    if (w == "full") { in.mods.full = true; continue; }
    if (w == "uni" && (op == Op::Bra || op == Op::Call || op == Op::Ret)) { in.mods.uni = true; continue; }
    if (w == "volatile" && memop) { in.mods.volatile_ = true; continue; }
    if (w == "nc" && op == Op::Ld) { in.mods.nc = true; continue; }
    if (w == "to" && op == Op::Cvta) { in.mods.to = true; continue; }
    if (w == "sync" && (op == Op::Shfl || op == Op::Vote || op == Op::Match)) { in.mods.sync = true; continue; }
    if (w == "aligned" && (op == Op::Shfl || op == Op::Vote)) { in.mods.aligned = true; continue; }
    if (w == "cc" && (op == Op::Add || op == Op::Sub || op == Op::Mad)) { in.mods.cc = true; continue; }
    if (w == "relaxed" || w == "acquire" || w == "release" || w == "acq_rel" || w == "sc" || w == "mmio") {
      in.mods.relaxed_or_stronger = true;
      continue;
    }
    if (ignorable(w)) continue;
    return unsupported(w);
  }
  if (in.mods.carry_in && in.op == Op::Mad && in.mods.mul == MulMode::None) in.mods.mul = MulMode::Lo;
  if (in.space == Space::None &&
      (op == Op::Ld || op == Op::Ldu || op == Op::St || op == Op::Atom || op == Op::Red ||
       op == Op::Prefetch)) {
    in.space = Space::Generic;
  }
  if (op == Op::Cvta && in.space == Space::None) {
    *why = "'" + text + "' needs a state space";
    return DecodeStatus::Unknown;
  }
  if (in.mods.vec != 1 && op != Op::Ld && op != Op::Ldu && op != Op::St) {
    return unsupported(in.mods.vec == 2 ? "v2" : "v4");
  }
  return DecodeStatus::Ok;
}

OperandCounts operandCounts(const Instr& in) {
  switch (in.op) {
    case Op::Mov: case Op::Cvta: case Op::Abs: case Op::Neg: case Op::Not: case Op::Cnot:
    case Op::Popc: case Op::Clz: case Op::Brev: case Op::Rcp: case Op::Sqrt: case Op::Rsqrt:
    case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Bfind:
    case Op::Testp: case Op::Ld: case Op::Ldu:
      return {1, 1, 1, 1};
    case Op::Cvt: return {1, 1, 1, 2};
    case Op::St: return {0, 0, 2, 2};
    case Op::Prefetch: return {0, 0, 1, 1};
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Mul24: case Op::Div: case Op::Rem:
    case Op::Min: case Op::Max: case Op::Copysign: case Op::And: case Op::Or: case Op::Xor:
    case Op::Shl: case Op::Shr: case Op::Bmsk:
      return {1, 1, 2, 2};
    case Op::Mad: case Op::Mad24: case Op::Fma: case Op::Sad: case Op::Bfe: case Op::Prmt:
    case Op::Shf: case Op::Fns: case Op::Selp: case Op::Slct: case Op::Dp4a: case Op::Dp2a:
      return {1, 1, 3, 3};
    case Op::Bfi: case Op::Lop3: return {1, 1, 4, 4};
    case Op::Setp: return {1, 2, 2, 3};
    case Op::Set: return {1, 1, 2, 3};
    case Op::Bra: return {0, 0, 1, 1};
    case Op::Call: return {0, 0, 0, 1};
    case Op::Ret: case Op::Exit: case Op::Trap: case Op::Brkpt: case Op::Membar: case Op::Fence:
      return {0, 0, 0, 0};
    case Op::Bar:
      if (in.mods.warp) return {0, 0, 1, 1};
      if (in.mods.red_popc || in.mods.boolop != BoolOp::None) return {1, 1, 2, 3};
      return {0, 0, 1, 2};
    case Op::Atom: return {1, 1, 2, static_cast<uint8_t>(in.mods.atom == AtomOp::Cas ? 3 : 2)};
    case Op::Red: return {0, 0, 2, 2};
    case Op::Shfl: return {1, 2, 3, 4};
    case Op::Vote: return {1, 1, 1, 2};
    case Op::Activemask: return {1, 1, 0, 0};
    case Op::Match: return {1, 2, 2, 2};
    case Op::Nanosleep: return {0, 0, 1, 1};
    case Op::Ext: return {0, 0, 0, 5};  // an extension's immediates (ptx/isa_ext.h)
    case Op::Count_: break;
  }
  return {0, 0, 0, 0};
}

namespace {

// The double-width type of mul.wide / mad.wide results.
Type wide(Type t) {
  switch (t) {
    case Type::U16: return Type::U32;
    case Type::S16: return Type::S32;
    case Type::U32: return Type::U64;
    case Type::S32: return Type::S64;
    case Type::B16: return Type::B32;
    case Type::B32: return Type::B64;
    default: return t;
  }
}

}  // namespace

Slot operandSlot(const Instr& in, bool is_dst, unsigned i) {
  const Type t = in.type;
  switch (in.op) {
    case Op::Ld: case Op::Ldu:
      if (is_dst) return {t, true};
      return {Type::None, false, true};
    case Op::St:
      if (i == 0) return {Type::None, false, true};
      return {t, true};
    case Op::Prefetch: return {Type::None, false, true};
    case Op::Atom: case Op::Red:
      if (!is_dst && i == 0) return {Type::None, false, true};
      return {t};
    case Op::Cvt:
      return is_dst ? Slot{t, true} : Slot{in.type2, true};
    case Op::Mul: case Op::Mad:
      if (in.mods.mul == MulMode::Wide && (is_dst || i == 2)) return {wide(t)};
      return {t};
    case Op::Shl: case Op::Shr:
      return {!is_dst && i == 1 ? Type::U32 : t};
    case Op::Bfe: return {!is_dst && i >= 1 ? Type::U32 : t};
    case Op::Bfi: return {!is_dst && i >= 2 ? Type::U32 : t};
    case Op::Popc: case Op::Clz: case Op::Bfind:
      return {is_dst ? Type::U32 : t};
    case Op::Testp: return {is_dst ? Type::Pred : t};
    case Op::Setp:
      if (is_dst) return {Type::Pred};
      return {i == 2 ? Type::Pred : t};
    case Op::Set:
      if (is_dst) return {t};
      return {i == 2 ? Type::Pred : in.type2};
    case Op::Selp: return {!is_dst && i == 2 ? Type::Pred : t};
    case Op::Slct: return {!is_dst && i == 2 ? in.type2 : t};
    case Op::Shfl:
      if (is_dst) return {i == 1 ? Type::Pred : t};
      return {i == 0 ? t : Type::B32};
    case Op::Vote:
      if (is_dst) return {in.mods.vote == VoteMode::Ballot ? Type::B32 : Type::Pred};
      return {i == 0 ? Type::Pred : Type::B32};
    case Op::Match:
      if (is_dst) return {i == 1 ? Type::Pred : Type::B32};
      return {i == 0 ? t : Type::B32};
    case Op::Activemask: return {Type::B32};
    case Op::Bar:
      if (is_dst) return {t};
      // bar.red: the parser checks that the last source is the predicate.
      if (in.mods.red_popc || in.mods.boolop != BoolOp::None) return {Type::None};
      return {Type::B32};
    case Op::Nanosleep: return {Type::B32};
    case Op::Dp4a: case Op::Dp2a:
      if (is_dst || i == 2) return {isSigned(t) || isSigned(in.type2) ? Type::S32 : Type::U32};
      return {i == 1 ? in.type2 : t};
    case Op::Bra: return {Type::None, false, false, true};
    case Op::Call: return {Type::None};
    default: return {t};
  }
}

bool typeCompatible(Type want, Type reg, bool relaxed) {
  if (want == Type::None) return true;
  if (want == Type::Pred || reg == Type::Pred) return want == reg;
  const unsigned bw = typeBits(want), br = typeBits(reg);
  if (relaxed && !isFloat(want) && !isFloat(reg) && br > bw) return true;
  if (bw != br) return false;
  if (isBits(want) || isBits(reg)) return true;
  if (isFloat(want) || isFloat(reg)) return want == reg;
  return true;  // same-size signed and unsigned integers are interchangeable
}

}  // namespace rfsim::ptx
