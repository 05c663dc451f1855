// The shared-memory area RegDem keeps registers in, and the code that
// addresses it (RegDem paper, eq. 1), shared by the demotion pass
// (demote.h) and the local-shared variants' spill conversion (local.h).
#pragma once

#include <cstdint>
#include <vector>

#include "config/gpu_config.h"
#include "ptx/ir.h"

namespace rfsim::regdem {

inline constexpr const char* kAreaSymbol = "__rfsim_regdem_area";

// Resident blocks per SM for the footprint (0 when it cannot launch).
uint32_t blocksAt(const config::GpuConfig& gpu, uint32_t regs, uint32_t threads, uint32_t shared);
// A kernel's static shared bytes: its module's shared variables but the area.
uint32_t staticShared(const ptx::Module& m);
// n of eq. 1: the block size the kernel declares (.reqntid, else .maxntid), or 0.
uint32_t threadsOf(const ptx::Function& fn);
// The area variable, grown to at least `bytes`; its symbol index.
uint32_t areaSymbol(ptx::Module& m, uint64_t bytes);
// `ld.shared.b32 reg, [rda+off]` (MRole::DemLoad) or `st.shared.b32 [rda+off], reg` (DemStore).
ptx::Instr sharedAccess(bool store, uint32_t reg, uint32_t rda, int64_t off);
// RDA = area + t*4, t the thread's flattened index in its block; `tmp` is
// written on the way unless the kernel declares a one-dimensional block.
std::vector<ptx::Instr> rdaSetup(const ptx::Function& fn, uint32_t rda, uint32_t tmp, uint32_t area_sym);
// An empty expectation for each register slot of `in` (the checker follows
// demoted values through the roles instead).
std::vector<uint32_t> noValues(const ptx::Instr& in, const ptx::Function& fn);

}  // namespace rfsim::regdem
