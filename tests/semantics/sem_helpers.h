// Helpers for the lane-semantics tests: build an Instr by hand, run one lane.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "func/semantics/detail.h"
#include "func/semantics/semantics.h"

namespace semtest {

using namespace rfsim::ptx;

inline Instr mk(Op op, Type t, unsigned nsrc, Type t2 = Type::None) {
  Instr in;
  in.op = op;
  in.type = t;
  in.type2 = t2;
  in.ndst = 1;
  in.nsrc = static_cast<uint8_t>(nsrc);
  in.dst[0].kind = OperandKind::Reg;
  in.dst[0].regs[0] = 0;
  for (unsigned i = 0; i < nsrc; ++i) {
    in.src[i].kind = OperandKind::Reg;
    in.src[i].regs[0] = i + 1;
  }
  return in;
}

inline bool supported(const Instr& in, std::string* why = nullptr) {
  std::string w;
  bool ok = rfsim::func::laneSupports(in, &w);
  if (why) *why = w;
  return ok;
}

// Runs one lane; the instruction must be supported (carry forms included:
// the carry-in is the source after the last, the carry-out lands in *d1).
inline uint64_t run(const Instr& in, std::initializer_list<uint64_t> srcs, uint64_t* d1 = nullptr) {
  std::string why;
  bool ok = rfsim::func::laneSupports(in, &why, /*with_carry=*/true);
  INFO(why);
  REQUIRE(ok);
  uint64_t s[8] = {};
  unsigned i = 0;
  for (uint64_t v : srcs) s[i++] = v;
  uint64_t d[4] = {0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef};
  rfsim::func::evalLane(in, s, d);
  if (d1) *d1 = d[1];
  return d[0];
}

// Bit casts: the library's own (func/semantics/detail.h).
inline uint64_t fb(float f) { return rfsim::func::detail::bits(f); }
inline uint64_t db(double f) { return rfsim::func::detail::bits(f); }
inline float bf(uint64_t b) { return rfsim::func::detail::f32(b); }
inline double bd(uint64_t b) { return rfsim::func::detail::f64(b); }
inline uint64_t u32(int64_t v) { return static_cast<uint64_t>(v) & 0xffffffffu; }
inline uint64_t u16(int64_t v) { return static_cast<uint64_t>(v) & 0xffffu; }
inline uint64_t u64(int64_t v) { return static_cast<uint64_t>(v); }

}  // namespace semtest
