#include "ptx/analysis/cfg.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::ptx {

namespace {

bool guarded(const Instr& in) { return in.guard.kind == OperandKind::Reg; }

void addEdge(std::vector<uint32_t>& succs, uint32_t to) {
  if (std::find(succs.begin(), succs.end(), to) == succs.end()) succs.push_back(to);
}

uint32_t branchTarget(const Function& fn, uint32_t b, const Instr& in) {
  if (in.nsrc < 1 || in.src[0].kind != OperandKind::Label)
    throw Error(fmt::format("{}: block {} line {}: bra without a label operand (indirect branches are not supported)",
                            fn.name, b, in.loc.line));
  const uint32_t t = in.src[0].block;
  if (t >= fn.blocks.size())
    throw Error(fmt::format("{}: block {} line {}: branch to block {} of {}", fn.name, b, in.loc.line, t,
                            fn.blocks.size()));
  return t;
}

}  // namespace

bool leavesFunction(const Instr& in) { return in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap; }

bool leavesFunction(const BasicBlock& bb) {
  return std::any_of(bb.instrs.begin(), bb.instrs.end(), [](const Instr& in) { return leavesFunction(in); });
}

void buildCfg(Function& fn) {
  const uint32_t n = static_cast<uint32_t>(fn.blocks.size());
  for (auto& bb : fn.blocks) {
    bb.succs.clear();
    bb.preds.clear();
  }
  for (uint32_t b = 0; b < n; ++b) {
    BasicBlock& bb = fn.blocks[b];
    bool falls_through = true;
    // The front end ends a block at its first terminator; scanning the whole
    // block also covers a guarded branch in the middle of one.
    for (const Instr& in : bb.instrs) {
      if (in.op == Op::Bra) {
        addEdge(bb.succs, branchTarget(fn, b, in));
        if (!guarded(in)) {
          falls_through = false;
          break;
        }
      } else if (leavesFunction(in) && !guarded(in)) {
        falls_through = false;
        break;
      }
    }
    if (falls_through && b + 1 < n) addEdge(bb.succs, b + 1);
  }
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t s : fn.blocks[b].succs) fn.blocks[s].preds.push_back(b);
}

void buildCfg(Module& m) {
  for (auto& fn : m.functions)
    if (!fn.blocks.empty()) buildCfg(fn);
}

}  // namespace rfsim::ptx
