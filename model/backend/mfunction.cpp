// Operand slots and value bookkeeping of the back end's working form (mfunction.h).
#include "backend/mfunction.h"

#include "common/error.h"

namespace rfsim::backend {

unsigned machineBits(ptx::Type t) {
  const unsigned b = ptx::typeBits(t);
  if (b == 1) return 1;
  if (b <= 16) return 16;
  if (b <= 32) return 32;
  if (b <= 64) return 64;
  throw Error(std::string("the back end cannot place a .") + ptx::typeName(t) + " register");
}

ptx::Operand regOperand(uint32_t reg, unsigned mbits) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Reg;
  o.regs[0] = reg;
  o.mbits = static_cast<uint8_t>(mbits);
  return o;
}

ptx::Operand immOperand(int64_t value) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Imm;
  o.imm = value;
  return o;
}

ptx::Operand stackAddr(uint32_t sp, int64_t offset) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Addr;
  o.regs[0] = sp;
  o.mbits = 32;
  o.imm = offset;
  return o;
}

std::vector<ptx::RegInfo> machineRegisterTable() {
  namespace mach = ptx::mach;
  std::vector<ptx::RegInfo> regs(mach::kNumRegIds);
  for (uint32_t r = 0; r < mach::kNumRegIds; ++r) {
    regs[r].name = mach::regName(r);
    regs[r].type = mach::isPred(r) ? ptx::Type::Pred : ptx::Type::B32;
  }
  return regs;
}

uint32_t MFunction::newVreg(ptx::Type type, unsigned bits, uint32_t origin_of) {
  const uint32_t id = static_cast<uint32_t>(fn.regs.size());
  ptx::RegInfo ri;
  ri.type = type;
  ri.name = "%t" + std::to_string(id);
  if (origin_of != ptx::kNoReg && origin_of < fn.regs.size()) ri.name = fn.regs[origin_of].name + "." + std::to_string(id);
  fn.regs.push_back(ri);
  vbits.push_back(bits);
  origin.push_back(origin_of == ptx::kNoReg ? id : origin[origin_of]);
  return id;
}

namespace {

void operandSlots(ptx::Operand& o, bool def, bool guarded, int index, const std::function<void(const Slot&)>& f) {
  using K = ptx::OperandKind;
  switch (o.kind) {
    case K::Reg: case K::PredOut:
      if (o.regs[0] != ptx::kNoReg) f({&o.regs[0], o.mbits, def, guarded, index});
      break;
    case K::Vec:
      for (unsigned i = 0; i < o.vec_n; ++i)
        if (o.regs[i] != ptx::kNoReg) f({&o.regs[i], o.mbits, def, guarded, index});
      break;
    case K::Addr:
      if (o.regs[0] != ptx::kNoReg) f({&o.regs[0], o.mbits, false, false, index});
      break;
    default: break;
  }
}

}  // namespace

void forEachSlot(ptx::Instr& in, ptx::Function& fn, const std::function<void(const Slot&)>& f) {
  const bool guarded = in.guard.kind == ptx::OperandKind::Reg;
  if (guarded && in.guard.regs[0] != ptx::kNoReg) f({&in.guard.regs[0], 1, false, false, -1});
  for (unsigned k = 0; k < in.nsrc; ++k) operandSlots(in.src[k], false, false, static_cast<int>(k), f);
  if (in.op == ptx::Op::Call && in.call < fn.calls.size()) {
    ptx::CallInfo& c = fn.calls[in.call];
    if (c.indirect && c.target_reg != ptx::kNoReg) f({&c.target_reg, 64, false, false, -2});
    for (uint32_t& r : c.machine_uses) f({&r, 32, false, false, -3});
  }
  for (unsigned i = 0; i < in.ndst; ++i) operandSlots(in.dst[i], true, guarded, 10 + static_cast<int>(i), f);
  if (hasScratch(in)) operandSlots(in.dst[1], true, false, 11, f);
  if (in.op == ptx::Op::Call && in.call < fn.calls.size())
    for (uint32_t& r : fn.calls[in.call].machine_defs) f({&r, 32, true, guarded, -3});
}

}  // namespace rfsim::backend
