#include "ptx/ir.h"

namespace rfsim::ptx {

unsigned typeBits(Type t) {
  switch (t) {
    case Type::None: return 0;
    case Type::Pred: return 1;
    case Type::B8: case Type::U8: case Type::S8: return 8;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16: return 16;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32:
    case Type::F16x2: case Type::BF16x2: return 32;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 64;
    case Type::B128: return 128;
  }
  return 0;
}

uint64_t vecImm(const Operand& o, unsigned i, unsigned w) {
  const unsigned lo = i * w;
  if (w == 0 || lo + w > 128) return 0;
  const uint64_t mask = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  const auto a = static_cast<uint64_t>(o.imm), b = static_cast<uint64_t>(o.imm_hi);
  if (lo >= 64) return (b >> (lo - 64)) & mask;
  // Elements are at most 64 bits wide and w divides 64: one never straddles bit 64.
  return (a >> lo) & mask;
}

bool setVecImm(Operand& o, unsigned i, unsigned w, uint64_t v) {
  const uint64_t mask = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  v &= mask;
  if (v == 0) return true;
  const unsigned lo = i * w;
  if (w == 0 || lo + w > 128) return false;
  if (lo >= 64) o.imm_hi = static_cast<int64_t>(static_cast<uint64_t>(o.imm_hi) | v << (lo - 64));
  else o.imm = static_cast<int64_t>(static_cast<uint64_t>(o.imm) | v << lo);
  return true;
}

bool isSigned(Type t) {
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}

bool isFloat(Type t) {
  return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 ||
         t == Type::F32 || t == Type::F64;
}

bool isBits(Type t) {
  return t == Type::B8 || t == Type::B16 || t == Type::B32 || t == Type::B64 || t == Type::B128;
}

const char* typeName(Type t) {
  switch (t) {
    case Type::None: return "none";
    case Type::Pred: return "pred";
    case Type::B8: return "b8";
    case Type::B16: return "b16";
    case Type::B32: return "b32";
    case Type::B64: return "b64";
    case Type::B128: return "b128";
    case Type::U8: return "u8";
    case Type::U16: return "u16";
    case Type::U32: return "u32";
    case Type::U64: return "u64";
    case Type::S8: return "s8";
    case Type::S16: return "s16";
    case Type::S32: return "s32";
    case Type::S64: return "s64";
    case Type::F16: return "f16";
    case Type::F16x2: return "f16x2";
    case Type::BF16: return "bf16";
    case Type::BF16x2: return "bf16x2";
    case Type::F32: return "f32";
    case Type::F64: return "f64";
  }
  return "?";
}

const char* spaceName(Space s) {
  switch (s) {
    case Space::None: return "none";
    case Space::Generic: return "generic";
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Local: return "local";
    case Space::Const: return "const";
    case Space::Param: return "param";
    case Space::Reg: return "reg";
  }
  return "?";
}

const char* opName(Op op) {
  static const char* const kNames[] = {
      "mov", "ld", "ldu", "st", "cvta", "cvt", "prefetch",
      "add", "sub", "mul", "mad", "mul24", "mad24", "div", "rem", "abs", "neg", "min", "max",
      "fma", "sad", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "copysign",
      "testp",
      "and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi",
      "prmt", "lop3", "shf", "bfind", "fns", "bmsk",
      "setp", "set", "selp", "slct",
      "bra", "call", "ret", "exit", "trap", "brkpt",
      "bar", "membar", "fence", "atom", "red", "shfl", "vote", "activemask", "match",
      "nanosleep",
      "dp4a", "dp2a",
      "ext",
  };
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Op::Count_),
                "opName table out of step with Op");
  const auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(Op::Count_) ? kNames[i] : "?";
}

const char* mroleName(MRole r) {
  switch (r) {
    case MRole::Code: return "code";
    case MRole::Spill: return "spill";
    case MRole::Fill: return "fill";
    case MRole::Save: return "save";
    case MRole::Restore: return "restore";
    case MRole::StackAdj: return "stack-adjust";
    case MRole::ArgMove: return "arg-move";
    case MRole::ArgStack: return "arg-stack";
    case MRole::DemStore: return "demote-store";
    case MRole::DemLoad: return "demote-load";
  }
  return "?";
}

}  // namespace rfsim::ptx
