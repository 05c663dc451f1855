// Mechanism passes of the back end, and the variants they make.
//
// A mechanism changes the code it runs through named passes in two slots:
//
//   PTX IR (pre-allocation)  ModulePass on the parsed module, before the
//                            calling convention and register allocation
//                            (a transformation of the PTX's blocks works here);
//   machine (post-allocation) FunctionPass on one allocated function, after
//                            its frame and before the final check (demoting
//                            registers and compacting the rest, register-stack
//                            pushes and pops, prefetches, renumbering).
//
// A machine pass edits the function and, instruction for instruction, the
// checker's expectations (SlotValues, check.h): which value every register
// slot must hold. The value-following checker runs after every pass, so a
// pass that puts a value where its readers do not find it fails the
// compilation with the pass's name. The facts derived from the code
// (registers, tree registers, frame, FRU, MaxStackDepth) are recomputed after
// the passes (backend.cpp).
//
// A Variant is one way of compiling a module: a name and the passes it runs.
// A module compiled into several variants (the baseline "base" plus, say,
// one per register target a mechanism tries, or its transformed code) is cached per variant by the runtime, which picks one per launch
// (mech/mechanism.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/check.h"
#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::backend {

struct CompileOptions;
struct FunctionReport;

// What a machine pass sees besides the function it changes.
struct MachinePassContext {
  const ptx::Module& module;         // the module being compiled (callees of this function are final)
  const CompileOptions& options;
  FunctionReport& report;            // the function's report so far; a pass may change callee_saved
  const std::vector<const FunctionReport*>& finished;  // by function index: reports of finished functions, or null
  // The module being compiled, for a pass that adds or sizes module symbols
  // of its own (an area in shared memory for demoted registers); the
  // functions in it are not to be touched.
  ptx::Module* edit = nullptr;
};

struct ModulePass {
  std::string name;  // "<mechanism>.<pass>", shown in errors and reports
  std::function<void(ptx::Module& m, const CompileOptions& options)> run;
};

struct FunctionPass {
  std::string name;
  // Changes `fn` (a function of the machine program, CFG built) and keeps
  // `values` matching it instruction for instruction. Called for every
  // function with a body, callees first.
  std::function<void(ptx::Function& fn, SlotValues& values, const MachinePassContext& ctx)> run;
};

struct Variant {
  std::string name = "base";
  std::string description;
  std::vector<ModulePass> pre;    // in order, on the PTX IR
  std::vector<FunctionPass> post; // in order, on each allocated function
  // A register limit of its own: given a function and the registers it got
  // under the options' limit (highest + 1 + reserved), the limit to
  // allocate it again under, as --maxrregcount would (0: keep). A variant
  // that spills at a register target of its own does it this way.
  std::function<uint32_t(const ptx::Function& fn, uint32_t regs)> reg_limit;
  bool empty() const { return pre.empty() && post.empty() && !reg_limit; }
};

// The registers `fn` uses: its highest general register + 1 (R1 counts, as
// ptxas counts it), at least 2 -- what a launch allocates per thread for it.
uint32_t usedRegisters(const ptx::Function& fn);

}  // namespace rfsim::backend
