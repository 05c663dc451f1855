// Helpers shared by the PTX front-end tests.
#pragma once

#include <string>

#include <catch2/catch.hpp>

#include "common/error.h"
#include "ptx/parser.h"

namespace rfsim::ptx::test {

// The three header lines nvcc writes; a body given to parse() starts on line 4.
inline const char* const kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

inline Module parse(const std::string& body) { return parseString(std::string(kHeader) + body, "test.ptx"); }

// The message of the rfsim::Error parsing `body` throws, or "" if it parses.
inline std::string parseError(const std::string& body) {
  try {
    parse(body);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The n-th instruction of a function, counting through its blocks.
inline const Instr& instrAt(const Function& f, size_t n) {
  for (const auto& b : f.blocks) {
    if (n < b.instrs.size()) return b.instrs[n];
    n -= b.instrs.size();
  }
  throw Error("no such instruction");
}

// Index of the register named `name` in f (fails the test when absent).
inline uint32_t regId(const Function& f, const std::string& name) {
  for (size_t i = 0; i < f.regs.size(); ++i) {
    if (f.regs[i].name == name) return static_cast<uint32_t>(i);
  }
  FAIL("no register " << name);
  return kNoReg;
}

inline size_t instrCount(const Function& f) {
  size_t n = 0;
  for (const auto& b : f.blocks) n += b.instrs.size();
  return n;
}

// Wraps instructions in a kernel with some registers of every kind.
inline std::string kernel(const std::string& instrs) {
  return ".visible .entry k(\n.param .u64 k_param_0\n)\n{\n"
         ".reg .pred %p<4>;\n.reg .b16 %rs<4>;\n.reg .b32 %r<10>;\n.reg .f32 %f<6>;\n"
         ".reg .b64 %rd<6>;\n.reg .f64 %fd<4>;\n.reg .s32 %s<3>;\n.reg .u64 %u<3>;\n" +
         instrs + "\nret;\n}\n";
}

// Parses one kernel built by kernel() and returns its first instruction.
inline Instr first(const std::string& instr) {
  const Module m = parse(kernel(instr));
  return instrAt(m.functions.at(0), 0);
}

}  // namespace rfsim::ptx::test
