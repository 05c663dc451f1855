// laneSupports(): which opcode/type/modifier combinations evalLane()
// implements, with the reason for everything else. Called once per
// instruction at load time, so it may build strings; evalLane() never does.
#include <fmt/format.h>

#include "func/semantics/detail.h"
#include "func/semantics/semantics.h"

namespace rfsim::func {

using namespace ptx;
using namespace detail;

namespace {

// Local name tables (this library does not link the front end's opName()).
const char* const kOpNames[] = {
    "mov", "ld", "ldu", "st", "cvta", "cvt", "prefetch",
    "add", "sub", "mul", "mad", "mul24", "mad24", "div", "rem", "abs", "neg", "min", "max", "fma", "sad",
    "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp",
    "and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "prmt", "lop3",
    "shf", "bfind", "fns",
    "setp", "set", "selp", "slct",
    "bra", "call", "ret", "exit", "trap", "brkpt",
    "bar", "membar", "fence", "atom", "red", "shfl", "vote", "activemask", "match", "nanosleep",
    "dp4a", "dp2a", "bmsk",
};
constexpr unsigned kNumOpNames = sizeof(kOpNames) / sizeof(kOpNames[0]);
// The parser appends opcodes to ir.h; a newer one than this table prints "op".
inline const char* opText(Op op) {
  const unsigned i = static_cast<unsigned>(op);
  return i < kNumOpNames ? kOpNames[i] : "op";
}

const char* const kTypeNames[] = {
    "",    "pred", "b8",  "b16", "b32", "b64", "b128", "u8",  "u16",    "u32", "u64",
    "s8",  "s16",  "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
};

const char* const kRoundNames[] = {"", "rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi"};

std::string instrName(const Instr& in) {
  std::string s = opText(in.op);
  if (in.mods.carry_in) s += "c";  // addc, subc, madc
  if (in.op == Op::Mul || in.op == Op::Mad || in.op == Op::Mul24 || in.op == Op::Mad24) {
    static const char* const kMul[] = {"", ".lo", ".hi", ".wide"};
    s += kMul[static_cast<unsigned>(in.mods.mul) & 3];
  }
  if (in.mods.cc) s += ".cc";
  if (in.mods.round != Round::None) s += fmt::format(".{}", kRoundNames[static_cast<unsigned>(in.mods.round)]);
  if (in.mods.approx) s += ".approx";
  if (in.mods.full) s += ".full";
  if (in.mods.ftz) s += ".ftz";
  if (in.mods.sat) s += ".sat";
  if (in.type != Type::None) s += fmt::format(".{}", kTypeNames[static_cast<unsigned>(in.type)]);
  if (in.type2 != Type::None) s += fmt::format(".{}", kTypeNames[static_cast<unsigned>(in.type2)]);
  return s;
}

bool isInt16to64(Type t) { return (isS(t) || isU(t)) && widthOf(t) >= 16; }
bool floatRound(Round r) {  // .rn .rz .rm .rp (or none)
  return r == Round::None || r == Round::Rn || r == Round::Rz || r == Round::Rm || r == Round::Rp;
}
bool intRound(Round r) { return r >= Round::Rni && r <= Round::Rpi; }

// What is wrong with this instruction, or nullptr when evalLane handles it.
const char* check(const Instr& in, bool withCarry) {
  const Type t = in.type;
  const Mods& m = in.mods;
  const bool isFloat = isF(t);
  if (m.cc || m.carry_in) {
    if (!withCarry)
      return "carry (.cc, addc, subc, madc) needs the caller to keep CC.CF (laneSupports(..., with_carry = true))";
    if (in.op != Op::Add && in.op != Op::Sub && in.op != Op::Mad) return "carry on an opcode without one";
    if (t != Type::U32 && t != Type::S32 && t != Type::U64 && t != Type::S64) return "carry needs a 32/64-bit integer";
    if (m.sat || m.round != Round::None || m.ftz) return "modifiers not defined with carry";
    if (in.op == Op::Mad && m.mul != MulMode::Lo && m.mul != MulMode::Hi) return "mad with carry needs .lo or .hi";
    return nullptr;
  }

  auto intArith = [&]() -> const char* {
    if (!isInt16to64(t)) return "needs a 16/32/64-bit signed or unsigned type";
    if (m.round != Round::None || m.ftz || m.approx) return "float modifiers on an integer type";
    return nullptr;
  };
  // f32: .rn/.rz/.rm/.rp, .ftz, .sat; f64: rounding only; half: rounding, .ftz, .sat.
  auto floatArith = [&](bool allowSat) -> const char* {
    if (!floatRound(m.round)) return "needs .rn/.rz/.rm/.rp";
    if (m.approx || m.full) return ".approx/.full is not defined here";
    if (t == Type::F64 && (m.ftz || m.sat)) return ".ftz/.sat are not defined for .f64";
    if (m.sat && !allowSat) return ".sat is not defined here";
    return nullptr;
  };

  switch (in.op) {
    case Op::Mov: {
      if (t == Type::None || t == Type::B128) return "mov needs a type of at most 64 bits (.b128 is not supported)";
      if (in.nsrc != 1 || in.ndst != 1) return "mov needs one destination and one source";
      const Operand& dst = in.dst[0];
      const Operand& src = in.src[0];
      if (dst.kind == OperandKind::Vec && src.kind == OperandKind::Vec) return "vector to vector mov";
      const Operand* v = dst.kind == OperandKind::Vec ? &dst : src.kind == OperandKind::Vec ? &src : nullptr;
      if (v && (v->vec_n < 2 || v->vec_n > 4 || widthOf(t) % v->vec_n != 0 || widthOf(t) < 16))
        return "vector mov needs 2 or 4 elements that split a .b16/.b32/.b64 value";
      if (src.kind == OperandKind::Label || src.kind == OperandKind::PredOut || src.kind == OperandKind::None)
        return "mov source must be a register, vector, immediate, special register or symbol";
      return nullptr;
    }
    case Op::Add: case Op::Sub:
      if (isFloat) return floatArith(true);
      if (m.sat && t != Type::S32) return ".sat is only defined for .s32";
      return intArith();
    case Op::Mul:
      if (isFloat) return floatArith(true);
      if (m.sat) return ".sat is not defined for integer mul";
      if (m.mul == MulMode::Wide && widthOf(t) == 64) return ".wide is defined for 16 and 32-bit types only";
      return intArith();
    case Op::Mad:
      if (isFloat) return floatArith(true);
      if (m.sat && !(m.mul == MulMode::Hi && t == Type::S32)) return ".sat is only defined for mad.hi.s32";
      if (m.mul == MulMode::Wide && widthOf(t) == 64) return ".wide is defined for 16 and 32-bit types only";
      return intArith();
    case Op::Fma:
      if (!isFloat) return "fma needs a float type";
      return floatArith(true);
    case Op::Mul24: case Op::Mad24:
      if (t != Type::U32 && t != Type::S32) return "needs .u32 or .s32";
      if (m.mul == MulMode::Wide) return ".wide is not defined";
      if (m.sat && !(in.op == Op::Mad24 && m.mul == MulMode::Hi && t == Type::S32))
        return ".sat is only defined for mad24.hi.s32";
      return nullptr;
    case Op::Div:
      if (t == Type::F32) {
        if (m.approx || m.full) return m.round == Round::None && !m.sat ? nullptr : "no rounding/.sat with .approx/.full";
        return floatArith(false);
      }
      if (t == Type::F64) return m.approx || m.full ? "div.approx/.full is f32 only" : floatArith(false);
      if (isFloat) return "div is not supported for half types";
      return intArith();
    case Op::Rem:
      if (m.sat) return ".sat is not defined";
      return intArith();
    case Op::Abs: case Op::Neg:
      if (isFloat) {
        if (m.round != Round::None || m.sat) return "rounding/.sat are not defined";
        if (m.ftz && t == Type::F64) return ".ftz is not defined for .f64";
        return nullptr;
      }
      if (!isS(t) || widthOf(t) < 16) return "needs .s16/.s32/.s64 or a float type";
      return m.sat || m.round != Round::None ? "modifiers are not defined" : nullptr;
    case Op::Min: case Op::Max:
      if (isFloat) {
        if (m.round != Round::None || m.sat) return "rounding/.sat are not defined";
        if (m.ftz && t == Type::F64) return ".ftz is not defined for .f64";
        return nullptr;
      }
      if (m.sat) return ".sat/.relu is not supported";
      return intArith();
    case Op::Sad:
      return intArith();
    case Op::Rcp: case Op::Sqrt:
      if (t == Type::F32) {
        if (m.approx) return m.round == Round::None ? nullptr : "no rounding with .approx";
        if (m.round == Round::None) return "needs .approx or .rn/.rz/.rm/.rp";
        return floatArith(false);
      }
      if (t == Type::F64) {
        if (m.approx) return in.op == Op::Rcp && m.ftz ? nullptr : "only rcp.approx.ftz.f64 is defined";
        if (m.round == Round::None) return "needs .rn/.rz/.rm/.rp";
        return floatArith(false);
      }
      return "needs .f32 or .f64";
    case Op::Rsqrt:
      if (t != Type::F32 && t != Type::F64) return "needs .f32 or .f64";
      return m.round != Round::None || m.sat ? "only .approx is defined" : nullptr;
    case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh:
      if (t != Type::F32) return "only the .f32 form is supported";
      return m.round != Round::None || m.sat ? "only .approx is defined" : nullptr;
    case Op::Copysign:
      return t == Type::F32 || t == Type::F64 ? nullptr : "needs .f32 or .f64";
    case Op::Testp:
      if (t != Type::F32 && t != Type::F64) return "needs .f32 or .f64";
      if (m.cmp != Cmp::Num && m.cmp != Cmp::Nan)
        return "only .number/.notanumber are supported (the IR has no field for .finite/.infinite/.normal/"
               ".subnormal)";
      return nullptr;
    case Op::And: case Op::Or: case Op::Xor: case Op::Not:
      if (t == Type::Pred || (isInt(t) && widthOf(t) >= 16)) return nullptr;
      return "needs .pred or a 16/32/64-bit type";
    case Op::Cnot:
      return isInt(t) && widthOf(t) >= 16 ? nullptr : "needs a 16/32/64-bit type";
    case Op::Shl: case Op::Shr:
      return isInt(t) && widthOf(t) >= 16 ? nullptr : "needs a 16/32/64-bit type";
    case Op::Popc: case Op::Clz: case Op::Brev:
      return isInt(t) && widthOf(t) >= 32 ? nullptr : "needs .b32 or .b64";
    case Op::Bfind:
      return (isS(t) || isU(t)) && widthOf(t) >= 32 ? nullptr : "needs .u32/.s32/.u64/.s64";
    case Op::Bfe:
      return (isS(t) || isU(t)) && widthOf(t) >= 32 ? nullptr : "needs .u32/.s32/.u64/.s64";
    case Op::Bfi:
      return isInt(t) && widthOf(t) >= 32 ? nullptr : "needs .b32 or .b64";
    case Op::Prmt:
      return isInt(t) && widthOf(t) == 32 ? nullptr : "needs .b32";
    case Op::Lop3:
      if (in.ndst != 1) return "the predicate-output form of lop3 is not supported";
      return isInt(t) && widthOf(t) == 32 ? nullptr : "needs .b32";
    case Op::Shf:
      if (m.mul != MulMode::Lo && m.mul != MulMode::Hi) return "needs .l or .r";
      return isInt(t) && widthOf(t) == 32 ? nullptr : "needs .b32";
    case Op::Fns:
      return isInt(t) && widthOf(t) == 32 ? nullptr : "needs .b32";
    case Op::Bmsk:
      return isInt(t) && widthOf(t) == 32 ? nullptr : "needs .b32";
    case Op::Setp: case Op::Set: {
      const Type ct = in.op == Op::Set && in.type2 != Type::None ? in.type2 : t;
      if (in.op == Op::Set && t != Type::U32 && t != Type::S32 && t != Type::F32)
        return "set needs a .u32/.s32/.f32 destination type";
      if (ct == Type::F16x2 || ct == Type::BF16x2) return "packed half compares are not supported";
      const bool fl = isF(ct);
      if (!fl && !(isInt(ct) && widthOf(ct) >= 16)) return "needs a 16/32/64-bit or float type";
      if (m.cmp == Cmp::None) return "needs a comparison";
      if (fl && (m.cmp >= Cmp::Lo && m.cmp <= Cmp::Hs)) return "unsigned comparison on a float type";
      if (!fl && m.cmp >= Cmp::Equ) return "unordered comparison on an integer type";
      if (m.ftz && ct != Type::F32) return ".ftz needs .f32";
      if (m.boolop != BoolOp::None && in.nsrc < 3) return ".and/.or/.xor needs a predicate source";
      if (in.op == Op::Setp && in.ndst > 2) return "at most two destinations";
      return nullptr;
    }
    case Op::Selp:
      return isInt(t) || t == Type::F32 || t == Type::F64 || t == Type::F16 || t == Type::BF16 || t == Type::F16x2 ||
                     t == Type::BF16x2
                 ? nullptr
                 : "needs a 16/32/64-bit type";
    case Op::Slct:
      if (in.type2 != Type::S32 && in.type2 != Type::F32) return "the selector must be .s32 or .f32";
      if (m.ftz && in.type2 != Type::F32) return ".ftz needs an .f32 selector";
      return isInt(t) || t == Type::F32 || t == Type::F64 ? nullptr : "needs a 16/32/64-bit data type";
    case Op::Cvt: {
      const Type st = in.type2;
      const bool di = isInt(t), si = isInt(st);
      if (t == Type::F16x2 || t == Type::BF16x2) {
        if (st != Type::F32 || in.nsrc != 2) return "packed conversion needs two .f32 sources";
        if (m.round == Round::None || !floatRound(m.round)) return "needs .rn/.rz/.rm/.rp";
        return nullptr;
      }
      const bool df = t == Type::F16 || t == Type::BF16 || t == Type::F32 || t == Type::F64;
      const bool sf = st == Type::F16 || st == Type::BF16 || st == Type::F32 || st == Type::F64;
      if (!(di || df) || !(si || sf)) return "unsupported type pair (packed, b128, tf32 or fp8 conversions)";
      if (m.round == Round::Rna) return ".rna is not supported";
      if (m.approx) return ".approx is not defined";
      if (m.ftz && t != Type::F32 && st != Type::F32) return ".ftz needs an .f32 source or destination";
      if (di && si) {
        if (m.round != Round::None || m.ftz) return "rounding on an integer-to-integer conversion";
        return nullptr;
      }
      if (di) return intRound(m.round) ? nullptr : "float-to-integer needs .rni/.rzi/.rmi/.rpi";
      if (si) {
        if (m.round == Round::None) return "integer-to-float needs .rn/.rz/.rm/.rp";
        return floatRound(m.round) ? nullptr : "integer-to-float needs .rn/.rz/.rm/.rp";
      }
      // float -> float
      if (intRound(m.round)) return t == st ? nullptr : "integer rounding needs equal source and destination types";
      if (t == st) return m.round == Round::None ? nullptr : "float rounding on a same-type conversion";
      if (widthOf(t) > widthOf(st)) return nullptr;  // exact widening (a rounding modifier is ignored)
      return m.round == Round::None ? "narrowing float conversion needs .rn/.rz/.rm/.rp" : nullptr;
    }
    case Op::Dp4a: case Op::Dp2a: {
      const Type t2 = in.type2 == Type::None ? t : in.type2;
      if ((t != Type::U32 && t != Type::S32) || (t2 != Type::U32 && t2 != Type::S32)) return "needs .u32/.s32 types";
      if (in.op == Op::Dp2a && m.mul != MulMode::Lo && m.mul != MulMode::Hi) return "dp2a needs .lo or .hi";
      return nullptr;
    }
    default:
      return "not a lane operation (the executor implements it)";
  }
}

}  // namespace

bool laneSupports(const Instr& in, std::string* why, bool with_carry) {
  const char* err = check(in, with_carry);
  if (!err) return true;
  if (why) *why = fmt::format("{}: {}", instrName(in), err);
  return false;
}

}  // namespace rfsim::func
