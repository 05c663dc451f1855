// The physical registers a machine instruction reads and writes
// (DInstr::reads / writes), precomputed at load for the timing model.
#include <array>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "func/decode.h"

namespace rfsim::func {

namespace {

template <size_t N>
void add(std::array<uint16_t, N>& list, uint8_t& n, uint32_t id, const ptx::Instr& in) {
  if (id == ptx::kNoReg || id == ptx::mach::kRZ || id >= ptx::mach::kNumRegIds) return;
  for (uint8_t i = 0; i < n; ++i)
    if (list[i] == id) return;
  if (n == N)
    throw Error(fmt::format("line {}: internal error: machine instruction uses more than {} registers one way",
                            in.loc.line, N));
  list[n++] = static_cast<uint16_t>(id);
}

// Every register of `o`; a 64-bit operand (mbits 64) as both halves of its pair.
template <size_t N>
void addOperand(std::array<uint16_t, N>& list, uint8_t& n, const ptx::Operand& o, const ptx::Instr& in) {
  unsigned count = 0;
  switch (o.kind) {
    case ptx::OperandKind::Reg: case ptx::OperandKind::Addr: case ptx::OperandKind::PredOut: count = 1; break;
    case ptx::OperandKind::Vec: count = o.vec_n; break;
    default: return;
  }
  for (unsigned i = 0; i < count && i < o.regs.size(); ++i) {
    const uint32_t r = o.regs[i];
    if (r == ptx::kNoReg || r == ptx::mach::kRZ) continue;  // a sink, an immediate element, RZ (or RZ as a pair)
    add(list, n, r, in);
    if (o.mbits == 64) add(list, n, r + 1, in);
  }
}

}  // namespace

void fillRegUse(const ptx::Instr& in, const ptx::CallInfo* call, DInstr& d) {
  d.nreads = d.nwrites = 0;
  if (in.guard.kind == ptx::OperandKind::Reg) addOperand(d.reads, d.nreads, in.guard, in);
  for (unsigned i = 0; i < in.nsrc && i < in.src.size(); ++i) addOperand(d.reads, d.nreads, in.src[i], in);
  for (unsigned i = 0; i < in.ndst && i < in.dst.size(); ++i) addOperand(d.writes, d.nwrites, in.dst[i], in);
  if (call) {
    if (call->indirect && call->target_reg != ptx::kNoReg && call->target_reg != ptx::mach::kRZ) {
      // A code address: always a 64-bit pair.
      add(d.reads, d.nreads, call->target_reg, in);
      add(d.reads, d.nreads, call->target_reg + 1, in);
    }
    for (uint32_t r : call->machine_uses) add(d.reads, d.nreads, r, in);
    for (uint32_t r : call->machine_defs) add(d.writes, d.nwrites, r, in);
  }
}

void setReuseFlags(std::vector<DInstr>& code, const std::vector<uint32_t>& block_pc) {
  constexpr unsigned kSlots = 8;  // bits of DInstr::reuse
  std::vector<bool> starts(code.size() + 1, false);
  for (uint32_t pc : block_pc)
    if (pc < starts.size()) starts[pc] = true;
  auto control = [](const DInstr& d) {
    return d.cls == Cls::Bra || d.cls == Cls::Call || d.cls == Cls::Ret || d.cls == Cls::Exit || d.cls == Cls::Bar ||
           d.cls == Cls::Trap || d.cls == Cls::Brkpt;
  };
  // ptxas flags only unpredicated ALU instructions (loads, stores, shuffles
  // and the like read their operands through the memory pipeline's queue),
  // and a predicated instruction ends its search (scripts/reuse_flags.py
  // measures the agreement on real SASS).
  auto alu = [](const DInstr& d) { return (d.cls == Cls::Lane || d.cls == Cls::MovVec) && !d.has_guard; };
  // The register-file operands of an instruction, in slot order.
  std::vector<std::array<uint16_t, kSlots>> slot(code.size());
  std::vector<uint8_t> nslots(code.size(), 0);
  for (size_t pc = 0; pc < code.size(); ++pc) {
    const DInstr& d = code[pc];
    for (unsigned i = 0; i < d.nreads && nslots[pc] < kSlots; ++i)
      if (ptx::mach::isRowReg(d.reads[i])) slot[pc][nslots[pc]++] = d.reads[i];
  }
  auto writes = [](const DInstr& d, uint16_t r) {
    for (unsigned w = 0; w < d.nwrites; ++w)
      if (d.writes[w] == r) return true;
    return false;
  };
  for (size_t pc = 0; pc < code.size(); ++pc) {
    DInstr& d = code[pc];
    d.reuse = 0;
    for (unsigned k = 0; k < nslots[pc]; ++k) {
      const uint16_t r = slot[pc][k];
      bool stop = writes(d, r) || !alu(d);
      // The next instruction of the block that reads a register in slot k
      // (one with fewer operands leaves the slot as it is).
      for (size_t q = pc; !stop && !control(code[q]) && q + 1 < code.size() && !starts[q + 1];) {
        ++q;
        if (nslots[q] > k) {
          if (slot[q][k] == r && alu(code[q])) d.reuse |= static_cast<uint8_t>(1u << k);
          break;
        }
        stop = writes(code[q], r) || code[q].has_guard;
      }
    }
  }
}

ReuseCount reuseCount(const ptx::Function& fn) {
  std::vector<DInstr> code;
  std::vector<uint32_t> block_pc;
  for (const ptx::BasicBlock& b : fn.blocks) {
    block_pc.push_back(static_cast<uint32_t>(code.size()));
    for (const ptx::Instr& in : b.instrs) {
      DInstr d;
      d.in = &in;
      switch (in.op) {
        case ptx::Op::Bra: d.cls = Cls::Bra; break;
        case ptx::Op::Call: d.cls = Cls::Call; break;
        case ptx::Op::Ret: d.cls = Cls::Ret; break;
        case ptx::Op::Exit: d.cls = Cls::Exit; break;
        case ptx::Op::Trap: d.cls = Cls::Trap; break;
        case ptx::Op::Brkpt: d.cls = Cls::Brkpt; break;
        case ptx::Op::Bar: d.cls = Cls::Bar; break;
        case ptx::Op::Ld: d.cls = Cls::Ld; break;
        case ptx::Op::St: d.cls = Cls::St; break;
        case ptx::Op::Atom: d.cls = Cls::Atom; break;
        case ptx::Op::Red: d.cls = Cls::Red; break;
        case ptx::Op::Shfl: d.cls = Cls::Shfl; break;
        case ptx::Op::Vote: d.cls = Cls::Vote; break;
        default: d.cls = Cls::Lane; break;
      }
      d.has_guard = in.guard.kind == ptx::OperandKind::Reg;
      fillRegUse(in, nullptr, d);
      code.push_back(d);
    }
  }
  setReuseFlags(code, block_pc);
  ReuseCount n;
  for (const DInstr& d : code) {
    for (unsigned i = 0; i < d.nreads; ++i) n.operands += ptx::mach::isRowReg(d.reads[i]);
    n.flagged += static_cast<uint64_t>(__builtin_popcount(d.reuse));
  }
  return n;
}

}  // namespace rfsim::func
