// Helpers for the machine-mode tests: PTX text parsed and turned into a
// machine program (ptx/machine.h) by a naive register allocation, so the
// executor's machine mode can be tested without the back end.
//
// Registers named %R<n>, %RH<n> (16-bit), %RD<n> (64-bit pair at R<n>),
// %RZ / %RZD (RZ as 32 / 64 bits) and %P<n> are pinned to those physical
// registers: hand-written machine code in PTX syntax. Every other virtual
// register gets its own physical register: 32- and 16-bit the next free GPR
// from R2 (R1 is the stack pointer), 64-bit the next free even pair,
// predicates the next free of P0..P6. Calls lose their .param arguments
// (machine calls pass values in registers and on the stack, by the code).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "func/memory.h"
#include "func/program.h"
#include "ptx/ir.h"
#include "ptx/machine.h"
#include "ptx/parser.h"

namespace rfsim::test {

// The physical register a pinned name stands for, or -1.
inline int pinnedReg(const std::string& name) {
  if (name == "%RZ" || name == "%RZD") return static_cast<int>(ptx::mach::kRZ);
  auto num = [&](size_t from) -> int {
    if (from >= name.size()) return -1;
    for (size_t i = from; i < name.size(); ++i)
      if (name[i] < '0' || name[i] > '9') return -1;
    return std::atoi(name.c_str() + from);
  };
  if (name.rfind("%RD", 0) == 0 || name.rfind("%RH", 0) == 0) return num(3);
  if (name.rfind("%R", 0) == 0) return num(2);
  if (name.rfind("%P", 0) == 0) {
    const int p = num(2);
    return p < 0 ? -1 : static_cast<int>(ptx::mach::kPredBase) + p;
  }
  return -1;
}

inline uint8_t machineBits(ptx::Type t) {
  const unsigned b = ptx::typeBits(t);
  return b == 1 ? 1 : b <= 16 ? 16 : b <= 32 ? 32 : 64;
}

inline void toMachineFunction(ptx::Function& fn) {
  using namespace ptx;
  if (fn.blocks.empty()) {  // a declaration (or a body dropped by toMachine)
    fn.regs.clear();
  }
  std::vector<uint32_t> phys(fn.regs.size(), kNoReg);
  std::set<uint32_t> used{mach::kSP, mach::kRZ};
  for (size_t r = 0; r < fn.regs.size(); ++r) {
    const int p = pinnedReg(fn.regs[r].name);
    if (p < 0) continue;
    phys[r] = static_cast<uint32_t>(p);
    used.insert(phys[r]);
    if (machineBits(fn.regs[r].type) == 64 && phys[r] != mach::kRZ) used.insert(phys[r] + 1);
  }
  uint32_t pred = mach::kPredBase;
  for (size_t r = 0; r < fn.regs.size(); ++r) {
    if (phys[r] != kNoReg) continue;
    const uint8_t bits = machineBits(fn.regs[r].type);
    if (bits == 1) {
      while (used.count(pred)) ++pred;
      if (pred >= mach::kNumRegIds) throw std::runtime_error("toMachine: out of predicates in " + fn.name);
      phys[r] = pred;
    } else {
      uint32_t g = 2;
      if (bits == 64) {
        while (used.count(g) || used.count(g + 1)) g += 2;
      } else {
        while (used.count(g)) ++g;
      }
      if (g + (bits == 64) >= mach::kRZ) throw std::runtime_error("toMachine: out of registers in " + fn.name);
      phys[r] = g;
      if (bits == 64) used.insert(g + 1);
    }
    used.insert(phys[r]);
  }
  auto fixRegs = [&](Operand& o, unsigned n) {
    uint8_t bits = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (o.regs[i] == kNoReg) continue;
      if (!bits) bits = machineBits(fn.regs[o.regs[i]].type);
      o.regs[i] = phys[o.regs[i]];
    }
    o.mbits = bits;
  };
  auto fix = [&](Operand& o) {
    switch (o.kind) {
      case OperandKind::Reg: case OperandKind::PredOut: case OperandKind::Addr: fixRegs(o, 1); break;
      case OperandKind::Vec: fixRegs(o, o.vec_n); break;
      default: break;
    }
  };
  for (BasicBlock& b : fn.blocks)
    for (Instr& in : b.instrs) {
      fix(in.guard);
      for (unsigned i = 0; i < in.ndst; ++i) fix(in.dst[i]);
      for (unsigned i = 0; i < in.nsrc; ++i) fix(in.src[i]);
    }
  for (CallInfo& ci : fn.calls) {
    if (ci.target_reg != kNoReg) ci.target_reg = phys[ci.target_reg];
    ci.args.clear();
    ci.rets.clear();
  }
  fn.regs.assign(mach::kNumRegIds, RegInfo{});
  for (uint32_t r = 0; r < mach::kNumRegIds; ++r) {
    fn.regs[r].name = mach::regName(r);
    fn.regs[r].type = mach::isPred(r) ? Type::Pred : Type::B32;
  }
}

// `only` (if not empty): the functions to keep; every other function loses
// its body (so modules with calls can be cut down to their call-free kernels).
inline ptx::Module toMachine(ptx::Module m, const std::set<std::string>& only = {}) {
  for (ptx::Function& fn : m.functions) {
    if (!only.empty() && !only.count(fn.name) && !fn.blocks.empty()) {
      fn.blocks.clear();
      fn.calls.clear();
      fn.is_extern = true;
    }
    toMachineFunction(fn);
  }
  m.machine = true;
  return m;
}

inline ptx::Module parseMachine(const std::string& text, const std::set<std::string>& only = {}) {
  return toMachine(ptx::parseString(text, "machine.ptx"), only);
}

// A loaded program with helpers for device buffers and raw arguments.
struct MachineRun {
  func::GlobalMemory mem;
  func::Program prog;
  explicit MachineRun(ptx::Module m, func::Limits lim = {}) : prog(std::move(m), mem, lim) {}
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    const uint64_t a = mem.allocate(std::max<size_t>(v.size() * sizeof(T), 1), func::AllocKind::Malloc);
    if (!v.empty()) mem.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> download(uint64_t a, size_t n) {
    std::vector<T> v(n);
    mem.read(v.data(), a, n * sizeof(T));
    return v;
  }
};

template <class T>
std::vector<uint8_t> arg(T v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

}  // namespace rfsim::test
