// Where a module's shared variables live, kernel by kernel, as ptxas lays
// them out: a kernel is charged for the shared variables its code reaches
// (its own, and those of the functions it may call), not for every .shared
// declaration in the module. A CUDA library module (CUB's, say) declares the
// shared arrays of many kernels side by side; each kernel gets only its own.
//
// The offsets are one per variable for the whole module, because a device
// function that several kernels call addresses its shared variables with
// the same constants in each. Two variables share bytes only when no kernel
// reaches both. Variables are placed in declaration order, each after the
// last byte of the already placed variables some kernel reaches together
// with it, so a module whose kernels all reach every variable is packed
// exactly as the declarations run.
//
// Dynamic shared memory (`.extern .shared .b8 s[]`, sized at launch) starts
// after the static variables of every kernel that reaches it.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/analysis/callgraph.h"
#include "ptx/ir.h"

namespace rfsim::ptx {

struct SharedLayout {
  // Per symbol (Module::symbols): the byte offset of a static shared
  // variable in the shared window; for dynamic (extern or unsized) shared
  // arrays, dynamic_offset.
  std::vector<uint64_t> offset;
  // Per function (Module::functions): for a kernel, the end of the last
  // static shared variable its code reaches (ptxas' "bytes smem"); 0 for a
  // .func.
  std::vector<uint32_t> static_bytes;
  // Per function: the kernel's code reaches a dynamic shared array.
  std::vector<bool> uses_dynamic;
  uint64_t dynamic_offset = 0;
};

// The alignment a variable is placed at: its .align, else its type's size.
uint64_t symbolAlignment(const Symbol& s);

SharedLayout layoutShared(const Module& m, const CallGraph& cg);

}  // namespace rfsim::ptx
