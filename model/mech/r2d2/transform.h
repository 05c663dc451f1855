// R2D2's transformation (Ha, Oh, Ro, ISCA'23, section 3, Algorithm 1, Figs.
// 8 and 9): a PTX-level pass that removes the linear address arithmetic the
// analysis (linearity.h) found and reads each linear value that non-linear
// code needs from a linear register %lrK, computed before the kernel body by
// three instruction blocks:
//
//   coefficients  (one warp per SM)       every coefficient the other blocks
//                                          need, from the kernel parameters and
//                                          the launch dimensions, into %cr
//   thread-index  (the SM's first block)  %trT = x*tid.x + y*tid.y + z*tid.z
//                                          (section 3.2's mad.tr: the
//                                          coefficient read as a scalar)
//   block-index   (each block's warp 0)   %br lane K = c + X*ctaid.x + ... of
//                                          linear register K (mov.br/mad.br:
//                                          consecutive coefficients read as a
//                                          vector, 16 linear registers at once)
//
// The code is laid out as
//   $r2d2_coef: coefficients; r2d2.end 0
//   $r2d2_tr:   thread-index parts; r2d2.end 1
//   $r2d2_br:   block-index parts; r2d2.end 2
//   <body>      the kernel, its linear definitions removed
//   $r2d2_tr2:  thread-index parts; r2d2.end 1; r2d2.wait; bra <body>
// and the SM starts each warp at the block its role runs (the starting-PC
// table of section 4.1): the SM's first warp at $r2d2_coef (it falls through
// the three blocks), the other warps of the SM's first block at $r2d2_tr2,
// the first warp of every later block at $r2d2_br, the other warps at the
// body. The markers r2d2.end and r2d2.wait are where the SM's flags are set
// and waited on (r2d2_sm.h). The thread-index block is there twice so that
// the first warp falls through all three while the others skip the
// block-index one; the copy ends in a branch (one instruction per warp of
// the SM's first block).
//
// Registers (register classes of the mechanism, ptx/isa_ext.h): %lrK is
// LR(2K):LR(2K+1) (a 32-bit linear value names LR(2K) alone), %trT is TR(T),
// the block's pair is BR0:BR1, coefficient J is CR(2J):CR(2J+1), and the
// vector of 16 coefficients starting at 16V is CV(2V):CV(2V+1). Where their
// values live is the register ID calculation's (regid.h): a wrong row breaks
// the kernel's output.
//
// What the paper leaves open is decided here, each choice named where it is
// made in transform.cpp:
//   - only single-write linear definitions go; a register written more than
//     once (divergent or loop-carried) keeps its original code, and so do
//     the definitions it reads (a read such a register's single reaching
//     definition answers may still read a linear register);
//   - grouping (Fig. 8): values with the same width and index parts share a
//     linear register; an integer difference in the constant is folded into
//     a memory operand's offset (as Fig. 7's +8), any other difference is a
//     coefficient register the address adder adds (lr + cr; the
//     instruction's fields r2d2.cr and r2d2.crk name it and the linear
//     register -- one per instruction, a use that would need a second keeps
//     its code);
//   - scalar values (no index part) keep their code: they are uniform, and
//     the baseline runs them on its scalar path (section 5.1);
//   - at most 16 linear registers (the register table's entries), the most
//     used first; the values left over keep their code;
//   - a 32-bit value that a widening conversion (cvt, mul.wide) turns into a
//     64-bit linear value, and every thread-index part (a 32-bit register),
//     must fit 32 bits over the launch's indices: the plan lists them as
//     range checks, and a launch that fails one runs the original code.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mech/r2d2/linearity.h"
#include "ptx/ir.h"

namespace rfsim::mech::r2d2 {

// Limits of the hardware (section 4.2).
inline constexpr uint32_t kMaxLinear = 16;        // register table entries, 4-bit IDs
inline constexpr uint32_t kMaxTr = 16;            // 4-bit thread-index register IDs
inline constexpr uint32_t kMaxCoefficients = 112; // coefficient registers of the class (7 rows of 16)

// The labels of the blocks (the starting-PC table).
inline constexpr const char* kCoefLabel = "$r2d2_coef";
inline constexpr const char* kTrLabel = "$r2d2_tr";
inline constexpr const char* kBrLabel = "$r2d2_br";
inline constexpr const char* kTr2Label = "$r2d2_tr2";
inline constexpr const char* kBodyLabel = "$r2d2_body";

struct RangeCheck {
  CoefVec vec;
  bool is_signed = true;
  std::string what;  // "tr0", "cvt at line 31"
};

// What the pass did to one kernel, for the SM side and the reports.
struct KernelPlan {
  std::string kernel;
  bool transformed = false;
  std::string reason;  // why the kernel keeps its code (transformed == false)
  std::vector<LaunchSymbol> symbols;
  struct Linear {
    CoefVec vec;          // its value (the group's representative constant)
    uint32_t tr = 0;      // its thread-index register (the register table's entry)
    uint32_t bits = 64;   // 32 or 64
    uint32_t uses = 0;    // static reads it serves
  };
  std::vector<Linear> lrs;       // %lrK
  std::vector<CoefVec> trs;      // thread-index parts (only x, y, z set)
  uint32_t coefficients = 0;     // coefficient registers written (rows: ceil(/16))
  std::vector<RangeCheck> checks;
  std::string body_label;        // the body's first block
  // Static counts.
  uint32_t removed = 0;          // linear instructions removed
  uint32_t kept_linear = 0;      // linear instructions kept (multi-write, feeding kept code, over the limit)
  uint32_t uses_replaced = 0;    // source operands now reading a linear register
  uint32_t uses_left = 0;        // linear non-scalar reads left to the original code (over the limit)
  uint32_t uses_with_coefficient = 0;  // ... of them adding a coefficient register (lr + cr)
  uint32_t loops = 0;            // loop updates now advancing a uniform offset (multiwrite.h)
  uint32_t uniform_uses = 0;     // ... address operands reading lr + uniform
  uint32_t divergent_moves = 0;  // divergent definitions now a move from a linear register
  uint32_t added = 0;            // instructions of the three blocks (and the copy)
  uint32_t body_instructions = 0;
};

// The plans of a module's kernels, by kernel name (the pass fills it).
using PlanTable = std::map<std::string, KernelPlan>;

// Transforms every kernel of `m` it can; functions that are not kernels keep
// their code. Throws rfsim::Error only for an internal inconsistency; a
// kernel it cannot handle keeps its code with the reason in its plan.
void transformModule(ptx::Module& m, PlanTable& plans);

// What a launch knows that the coefficients depend on.
struct LaunchValues {
  uint32_t ntid[3] = {1, 1, 1};
  uint32_t nctaid[3] = {1, 1, 1};
  const std::vector<std::vector<uint8_t>>* params = nullptr;  // each parameter's bytes
  std::function<uint64_t(uint32_t sym)> address;              // ptx::Module::symbols index -> address
};

// The value of every launch symbol of `plan` (64-bit, as the coefficient
// block computes it).
std::vector<int64_t> symbolValues(const KernelPlan& plan, const LaunchValues& lv);
// Whether a launch may run the transformed code: "" if so, else why not (a
// range check that fails, naming it and the range).
std::string checkLaunch(const KernelPlan& plan, const LaunchValues& lv);

}  // namespace rfsim::mech::r2d2
