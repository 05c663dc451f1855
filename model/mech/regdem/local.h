// The RegDem paper's comparison variants (Table 3; docs/regdem.md),
// beside nvcc's code and RegDem's own:
//
//   local               nvcc's code under --maxrregcount at the demotion
//                       target: the allocator spills to local memory
//   local-shared        (Hayes and Zhang, ICS'14) at 32 registers, every
//                       spill slot moved to shared memory at the eq. 1
//                       layout (one register, RDA, kept for its address)
//   local-shared-relax  the same at RegDem's target
//
// The targets are RegDem's (demote.h: mechanisms.regdem.target, or `steps`
// occupancy steps up). A kernel whose block size is not declared keeps
// nvcc's code in every variant (the target and eq. 1 need it).
#pragma once

#include "backend/passes.h"
#include "config/gpu_config.h"
#include "mech/regdem/regdem_config.h"

namespace rfsim::regdem {

backend::Variant localVariant(const config::GpuConfig& gpu, const RegDemConfig& cfg);
backend::Variant localSharedVariant(const config::GpuConfig& gpu, const RegDemConfig& cfg, bool relax);

// The pass that moves a kernel's spill slots to shared memory:
// `regdem.spills_to_shared`. Spills and fills become st.shared/ld.shared of
// 32-bit words (roles DemStore/DemLoad, so the checker follows them) at
// area + t*4 + slot*n*4 through RDA, the register above the allocation.
backend::FunctionPass spillsToSharedPass(const config::GpuConfig& gpu);

}  // namespace rfsim::regdem
