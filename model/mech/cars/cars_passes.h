// CARS' compiler side (CARS paper, sections III-A, III-B and IV-A): the
// machine pass that turns the ABI's callee-saved spills into register-stack
// pushes and pops, and the watermarks a launch allocates by.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/passes.h"
#include "ptx/isa_ext.h"

namespace rfsim::backend {
struct CompiledModule;
}

namespace rfsim::cars {

// The mechanism's ISA extensions (registered with its MechanismInfo):
//   cars.push n   RSP += n: R16..R16+n-1 get new physical registers
//   cars.pop n    RSP -= n: the caller's R16.. come back
//   cars.fru      8-bit control field of a call (the callee's FRU, checked
//                 against the warp's free registers) and of a ret (its own)
std::vector<ptx::ExtOpDesc> carsIsaOps();
inline constexpr const char* kFruField = "cars.fru";
inline constexpr uint8_t kFruBits = 8;

// cars.push_pop (section IV-A): in every called function the prologue's
// st.local of callee-saved registers become one `push FRU` and each
// epilogue's ld.local one `pop FRU` (with the ret's guard), where FRU is the
// callee-saved range R16..R<highest saved> (renaming covers a contiguous
// range from R16; the paper's FRU counts the registers a function spills,
// the same set when the allocator takes R16 up, as ours does). Every call
// carries the FRU of its callee (an indirect call: the largest over its
// possible targets, its .calltargets or every called function of the
// module) and every ret its own. The frame keeps its save slots (unused:
// no instruction touches them; shrinking would move incoming stack
// arguments).
backend::Variant carsVariant();

// The allocation levels of one kernel (section III-B, Fig. 4), in warp-
// registers per warp. `fru` of the kernel = its own registers; of a
// function = its pushed range. Each call also holds the caller's saved RFP
// in one register of the stack (our rename unit's call, an assumption the
// paper leaves open: docs/mechanisms.md (i)), so the stack part of High counts
// one register per frame on the deepest path.
struct Watermarks {
  uint32_t kernel_fru = 0;       // the Base region: the kernel's registers and every reached function's unrenamed ones
  uint32_t max_fru = 0;          // largest FRU of a function it reaches
  uint64_t max_stack_depth = 0;  // the paper's MaxStackDepth of the kernel (FRUs only)
  uint64_t high_regs = 0;        // ours: the largest sum of FRU + 1 over a call path, plus kernel_fru
  bool recursive = false;        // reaches a cycle (one iteration assumed)
  bool calls = false;            // reaches any function
  // Low: the kernel and one frame of the largest function (with its saved RFP).
  uint32_t low() const { return kernel_fru + (calls ? max_fru + 1 : 0); }
  uint64_t high() const { return high_regs; }
  // The paper's arithmetic (Fig. 4: 20 + 10 = 30 and 56), without the saved-RFP registers.
  uint32_t paperLow() const { return kernel_fru + max_fru; }
};
// Throws rfsim::Error when `kernel` is not a kernel of `cm`.
Watermarks watermarksOf(const backend::CompiledModule& cm, const std::string& kernel);

}  // namespace rfsim::cars
