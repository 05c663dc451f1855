#include "mech/regdem/local.h"

#include <map>
#include <memory>

#include <fmt/format.h>

#include "backend/backend.h"
#include "common/error.h"
#include "backend/mfunction.h"
#include "mech/regdem/demote.h"
#include "mech/regdem/shared_area.h"
#include "ptx/machine.h"

namespace rfsim::regdem {

namespace mach = ptx::mach;

namespace {

// RegDem's target for a kernel that got `regs` registers, or 0 (keep).
uint32_t targetOf(const config::GpuConfig& gpu, const RegDemConfig& cfg, const ptx::Function& fn, uint32_t regs) {
  const uint32_t threads = threadsOf(fn);
  if (!fn.is_entry || !threads) return 0;
  const uint32_t named = kernelTarget(cfg, fn.name);
  const uint32_t t = named        ? named
                     : cfg.target ? cfg.target
                                  : autoTarget(gpu, regs, threads, 0, cfg.steps, cfg.min_regs);
  return t && t < regs ? t : 0;
}

bool isSpillAccess(const ptx::Instr& in) {
  return (in.role == ptx::MRole::Spill || in.role == ptx::MRole::Fill) && in.space == ptx::Space::Local &&
         in.src[0].kind == ptx::OperandKind::Addr && in.src[0].regs[0] == mach::kSP;
}

}  // namespace

backend::Variant localVariant(const config::GpuConfig& gpu_in, const RegDemConfig& cfg) {
  auto gpu = std::make_shared<const config::GpuConfig>(gpu_in);
  backend::Variant v;
  v.name = "local";
  v.description = "nvcc's code under --maxrregcount at RegDem's target: spills to local memory (RegDem Table 3)";
  v.reg_limit = [gpu, cfg](const ptx::Function& fn, uint32_t regs) { return targetOf(*gpu, cfg, fn, regs); };
  return v;
}

backend::Variant localSharedVariant(const config::GpuConfig& gpu_in, const RegDemConfig& cfg, bool relax) {
  auto gpu = std::make_shared<const config::GpuConfig>(gpu_in);
  backend::Variant v;
  v.name = relax ? "local-shared-relax" : "local-shared";
  v.description = relax ? "spills at RegDem's target moved to shared memory (RegDem Table 3)"
                        : "spills at 32 registers moved to shared memory (Hayes and Zhang; RegDem Table 3)";
  // One register fewer than the target: RDA takes it.
  v.reg_limit = [gpu, cfg, relax](const ptx::Function& fn, uint32_t regs) -> uint32_t {
    const uint32_t t = relax ? targetOf(*gpu, cfg, fn, regs) : (fn.is_entry && threadsOf(fn) && regs > 32 ? 32 : 0);
    return t ? t - 1 : 0;
  };
  v.post.push_back(spillsToSharedPass(gpu_in));
  return v;
}

backend::FunctionPass spillsToSharedPass(const config::GpuConfig& gpu_in) {
  auto gpu = std::make_shared<const config::GpuConfig>(gpu_in);
  return {"regdem.spills_to_shared", [gpu](ptx::Function& fn, backend::SlotValues& values,
                                           const backend::MachinePassContext& ctx) {
            if (!fn.is_entry) return;
            auto note = [&](const std::string& text) { ctx.report.notes.push_back("spills to shared: " + text); };
            // The 4-byte spill slots, each given a shared slot ordinal.
            std::map<int64_t, uint32_t> ordinal;
            bool calls = false;
            for (const auto& bb : fn.blocks)
              for (const auto& in : bb.instrs) {
                calls = calls || in.op == ptx::Op::Call;
                if (!isSpillAccess(in)) continue;
                const ptx::Operand& r = in.role == ptx::MRole::Spill ? in.src[1] : in.dst[0];
                for (unsigned k = 0; k < (r.mbits == 64 ? 2u : 1u); ++k) ordinal.emplace(in.src[0].imm + 4 * k, 0);
              }
            if (ordinal.empty()) return note("none (the kernel does not spill)");
            if (calls) return note("not applied: the kernel makes calls");
            const uint32_t threads = threadsOf(fn);
            if (!threads) return note("not applied: the block size is not known at compile time");
            if (!fn.blocks[0].preds.empty())
              return note("not applied: the entry block is a branch target (RDA's setup would run again)");
            const uint32_t rda = fn.machine_regs;
            if (rda >= mach::kRZ) return note("not applied: no register left for RDA");
            uint32_t words = 0;
            for (auto& [off, ord] : ordinal) ord = words++;
            const uint32_t bytes = words * threads * 4;
            const uint32_t shared = staticShared(ctx.module);
            const uint32_t per_block =
                gpu->shared.max_per_block_kb ? gpu->shared.max_per_block_kb * 1024u : gpu->shared.size_kb * 1024u;
            if (shared + bytes > per_block)
              return note(fmt::format("not applied: {} B of spill slots and the kernel's {} B exceed the {} B a "
                                      "block may use",
                                      bytes, shared, per_block));
            if (!ctx.edit) throw Error("regdem.spills_to_shared: the pass needs to add its shared area to the module");
            const uint32_t area = areaSymbol(*ctx.edit, bytes);
            const int64_t stride = int64_t{threads} * 4;
            uint32_t moved = 0;
            for (size_t b = 0; b < fn.blocks.size(); ++b) {
              std::vector<ptx::Instr> out;
              std::vector<std::vector<uint32_t>> out_vals;
              auto& code = fn.blocks[b].instrs;
              for (size_t i = 0; i < code.size(); ++i) {
                const ptx::Instr& in = code[i];
                if (!isSpillAccess(in)) {
                  out.push_back(in);
                  out_vals.push_back(values[b][i]);
                  continue;
                }
                const bool store = in.role == ptx::MRole::Spill;
                const ptx::Operand& r = store ? in.src[1] : in.dst[0];
                for (unsigned k = 0; k < (r.mbits == 64 ? 2u : 1u); ++k) {
                  ptx::Instr a = sharedAccess(store, r.regs[0] + k, rda, ordinal.at(in.src[0].imm + 4 * k) * stride);
                  a.loc = in.loc;
                  a.guard = in.guard;
                  out_vals.push_back(noValues(a, fn));
                  out.push_back(a);
                }
                ++moved;
              }
              code = std::move(out);
              values[b] = std::move(out_vals);
            }
            // RDA's setup at the entry; R0 is free there (a kernel receives
            // nothing in registers, and the entry block is no branch target).
            std::vector<ptx::Instr> setup = rdaSetup(fn, rda, 0, area);
            std::vector<std::vector<uint32_t>> setup_vals;
            for (auto& in : setup) {
              in.loc = fn.blocks[0].instrs.empty() ? fn.loc : fn.blocks[0].instrs.front().loc;
              setup_vals.push_back(noValues(in, fn));
            }
            fn.blocks[0].instrs.insert(fn.blocks[0].instrs.begin(), setup.begin(), setup.end());
            values[0].insert(values[0].begin(), setup_vals.begin(), setup_vals.end());
            note(fmt::format("{} spills and fills moved to {} B of shared memory per block of {} threads ({} words)",
                             moved, bytes, threads, words));
          }};
}

}  // namespace rfsim::regdem
