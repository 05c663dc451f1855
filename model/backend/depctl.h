// Maxwell-style dependency control (sm.dependency: barriers; docs/backend.md,
// "Dependency control"): the control codes a compiler for Maxwell and
// later NVIDIA GPUs gives every instruction, so that the hardware needs no
// register scoreboard.
//
//   stall  the cycles before the warp's next instruction may issue: a
//          fixed-latency result is ready when its readers issue because the
//          stalls between them add up to its latency;
//   wbar   a variable-latency instruction (memory, SFU, a throughput-limited
//          unit such as GM200's FP64) sets one of 6 dependency barriers until
//          its results are written; rbar, until its sources have been read
//          (a store's data, which a later instruction may overwrite);
//   wait   the barriers an instruction waits on before it issues.
//
// The rules (Sakdhnagool et al. §3.2 and Fig. 3):
// barriers are cleared before every jump (the compiler waits on all of them
// at a branch, call, return or exit), so they span straight-line code and
// fall-through; a barrier is a counter, so several instructions may set the
// same one and a wait waits for all of them. Which barrier a new setter
// gets is the paper's barrier tracker (GetBarrier): a free one, else the
// one whose setter should be done soonest (GL_MEM_STALL 200 cycles for a
// global access, SH_MEM_STALL 24 for a shared one, less the stall cycles
// since it was set). The paper treats other setters as 0; here they count
// their own latency.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ptx/ir.h"
#include "ptx/machine.h"

namespace rfsim::backend {

using ptx::mach::kDepBarriers;
using ptx::mach::kMaxStall;
using DepTiming = ptx::mach::DepTiming;
using DepTimingFn = std::function<DepTiming(const ptx::Instr&)>;
inline constexpr uint32_t kGlMemStall = 200;  // Sakdhnagool et al. Fig. 3: GL_MEM_STALL
inline constexpr uint32_t kShMemStall = 24;   // SH_MEM_STALL
// A read barrier clears when the setter's operands have been read: the
// tracker counts it as this many cycles (the paper's tracker counts the
// setter's memory latency for it too; see BarrierTracker).
inline constexpr uint32_t kReadStall = 4;

// Sakdhnagool et al. Fig. 3's UpdateBarrierTracker and GetBarrier, with one change: a
// read barrier is estimated to clear kReadStall cycles after it was set
// (when its setter's operands have been read), not after the setter's
// memory latency as the paper's tracker counts it. GetBarrier's aim is the
// barrier whose reuse stalls least; a read barrier is free again within a
// few cycles, and with the paper's estimate every load's read barrier looks
// as busy as its write barrier, so a new setter shares a pending load's
// write barrier instead and its waiters wait for that load.
class BarrierTracker {
 public:
  void reset() { e_ = {}; }
  // After `in` issues: the barriers it sets start at 0 cycles, the ones it
  // waits on are free, and every set one ages by in.stall.
  void update(const ptx::Instr& in, DepTiming::Kind kind, uint32_t latency);
  // A barrier (0..5) for a new setter; not `avoid` while another is free.
  uint32_t get(uint32_t avoid = kDepBarriers) const;
  bool busy(uint32_t b) const { return e_[b].set; }

 private:
  struct Entry {
    bool set = false;
    DepTiming::Kind kind = DepTiming::Other;
    uint32_t latency = 0, stall = 0;
  };
  std::array<Entry, kDepBarriers> e_{};
};

enum class DepMode {
  Assign,  // every instruction's codes from scratch
  Repair,  // keep the codes there are; add what a hazard needs (instructions a pass inserted)
  Check,   // change nothing; report every hazard the codes leave open
};

struct DepResult {
  uint32_t added = 0;               // Repair: codes added (a wait, a barrier, stall cycles)
  std::vector<std::string> errors;  // Check: the open hazards, with pc and register
};

// Dependency control of one machine function (CFG built). Throws
// rfsim::Error when an instruction needs a stall the field cannot hold.
DepResult assignDependencies(ptx::Function& fn, const DepTimingFn& timing, DepMode mode);

// The registers an instruction of a machine function reads (uses) and
// writes (defs), one id per 32-bit register or predicate, RZ left out.
void instrRegs(const ptx::Instr& in, const ptx::Function& fn, std::vector<uint32_t>& uses,
               std::vector<uint32_t>& defs);
// bra, call, ret, exit, trap: the barriers are cleared before it.
bool isJump(const ptx::Instr& in);

}  // namespace rfsim::backend
