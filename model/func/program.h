// A loaded module ready to run: symbols placed in their state spaces, module
// variables allocated and initialised in global memory, every function
// validated and decoded (decode.h). launch() runs a grid block after block
// (executor.h).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "common/progress.h"
#include "func/decode.h"
#include "func/memory.h"
#include "ptx/ir.h"
#include "func/launch.h"

namespace rfsim::func {

class AccessSink;  // executor.h

struct Limits {
  uint32_t stack_bytes_per_thread = 1u << 20;  // local stack (locals + call frames)
  uint64_t device_heap_bytes = 8ull << 20;     // device-side malloc (CUDA's default heap size)
  uint64_t warp_quantum = 4096;                // warp instructions before the next warp runs
  // A runaway kernel (config sim.max_instructions, pipeline.livelock_cycles):
  // the most warp instructions of one launch, and of one block without a
  // store, atomic, barrier arrival or exit.
  uint64_t max_warp_instrs = UINT64_MAX;
  uint64_t livelock_warp_instrs = UINT64_MAX;
  // Warp instructions of one block without a write other threads could see
  // (or a barrier or exit) before the livelock proof is armed
  // (config pipeline.livelock_proof_cycles; BlockExecutor::armProofs).
  uint64_t livelock_proof_warp_instrs = 1000000;
  // Host threads that run a launch's blocks (config sim.threads; 1: this
  // thread alone), with the results of one thread running them in block
  // order, for kernels Program::blockOrderDependence allows
  // (parallel_blocks.cpp).
  unsigned threads = 1;
};

// One launch's fixed inputs: the kernel, the dimensions and the packed
// parameter buffer (Program::setupLaunch checks and builds it).
struct LaunchSetup {
  const DFunction* kernel = nullptr;
  rt::Dim3 grid, block;
  std::vector<uint8_t> params;
  uint32_t dynamic_shared = 0;
  uint64_t grid_id = 0;
  // The kernel's static shared memory (the variables its code reaches,
  // 16-byte aligned: ptxas' "bytes smem") and the bytes of a block's shared
  // window (static, then dynamic: ptx/analysis/shared_layout.h).
  uint32_t static_shared = 0;
  uint32_t shared_window = 0;
};

class Program {
 public:
  // Validates and decodes every function (throws rfsim::Error naming
  // file:line and the instruction for anything the executor cannot run) and
  // allocates the module's .global/.const variables in `memory`.
  Program(ptx::Module module, GlobalMemory& memory, Limits limits = {});
  // Another compilation (a variant, backend/passes.h) of the module that
  // `variables_of` was made from: its .global/.const variables are those of
  // `variables_of` (same names, same addresses, the same data), so a host
  // program sees one set of variables whichever variant a launch runs.
  // Variables only this module declares get their own. `variables_of` must
  // outlive this program.
  Program(ptx::Module module, const Program& variables_of, Limits limits = {});
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  const ptx::Module& module() const { return module_; }
  // Global address of a module-scope .global/.const variable; throws if none.
  uint64_t symbolAddress(const std::string& name) const;

  // Runs `kernel` to completion. `args` are the parameter values in .param
  // order; their sizes must match the declaration. `sink`, when given, is
  // told of every memory access (BlockExecutor::setAccessSink), in block
  // order on one thread.
  rt::LaunchStats launch(const std::string& kernel, rt::Dim3 grid, rt::Dim3 block,
                         const std::vector<std::vector<uint8_t>>& args, uint32_t dynamic_shared_bytes = 0,
                         AccessSink* sink = nullptr);

  // Checks a launch like launch() does and returns its setup, numbered as
  // the next launch (%gridid), for running its blocks elsewhere (a
  // BlockStepper per block, stepper.h). The setup must outlive its blocks.
  LaunchSetup setupLaunch(const std::string& kernel, rt::Dim3 grid, rt::Dim3 block,
                          const std::vector<std::vector<uint8_t>>& args, uint32_t dynamic_shared_bytes = 0);

  // Why a launch of `kernel` must run its blocks on one thread (printf,
  // malloc or free, a clock read, a global atomic whose old value is read,
  // with where it is); empty when it need not, and launch() then runs its
  // blocks on Limits::threads host threads (parallel_blocks.cpp).
  std::string blockOrderDependence(const DFunction& kernel) const;

  // Where vprintf writes (std::cout by default).
  void setPrintStream(std::ostream* os) { print_ = os; }

  // For the executor.
  const std::vector<DFunction>& functions() const { return funcs_; }
  // Machine programs: where each register's column is (decode.h).
  const MachineColumns& machineColumns() const { return columns_; }
  const SymbolPlace& place(uint32_t sym) const { return places_[sym]; }
  GlobalMemory& memory() { return memory_; }
  const Limits& limits() const { return limits_; }
  // launch(): blocks done, speed and ETA on a terminal (not owned; null: none).
  void setProgress(ProgressLine* p) { progress_ = p; }
  // A kernel's static shared memory: the variables its code reaches, 16-byte
  // aligned (ptx/analysis/shared_layout.h); throws if no such kernel.
  uint32_t staticSharedBytes(const std::string& kernel) const;
  uint32_t moduleLocalBytes() const { return module_local_; }
  const std::string& fileName() const { return file_name_; }
  std::ostream& printStream() const { return *print_; }
  uint64_t launches() const { return launches_; }

 private:
  void layoutSymbols();
  void allocateVariables(const Program* variables_of);
  void releaseVariables();
  void init(const Program* variables_of);
  void decodeFunctions();
  // launch()'s blocks on `threads` host threads (parallel_blocks.cpp);
  // `progress` gets the blocks done, from this thread.
  void runBlocksConcurrently(const LaunchSetup& setup, rt::LaunchStats& stats, unsigned threads,
                             const std::function<void(uint64_t)>& progress);

  ptx::Module module_;
  GlobalMemory& memory_;
  Limits limits_;
  ProgressLine* progress_ = nullptr;
  std::string file_name_;
  std::vector<SymbolPlace> places_;
  std::vector<DFunction> funcs_;
  MachineColumns columns_;
  std::vector<uint64_t> owned_allocs_;
  std::vector<uint32_t> kernel_shared_;  // per function: staticSharedBytes
  std::vector<uint32_t> kernel_window_;  // per function: where dynamic shared memory starts, or the static end
  uint32_t module_local_ = 0;
  std::ostream* print_;
  uint64_t launches_ = 0;
};

}  // namespace rfsim::func
