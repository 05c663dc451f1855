#include "mech/regdem/shared_area.h"

#include <algorithm>

#include "backend/mfunction.h"
#include "common/error.h"
#include "config/occupancy.h"
#include "mech/regdem/regdem_config.h"

#include <fmt/format.h>

namespace rfsim::regdem {

namespace {

ptx::Instr alu(ptx::Op op, uint32_t dst, ptx::Operand a, ptx::Operand b) {
  ptx::Instr in;
  in.op = op;
  in.type = op == ptx::Op::Shl ? ptx::Type::B32 : ptx::Type::U32;
  if (op == ptx::Op::Mul) in.mods.mul = ptx::MulMode::Lo;
  in.ndst = 1;
  in.dst[0] = backend::regOperand(dst, 32);
  in.nsrc = b.kind == ptx::OperandKind::None ? 1 : 2;
  in.src[0] = a;
  in.src[1] = b;
  return in;
}

ptx::Operand sreg(ptx::SReg r, uint8_t dim) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::SReg;
  o.sreg = r;
  o.dim = dim;
  return o;
}

}  // namespace

uint32_t blocksAt(const config::GpuConfig& gpu, uint32_t regs, uint32_t threads, uint32_t shared) {
  try {
    return config::computeOccupancy(gpu, {threads, regs, shared}).blocks;
  } catch (const Error&) {
    return 0;
  }
}

// The kernel's static shared bytes (its module's shared variables but the area).
uint32_t staticShared(const ptx::Module& m) {
  uint64_t bytes = 0;
  for (const ptx::Symbol& s : m.symbols) {
    if (s.space != ptx::Space::Shared || s.is_extern || s.size == 0 || s.name == kAreaSymbol) continue;
    const uint64_t a = std::max<uint32_t>(s.align, 4);
    bytes = (bytes + a - 1) / a * a + s.size;
  }
  return static_cast<uint32_t>((bytes + 15) / 16 * 16);
}

ptx::Instr sharedAccess(bool store, uint32_t rdv, uint32_t rda, int64_t off) {
  ptx::Instr in;
  in.op = store ? ptx::Op::St : ptx::Op::Ld;
  in.type = ptx::Type::B32;
  in.space = ptx::Space::Shared;
  in.role = store ? ptx::MRole::DemStore : ptx::MRole::DemLoad;
  const ptx::Operand addr = backend::stackAddr(rda, off);
  if (store) {
    in.nsrc = 2;
    in.src[0] = addr;
    in.src[1] = backend::regOperand(rdv, 32);
  } else {
    in.ndst = 1;
    in.dst[0] = backend::regOperand(rdv, 32);
    in.nsrc = 1;
    in.src[0] = addr;
  }
  return in;
}

// RDA = area + t*4, t = tid.x + ntid.x*(tid.y + ntid.y*tid.z) (the paper
// leaves this one-time code out; docs/regdem.md). RDV is free to use here.
std::vector<ptx::Instr> rdaSetup(const ptx::Function& fn, uint32_t rda, uint32_t rdv, uint32_t area_sym) {
  using ptx::Op;
  const ptx::Operand A = backend::regOperand(rda, 32), V = backend::regOperand(rdv, 32), none;
  std::vector<ptx::Instr> code;
  const bool one_d = fn.reqntid[0] && fn.reqntid[1] <= 1 && fn.reqntid[2] <= 1;
  if (one_d) {
    code.push_back(alu(Op::Mov, rda, sreg(ptx::SReg::Tid, 0), none));
  } else {
    code.push_back(alu(Op::Mov, rda, sreg(ptx::SReg::Tid, 2), none));
    code.push_back(alu(Op::Mov, rdv, sreg(ptx::SReg::Ntid, 1), none));
    code.push_back(alu(Op::Mul, rda, A, V));
    code.push_back(alu(Op::Mov, rdv, sreg(ptx::SReg::Tid, 1), none));
    code.push_back(alu(Op::Add, rda, A, V));
    code.push_back(alu(Op::Mov, rdv, sreg(ptx::SReg::Ntid, 0), none));
    code.push_back(alu(Op::Mul, rda, A, V));
    code.push_back(alu(Op::Mov, rdv, sreg(ptx::SReg::Tid, 0), none));
    code.push_back(alu(Op::Add, rda, A, V));
  }
  code.push_back(alu(Op::Shl, rda, A, backend::immOperand(2)));
  ptx::Operand sym;
  sym.kind = ptx::OperandKind::Sym;
  sym.sym = area_sym;
  code.push_back(alu(Op::Add, rda, A, sym));
  return code;
}

std::vector<uint32_t> noValues(const ptx::Instr& in, const ptx::Function& fn) {
  size_t n = 0;
  backend::forEachSlot(const_cast<ptx::Instr&>(in), const_cast<ptx::Function&>(fn), [&](const backend::Slot&) { ++n; });
  return std::vector<uint32_t>(n, ptx::kNoReg);
}

uint32_t threadsOf(const ptx::Function& fn) {
  const uint32_t* d = fn.reqntid[0] ? fn.reqntid : fn.maxntid;
  if (!d[0]) return 0;
  return d[0] * std::max(1u, d[1]) * std::max(1u, d[2]);
}

uint32_t areaSymbol(ptx::Module& m, uint64_t bytes) {
  for (uint32_t s = 0; s < m.symbols.size(); ++s)
    if (m.symbols[s].name == kAreaSymbol) {
      ptx::Symbol& sym = m.symbols[s];
      sym.size = std::max(sym.size, bytes);
      sym.count = sym.size / 4;
      return s;
    }
  ptx::Symbol sym;
  sym.name = kAreaSymbol;
  sym.space = ptx::Space::Shared;
  sym.type = ptx::Type::B32;
  sym.align = 4;
  sym.size = bytes;
  sym.count = bytes / 4;
  m.symbols.push_back(sym);
  return static_cast<uint32_t>(m.symbols.size() - 1);
}

uint32_t kernelTarget(const RegDemConfig& cfg, const std::string& kernel) {
  size_t at = 0;
  while (at < cfg.targets.size()) {
    size_t end = cfg.targets.find(',', at);
    if (end == std::string::npos) end = cfg.targets.size();
    const std::string item = cfg.targets.substr(at, end - at);
    at = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size() ||
        item.find_first_not_of("0123456789", eq + 1) != std::string::npos)
      throw Error(fmt::format("mechanisms.regdem.targets: '{}' is not kernel=registers", item));
    if (item.compare(0, eq, kernel) == 0 && eq == kernel.size()) {
      const unsigned long n = std::stoul(item.substr(eq + 1));
      if (n < 2 || n > 255)
        throw Error(fmt::format("mechanisms.regdem.targets: '{}': a target is 2 to 255 registers", item));
      return static_cast<uint32_t>(n);
    }
  }
  return 0;
}

}  // namespace rfsim::regdem
