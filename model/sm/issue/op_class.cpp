#include "sm/issue/op_class.h"

#include "ptx/isa_ext.h"

namespace rfsim::sm {

using ptx::Op;
using ptx::Type;


const char* latClassName(LatClass c) {
  static const char* const names[] = {"int_add", "int_mul", "int_mad", "int_div", "fp32_add", "fp32_mul", "fp32_fma",
                                      "fp32_div", "sfu", "fp64_add", "fp64_fma", "fp64_div", "shared", "const", "memory"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<size_t>(LatClass::Count_), "latClassName table");
  const auto i = static_cast<unsigned>(c);
  return i < static_cast<unsigned>(LatClass::Count_) ? names[i] : "?";
}

namespace {

// The "width" of an op's arithmetic: fp64, another float, or integer/bits.
enum class Kind { F64, Float, Int };
Kind kindOf(Type a, Type b = Type::None) {
  if (a == Type::F64 || b == Type::F64) return Kind::F64;
  if (ptx::isFloat(a) || ptx::isFloat(b)) return Kind::Float;
  return Kind::Int;
}

OpClass arith(Kind k, LatClass f64, LatClass f32, LatClass i) {
  switch (k) {
    case Kind::F64: return {UnitType::DP, f64};
    case Kind::Float: return {UnitType::SP, f32};
    default: return {UnitType::INT, i};
  }
}

constexpr OpClass kIntAlu{UnitType::INT, LatClass::IntAdd};

}  // namespace

OpClass classifyOp(const ptx::Instr& in) {
  const Kind k = kindOf(in.type);
  switch (in.op) {
    case Op::Ld: case Op::Ldu: case Op::St: case Op::Atom: case Op::Red: case Op::Prefetch:
      if (in.space == ptx::Space::Shared) return {UnitType::LDST, LatClass::Shared};
      if ((in.op == Op::Ld || in.op == Op::Ldu) && (in.space == ptx::Space::Param || in.space == ptx::Space::Const))
        return {UnitType::LDST, LatClass::Const};
      return {UnitType::LDST, LatClass::Memory};
    case Op::Shfl:
      return {UnitType::LDST, LatClass::Shared};

    case Op::Add: case Op::Sub: case Op::Min: case Op::Max: case Op::Abs: case Op::Neg:
    case Op::Copysign: case Op::Testp:
      return arith(k, LatClass::Fp64Add, LatClass::Fp32Add, LatClass::IntAdd);
    case Op::Setp: case Op::Set: case Op::Slct: case Op::Cvt:
      return arith(kindOf(in.type, in.type2), LatClass::Fp64Add, LatClass::Fp32Add, LatClass::IntAdd);
    case Op::Mul:
      return arith(k, LatClass::Fp64Fma, LatClass::Fp32Mul, LatClass::IntMul);
    case Op::Mul24:
      return {UnitType::INT, LatClass::IntMul};
    case Op::Mad: case Op::Fma:
      return arith(k, LatClass::Fp64Fma, LatClass::Fp32Fma, LatClass::IntMad);
    case Op::Mad24: case Op::Sad: case Op::Dp4a: case Op::Dp2a:
      return {UnitType::INT, LatClass::IntMad};
    case Op::Div: case Op::Rem:
      if (k == Kind::F64) return {UnitType::DP, LatClass::Fp64Div};
      return {UnitType::SFU, k == Kind::Float ? LatClass::Fp32Div : LatClass::IntDiv};
    case Op::Rcp: case Op::Sqrt: case Op::Rsqrt:
      if (k == Kind::F64) return {UnitType::DP, LatClass::Fp64Div};
      return {UnitType::SFU, LatClass::Sfu};
    case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh:
      return {UnitType::SFU, LatClass::Sfu};

    case Op::Ext:  // a mechanism's instruction: where its table entry says
      return ptx::extOp(in.ext).timing == ptx::ExtTiming::Ldst ? OpClass{UnitType::LDST, LatClass::Const} : kIntAlu;
    case Op::Selp:  // a select moves bits whatever its type
    default:
      // mov, cvta, bit manipulation, control flow, barriers, fences, vote,
      // activemask, match, nanosleep: see the header.
      return kIntAlu;
  }
}

uint32_t unitCount(UnitType u, const config::PipelineConfig& p) {
  switch (u) {
    case UnitType::SP: return p.sp_units;
    case UnitType::INT: return p.int_units;
    case UnitType::SFU: return p.sfu_units;
    case UnitType::DP: return p.dp_units;
    case UnitType::LDST: return p.ldst_units;
    default: return 0;
  }
}

void classTiming(LatClass c, const config::GpuConfig& cfg, uint32_t& latency, uint32_t& ii) {
  const config::PipelineConfig& p = cfg.pipeline;
  switch (c) {
    case LatClass::IntAdd: latency = p.int_add_latency; ii = p.int_add_ii; return;
    case LatClass::IntMul: latency = p.int_mul_latency; ii = p.int_mul_ii; return;
    case LatClass::IntMad: latency = p.int_mad_latency; ii = p.int_mad_ii; return;
    case LatClass::IntDiv: latency = p.int_div_latency; ii = p.int_div_ii; return;
    case LatClass::Fp32Add: latency = p.fp32_add_latency; ii = p.fp32_add_ii; return;
    case LatClass::Fp32Mul: latency = p.fp32_mul_latency; ii = p.fp32_mul_ii; return;
    case LatClass::Fp32Fma: latency = p.fp32_fma_latency; ii = p.fp32_fma_ii; return;
    case LatClass::Fp32Div: latency = p.fp32_div_latency; ii = p.fp32_div_ii; return;
    case LatClass::Sfu: latency = p.sfu_latency; ii = p.sfu_ii; return;
    case LatClass::Fp64Add: latency = p.fp64_add_latency; ii = p.fp64_add_ii; return;
    case LatClass::Fp64Fma: latency = p.fp64_fma_latency; ii = p.fp64_fma_ii; return;
    case LatClass::Fp64Div: latency = p.fp64_div_latency; ii = p.fp64_div_ii; return;
    case LatClass::Shared: latency = cfg.shared.latency; ii = p.ldst_ii; return;
    case LatClass::Const: latency = p.const_latency; ii = p.ldst_ii; return;
    case LatClass::Memory:
    default: latency = p.mem_latency; ii = p.ldst_ii; return;
  }
}

OpTiming opTiming(const ptx::Instr& in, const config::GpuConfig& cfg) {
  const OpClass c = classifyOp(in);
  OpTiming t{c.unit, c.lat, 0, 0, c.unit};
  if ((t.unit == UnitType::INT || t.unit == UnitType::DP) && unitCount(t.unit, cfg.pipeline) == 0)
    t.unit = UnitType::SP;
  classTiming(c.lat, cfg, t.latency, t.ii);
  return t;
}

ptx::mach::DepTiming depTiming(const ptx::Instr& in, const config::GpuConfig& cfg) {
  const OpTiming t = opTiming(in, cfg);
  ptx::mach::DepTiming d;
  d.latency = t.latency;
  if (t.unit == UnitType::LDST && t.lat != LatClass::Const) {
    d.variable = true;
    d.kind = t.lat == LatClass::Shared ? ptx::mach::DepTiming::Shared : ptx::mach::DepTiming::Global;
  } else if (t.unit == UnitType::SFU || t.latency > ptx::mach::kMaxStall || t.ii >= 8) {
    d.variable = true;
  }
  return d;
}

}  // namespace rfsim::sm
