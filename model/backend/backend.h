// The back end's driver: a PTX module in, a machine program out (ptx/machine.h),
// with a report per function. For every function with a body, in call-graph
// order (callees first):
//
//   lowerFunction   calling convention, stack operands   (lower.h)
//   allocateRegisters  liveness, colouring, spills      (regalloc.h)
//   finishFunction  frame, prologue/epilogue, rewrite    (frame.h)
//   assignDependencies  control codes, with sm.dependency: barriers (depctl.h)
//   mechanism passes   the variant's machine passes, each checked  (passes.h)
//   assignDependencies  the codes the passes' instructions lack, added
//   checkAllocation value-following checker              (check.h)
//
// A variant's PTX-IR passes run on the whole module first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/check.h"
#include "backend/depctl.h"
#include "backend/passes.h"
#include "backend/regalloc.h"
#include "config/gpu_config.h"
#include "ptx/analysis/callgraph.h"
#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::backend {

// The options of one compilation: the configuration's compiler.* keys
// (config::CompilerConfig declares each with its default and range; the
// pre-allocation passes are in prealloc.h, schedule_fit and recolour_above
// in backend.cpp: allocate) and what the caller sets per compilation.
struct CompileOptions : config::CompilerConfig {
  CompileOptions() = default;
  explicit CompileOptions(const config::CompilerConfig& keys) : config::CompilerConfig(keys) {}

  // -maxrregcount: the most registers any function may use (0: no limit but
  // the hardware's 255). A kernel's .maxnreg and the limit its
  // .maxntid/.minnctapersm imply (with `regfile_regs`, the registers of one
  // SM) lower it further, as ptxas does; a kernel with launch bounds or
  // .maxnreg ignores it, as with ptxas (unless maxrregcount_over_bounds).
  uint32_t max_regs = 0;
  uint32_t regfile_regs = 65536;
  uint32_t reg_alloc_unit_per_thread = 8;  // launch-bounds limits are rounded down to this
  // Whole-program knowledge at calls: a call to a function compiled earlier
  // in this module (not .weak, not extern, not recursive back into the
  // caller) clobbers only the registers that function and its callees
  // change, so values may stay in caller-saved registers across it. ptxas
  // does the same for a callee defined in the same unit (measured: see
  // docs/abi.md); false: every call clobbers what the ABI allows.
  bool whole_program = true;
  // Set (sm.dependency: barriers): give every instruction Maxwell-style
  // control codes (stall counts, dependency barriers) from this timing.
  DepTimingFn dep_timing;
  bool check = true;  // run the checker and throw on any error it finds
  // The mechanism passes to run (passes.h); null: the baseline. Not owned.
  const Variant* variant = nullptr;

  // The calling convention compiler.callee_saved selects.
  ptx::mach::Abi abi() const {
    ptx::mach::Abi a;
    a.upper_quads = callee_saved == config::CalleeSaved::Ptxas;
    return a;
  }
};

struct FunctionReport {
  std::string name;
  uint32_t index = 0;
  bool entry = false;
  uint32_t max_regs = 0;        // the limit it was allocated under
  uint32_t regs = 0;            // highest register used + 1 (R1 included) + CompileOptions::reserved_registers
  uint32_t tree_regs = 0;       // kernels: the most registers over everything reachable (what a launch allocates)
  std::vector<uint32_t> callee_saved;  // callee-saved registers it saves and restores (called functions)
  uint32_t fru = 0;             // FRU (Kang et al. §III-A): the callee-saved count for a function, `regs` for a kernel
  uint32_t frame_bytes = 0;     // its stack frame
  uint32_t spill_bytes = 0;     // of which pressure-spill slots
  // Static counts and bytes of the added memory instructions.
  uint32_t spill_stores = 0, spill_loads = 0;       // pressure (MRole::Spill/Fill)
  uint32_t saves = 0, restores = 0;                 // ABI (MRole::Save/Restore)
  uint32_t spill_store_bytes = 0, spill_load_bytes = 0;  // both kinds, as ptxas -v counts "spill stores/loads"
  uint32_t arg_moves = 0;
  uint32_t instrs_in = 0, instrs_out = 0;           // PTX instructions, machine instructions
  uint64_t max_stack_depth = 0; // MaxStackDepth (Kang et al. §III-B): largest FRU sum on a call path to a leaf
  bool recursive = false;
  RaResult ra;
  uint64_t checked_uses = 0;    // register reads the checker compared
  double alloc_ms = 0.0;        // lowering + allocation + frame, wall time
  // What the variant's machine passes did to it, or why one left it as it
  // was ("<mechanism>: 37 -> 32 registers, 7 demoted ..."), one line each.
  std::vector<std::string> notes;
};

struct CompiledModule {
  std::string variant = "base";          // the Variant it was compiled as
  std::vector<std::string> passes;       // the passes that ran, in order
  ptx::Module machine;                   // the machine program
  std::vector<FunctionReport> functions; // per function with a body, module order
  ptx::CallGraph callgraph;
  const FunctionReport* find(const std::string& name) const;
};

// Throws rfsim::Error naming the file, function and line for PTX the back
// end cannot place (a .b128 register, an unaligned access to a register-
// passed parameter, the address of a parameter taken) and, with
// options.check, for any error the checker finds.
CompiledModule compileModule(const ptx::Module& m, const CompileOptions& options = {});

}  // namespace rfsim::backend
