// R2D2's code analysis (Ha, Oh, Ro, ISCA'23, section 3.1, Figs. 6 and 7): which
// registers of a kernel hold a linear combination of the built-in indices,
//   value = c + x*tid.x + y*tid.y + z*tid.z + X*ctaid.x + Y*ctaid.y + Z*ctaid.z,
// and with which coefficient vector {c, x, y, z, X, Y, Z}. Coefficients are
// polynomials in the values only the launch knows (kernel parameters, the
// block and grid dimensions, the addresses of module variables), with integer
// factors: Fig. 7's %rd14 = {P5 + 4*P1, 4, 4*P1 + 4, 0, 0, 64*P1 + 64, 0}.
//
// The analysis walks the kernel in program order, as Algorithm 1 does, and
// applies the transfer rules of Fig. 6: ld.param gives {P, 0, ...}; mov and
// cvt copy; add and sub work elementwise; mul and shl need a scalar second
// operand (all six index coefficients zero); mad multiplies by a scalar and
// adds. What the paper leaves open is decided here, each choice named where it
// is made in linearity.cpp:
//   - operand order: mul and mad are commutative, the scalar may come first;
//   - mul.lo and mul.wide are linear, mul.hi is not; mul24/mad24 are not;
//   - shl needs a constant shift (an immediate or a register whose vector is
//     a plain integer), which becomes a factor 2^k;
//   - cvt between integer types copies the vector when it widens or keeps
//     the width; a narrowing cvt is not linear;
//   - cvta (to or from the global window) copies: global addresses are the
//     same in both windows; other spaces are not linear;
//   - 32-bit arithmetic is taken as exact, as the paper does; a vector that
//     went through 32-bit operations is marked `narrow`, so the
//     transformation can keep 32-bit wrap-around where it matters;
//   - a predicated (guarded) definition is not linear: it may or may not
//     happen per thread;
//   - integer types only; carry forms (add.cc, addc) are not linear.
//
// Registers written more than once (PTX is near-SSA, so a second write means
// control flow) are read as linear where exactly one of their definitions
// reaches the read (reaching definitions over the CFG, which must be built:
// ptx::buildCfg), and are classified per definition as Algorithm 1 needs them:
// divergent definitions (not reading their own register), the start value of
// a loop update, loop updates (reading their own register) with a scalar
// step, and loop updates whose step is not scalar (the fallback). Where
// several of its definitions reach a read, the read is not linear.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptx/ir.h"

namespace rfsim::mech::r2d2 {

// A value only the launch knows: a kernel parameter (the paper's P0, P1, ...,
// numbered by position), a block or grid dimension, or the address of a
// module variable.
struct LaunchSymbol {
  enum class Kind : uint8_t { Param, Ntid, Nctaid, Address };
  Kind kind = Kind::Param;
  uint32_t index = 0;   // parameter position, dimension (0..2), or ptx::Module::symbols index
  uint64_t offset = 0;  // Param: byte offset into the parameter (a by-value struct's field)
  std::string name;     // "P1", "ntid.x", "&smem", "P3+8"
  // Param: the type of the first ld.param that read it (its bytes and sign
  // give its value at launch; the transformation loads it the same way).
  ptx::Type type = ptx::Type::U32;
};

// A polynomial over launch symbols with integer coefficients.
class Poly {
 public:
  Poly() = default;
  static Poly constant(int64_t v);
  static Poly symbol(uint32_t id);

  bool isZero() const { return terms_.empty(); }
  // The value, when the polynomial is a plain integer.
  std::optional<int64_t> constant() const;
  // The integer term alone, and the polynomial without it.
  int64_t constantTerm() const;
  Poly withoutConstant() const;
  // Its value (64-bit wrap-around) with `sym(id)` for each symbol.
  template <class F> int64_t eval(F&& sym) const {
    uint64_t acc = 0;
    for (const auto& [m, c] : terms_) {
      uint64_t t = static_cast<uint64_t>(c);
      for (uint32_t id : m) t *= static_cast<uint64_t>(sym(id));
      acc += t;
    }
    return static_cast<int64_t>(acc);
  }
  // monomial (symbol ids, sorted, repeated for powers) -> nonzero factor
  const std::map<std::vector<uint32_t>, int64_t>& terms() const { return terms_; }

  Poly operator+(const Poly& o) const;
  Poly operator-(const Poly& o) const;
  Poly operator*(const Poly& o) const;
  bool operator==(const Poly& o) const { return terms_ == o.terms_; }
  bool operator!=(const Poly& o) const { return !(*this == o); }

  // "4*P1 + P5", "64*P1 + 64", "0": monomials by degree, then by symbol
  // order, the constant last.
  std::string str(const std::vector<LaunchSymbol>& symbols) const;

 private:
  // monomial (symbol ids, sorted, repeated for powers) -> nonzero factor
  std::map<std::vector<uint32_t>, int64_t> terms_;
};

// Fig. 6's seven elements, in the paper's order.
enum Elem : uint8_t { kC, kTx, kTy, kTz, kBx, kBy, kBz, kNumElems };

struct CoefVec {
  std::array<Poly, kNumElems> e;
  bool narrow = false;  // a 32-bit operation contributed (wrap-around assumed away)

  // No index coefficient: the same value in every thread of the grid.
  bool scalar() const;
  // The thread-index part (x, y, z) and the block-index part (X, Y, Z) are
  // both nonzero, only one of them, or neither.
  bool hasThreadPart() const;
  bool hasBlockPart() const;
  bool operator==(const CoefVec& o) const { return e == o.e; }
  // "{4*P1 + P5, 4, 4*P1 + 4, 0, 0, 64*P1 + 64, 0}"
  std::string str(const std::vector<LaunchSymbol>& symbols) const;
};

// How Algorithm 1 treats one definition of a linear value.
enum class DefKind : uint8_t {
  Single,          // the register's only write: the instruction can go
  Divergent,       // one of several writes, none reading itself: own linear register + a move
  LoopInit,        // the value a loop update starts from: own linear register + a move
  LoopUpdate,      // reads its own register, scalar step: first-iteration value + uniform offset
  NonScalarStep,   // reads its own register, step not scalar: the original code stays
};
const char* defKindName(DefKind k);

struct Definition {
  uint32_t block = 0, index = 0;  // where: Function::blocks[block].instrs[index]
  uint32_t reg = 0;
  DefKind kind = DefKind::Single;
  CoefVec vec;           // for a loop update: the vector of its first iteration
  std::optional<CoefVec> step;  // LoopUpdate: the per-iteration offset (scalar)
  // 32-bit values this definition widens to 64 bits (cvt, mul.wide), and
  // whether as signed: exact only while each stays within 32 bits.
  std::vector<std::pair<CoefVec, bool>> widened;
};

// A linear value read by an instruction that is not itself a linear
// definition: the values R2D2 materialises in linear registers (Algorithm
// 1's linearRegs; section 3.1.3: only these generate decoupled instructions).
struct Materialised {
  uint32_t block = 0, index = 0;  // the reading instruction
  uint32_t reg = 0;
  CoefVec vec;
};

struct Linearity {
  std::vector<LaunchSymbol> symbols;
  // Per virtual register: how many instructions write it, and the vector of
  // its last definition in program order when that definition is linear.
  std::vector<uint32_t> writes;
  std::vector<std::optional<CoefVec>> value;
  std::vector<Definition> defs;          // every linear definition, in program order
  std::vector<Materialised> materialised;
  // Distinct vectors among `materialised` (the linear combinations the
  // kernel needs; R2D2's register table holds at most 16).
  std::vector<CoefVec> combinations;
  uint64_t instructions = 0, linear_instructions = 0;  // static counts over the function

  std::string vecStr(const CoefVec& v) const { return v.str(symbols); }
};

// The analysis of one function of a PTX module (not a machine program).
Linearity analyzeLinearity(const ptx::Module& m, const ptx::Function& fn);

}  // namespace rfsim::mech::r2d2
