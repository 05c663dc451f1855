// RegDem's compiler side: demotion of registers to shared memory and
// compaction of the register numbering (RegDem paper, sections 3.2-3.4,
// Fig. 3 and 4; docs/regdem.md), as a machine pass over the
// register-allocated kernel.
//
// A demoted register's value lives in shared memory at (eq. 1)
//
//   location(r, t) = area + t*4 + r*n*4
//
// t the thread's flattened index in its block, n the threads per block,
// r the demoted word's ordinal: consecutive threads hit consecutive banks,
// so no demoted access has a bank conflict. `area` is a shared variable the
// pass adds to the module (__rfsim_regdem_area, after the kernel's own
// static shared data, as the paper's area follows it). Two registers are
// added: RDA = area + t*4, computed once at the kernel's entry, and RDV, the
// demoted value (an aligned pair when a 64-bit register is demoted). Every
// read of a demoted register becomes a read of RDV after an `ld.shared RDV,
// [RDA+r*n*4]` (MRole::DemLoad); every write a write of RDV followed by an
// `st.shared [RDA+r*n*4], RDV` (MRole::DemStore; under the write's guard).
// The value-following checker (backend/check.h) follows each word through
// its shared slot, and the kernel's own output does the rest.
//
// What the pass needs and refuses (a note in the function's report, the
// code left as it was): a kernel (not a called function) that makes no
// calls (its registers are then free to renumber), whose block size is
// known at compile time (.reqntid or .maxntid: eq. 1's n), and a target
// that candidates without operand conflicts can reach with the area fitting
// in a block's shared memory and giving the launch more resident blocks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/depctl.h"
#include "backend/passes.h"
#include "config/gpu_config.h"
#include "mech/regdem/regdem_config.h"
#include "mech/regdem/shared_area.h"

namespace rfsim::regdem {

// A unit of demotion: one register, or an aligned pair holding 64-bit
// values somewhere in the kernel (both words go together; each word has
// its own shared slot).
struct Unit {
  uint32_t first = 0;
  uint32_t size = 1;
};

// What the pass decided for one kernel (also written to its report's notes).
struct Decision {
  bool applied = false;
  std::string reason;             // why not, when !applied
  uint32_t regs_before = 0;       // the launch count (highest + 1 + reserved)
  uint32_t regs_after = 0;
  uint32_t target = 0;
  uint32_t threads = 0;           // n of eq. 1
  std::vector<Unit> demoted;      // original registers, in demotion order
  uint32_t words = 0;             // shared slots per thread
  uint32_t area_bytes = 0;        // words * n * 4
  uint32_t loads = 0, stores = 0; // static counts of the added ld/st.shared
};

// The register count `steps` occupancy steps above `regs` for blocks of
// `threads` with `shared` bytes of their own: the largest count giving that
// many more distinct blocks-per-SM levels, or 0 when no count down to
// `floor` does. Whether the demoted area then still fits and still gains is
// the pass's check (it knows the area).
uint32_t autoTarget(const config::GpuConfig& gpu, uint32_t regs, uint32_t threads, uint32_t shared, uint32_t steps,
                    uint32_t floor);

// Candidate order (section 3.4.3): every unit of `fn` but R1, cheapest first.
std::vector<Unit> candidates(const ptx::Function& fn, Strategy strategy, uint32_t loop_weight);

// The register count after compaction (section 3.3) of `fn` without the
// units in `demoted`, with RDA and RDV (a pair if `wide`) added.
uint32_t compactedCount(const ptx::Function& fn, const std::vector<Unit>& demoted, bool wide);

// With dependency barriers (sm.dependency: barriers; backend/depctl.h), the
// barriers of the demoted accesses as Fig. 3 assigns them, by the paper's
// tracker over the code's own barriers: a demoted store waits on its
// writer's write barrier (given one if it is high-latency and has none) and
// sets a read barrier the next instruction waits on; a demoted load sets a
// read and a write barrier its reader waits on, and waits on the read
// barrier of a demoted store just before it. Returns the barriers set. The
// back end then adds what the paper's rules leave out (the stall a
// fixed-latency writer needs before its store; backend.cpp).
// With `lazy_stores` (the schedule update), a demoted store sets no
// barrier of its own: the back end adds one only where RDV is rewritten
// before the next jump.
uint32_t assignDemotionBarriers(ptx::Function& fn, const backend::DepTimingFn& timing, bool lazy_stores);

// The performance post-passes of section 3.4.2 (postpass.cpp), on the code
// demotion rewrote, inside each basic block:
// - redundant code: a demoted store whose slot the block stores again,
//   unguarded, before loading it is dropped (the loads: dropRedundantLoads);
// - RDV substitution: a value an RDV word holds that dies in the block moves
//   to a register of the function that is dead over its whole range, so the
//   loads of different demoted registers may overlap; returns the values moved;
// - schedule update: each demoted load hoisted as early as the block allows
//   (past everything that does not name its register, write RDA or store or
//   load its slot); returns the loads moved.
uint32_t dropRedundantStores(ptx::Function& fn, backend::SlotValues& values);
uint32_t substituteRdv(ptx::Function& fn, const std::vector<uint32_t>& rdv_words, uint32_t rda);
uint32_t hoistLoads(ptx::Function& fn, backend::SlotValues& values, uint32_t rda);

// The pass itself: `regdem.demote`.
backend::FunctionPass demotePass(const config::GpuConfig& gpu, const RegDemConfig& cfg);

}  // namespace rfsim::regdem
