#include "mech/cars/cars_passes.h"

#include <algorithm>

#include <fmt/format.h>

#include "backend/backend.h"
#include "common/error.h"
#include "ptx/analysis/callgraph.h"
#include "ptx/isa_ext.h"
#include "ptx/machine.h"

namespace rfsim::cars {

namespace mach = ptx::mach;

std::vector<ptx::ExtOpDesc> carsIsaOps() {
  ptx::ExtOpDesc push;
  push.name = "cars.push";
  push.mnemonic = "push";
  push.summary = "RSP += n: R16..R16+n-1 renamed to new registers of the warp's stack; moves no data (CARS III-A)";
  push.timing = ptx::ExtTiming::Issue;
  push.max_src = 1;
  push.reg_effect = ptx::ExtRegEffect::StackPush;
  ptx::ExtOpDesc pop = push;
  pop.name = "cars.pop";
  pop.mnemonic = "pop";
  pop.summary = "RSP -= n: the caller's R16.. come back; moves no data (CARS III-A)";
  pop.reg_effect = ptx::ExtRegEffect::StackPop;
  return {push, pop};
}

namespace {

// The pushed range of a function whose callee-saved set is `saved`: R16 up
// to the highest saved register.
uint32_t pushedRange(const std::vector<uint32_t>& saved) {
  uint32_t top = 0;
  for (uint32_t r : saved)
    if (r >= 16 && r < mach::kRZ) top = std::max(top, r - 15);
  return top;
}

void pushPop(ptx::Function& fn, backend::SlotValues& values, const backend::MachinePassContext& ctx) {
  uint16_t push = 0, pop = 0;
  if (!ptx::findExtOp("cars.push", &push) || !ptx::findExtOp("cars.pop", &pop))
    throw Error("cars.push_pop: the CARS instructions are not registered");
  const ptx::ControlField fru_field = ptx::registerControlField(kFruField, kFruBits);
  const uint32_t fru = fn.is_entry ? 0 : pushedRange(ctx.report.callee_saved);
  if (fru >= (1u << kFruBits))
    throw Error(fmt::format("cars.push_pop: function {} would push {} registers, more than the {}-bit FRU field holds",
                            fn.name, fru, kFruBits));
  if (fru) {
    // Every register of the range is renamed, saved or not.
    std::vector<uint32_t> range;
    for (uint32_t r = 16; r < 16 + fru; ++r) range.push_back(r);
    ctx.report.callee_saved = range;
  }
  // Each run of saves (the prologue) becomes one push, each run of restores
  // (an epilogue, with its ret's guard) one pop.
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    auto& code = fn.blocks[b].instrs;
    auto& vals = values[b];
    for (size_t i = 0; i < code.size();) {
      const ptx::MRole role = code[i].role;
      if (role != ptx::MRole::Save && role != ptx::MRole::Restore) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < code.size() && code[j].role == role) ++j;
      ptx::Instr op = ptx::makeExtInstr(role == ptx::MRole::Save ? push : pop, {fru});
      op.loc = code[i].loc;
      op.guard = code[i].guard;
      code.erase(code.begin() + static_cast<std::ptrdiff_t>(i), code.begin() + static_cast<std::ptrdiff_t>(j));
      vals.erase(vals.begin() + static_cast<std::ptrdiff_t>(i), vals.begin() + static_cast<std::ptrdiff_t>(j));
      code.insert(code.begin() + static_cast<std::ptrdiff_t>(i), op);
      vals.insert(vals.begin() + static_cast<std::ptrdiff_t>(i), std::vector<uint32_t>{});
      ++i;
    }
  }
  // FRU on calls (the callee's) and rets (its own).
  const std::vector<bool> taken = ptx::addressTaken(ctx.module);
  auto fruOf = [&](uint32_t f) -> uint32_t {
    if (f == ctx.report.index) return fru;
    const backend::FunctionReport* r = f < ctx.finished.size() ? ctx.finished[f] : nullptr;
    return r && !r->entry ? pushedRange(r->callee_saved) : 0;
  };
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs) {
      if (in.op == ptx::Op::Ret) fru_field.set(in, fru);
      if (in.op != ptx::Op::Call || in.call >= fn.calls.size()) continue;
      const ptx::CallInfo& c = fn.calls[in.call];
      uint32_t need = 0;
      if (!c.indirect) {
        need = fruOf(c.callee);
      } else {
        for (uint32_t t : ptx::indirectTargets(ctx.module, c, taken)) need = std::max(need, fruOf(t));
      }
      fru_field.set(in, std::min<uint32_t>(need, (1u << kFruBits) - 1));
    }
}

}  // namespace

backend::Variant carsVariant() {
  backend::Variant v;
  v.name = "cars";
  v.description = "callee-saved spills and fills replaced by register-stack push and pop (CARS IV-A)";
  v.post.push_back({"cars.push_pop", pushPop});
  return v;
}

Watermarks watermarksOf(const backend::CompiledModule& cm, const std::string& kernel) {
  const backend::FunctionReport* k = cm.find(kernel);
  if (!k || !k->entry) throw Error(fmt::format("CARS watermarks: no kernel named '{}'", kernel));
  const size_t nf = cm.callgraph.callees.size();
  std::vector<uint64_t> fru(nf, 0), frame(nf, 0);
  for (const auto& r : cm.functions) {
    const uint32_t f = r.entry ? r.regs : pushedRange(r.callee_saved);
    fru[r.index] = f;
    frame[r.index] = r.entry ? r.regs : f + 1;
  }
  Watermarks w;
  w.kernel_fru = k->regs;
  w.max_stack_depth = ptx::maxPathWeight(cm.callgraph, fru)[k->index];
  w.high_regs = ptx::maxPathWeight(cm.callgraph, frame)[k->index];
  std::vector<bool> seen(nf, false);
  std::vector<uint32_t> work{k->index};
  seen[k->index] = true;
  while (!work.empty()) {
    const uint32_t f = work.back();
    work.pop_back();
    for (uint32_t c : cm.callgraph.callees[f]) {
      if (c == k->index) continue;
      w.calls = true;
      w.max_fru = std::max<uint32_t>(w.max_fru, static_cast<uint32_t>(fru[c]));
      if (!seen[c]) seen[c] = true, work.push_back(c);
    }
  }
  // Only a function's pushed range R16..R16+FRU-1 is renamed: every other
  // register it uses -- R0..R15, and registers above the range (caller-saved
  // temporaries beyond the callee-saved R16..R31) -- is the warp's Base + x,
  // so the Base region covers the highest of them over the reached functions.
  for (const auto& r : cm.functions) {
    if (!seen[r.index]) continue;
    if (r.recursive) w.recursive = true;
    const uint32_t pushed = pushedRange(r.callee_saved);
    const uint32_t base_need = r.regs > 16 + pushed ? r.regs : std::min<uint32_t>(r.regs, 16);
    w.kernel_fru = std::max(w.kernel_fru, base_need);
  }
  // The paths' weights counted the kernel's own registers for its frame.
  w.max_stack_depth += w.kernel_fru - k->regs;
  w.high_regs += w.kernel_fru - k->regs;
  return w;
}

}  // namespace rfsim::cars
