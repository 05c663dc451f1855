// The physical registers a machine instruction reads and writes
// (DInstr::reads / writes), precomputed at load for the timing model.
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

}  // namespace rfsim::func
