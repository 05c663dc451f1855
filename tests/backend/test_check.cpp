// The allocation checker on hand-built machine functions: each case is a
// small allocation written out register by register, with beside every
// instruction the values its slots held before allocation (forEachSlot
// order: guard, sources and address bases, call uses, destinations, call
// defs). Every error case asserts the register and the values the message
// names, so a case cannot pass on an unrelated error.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "backend/check.h"
#include "backend/mfunction.h"
#include "ptx/analysis/cfg.h"
#include "ptx/ir.h"
#include "ptx/machine.h"

using namespace rfsim;
using namespace rfsim::backend;
using ptx::Instr;
using ptx::MRole;
using ptx::Op;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Type;
using ptx::kNoReg;
namespace mach = ptx::mach;

namespace {

constexpr uint32_t P0 = mach::kPredBase;
constexpr uint32_t N = kNoReg;  // a slot with no expectation
uint32_t ph(uint32_t r) { return physId(r); }

Operand R(uint32_t r, uint8_t bits = 32) {
  Operand o;
  o.kind = OperandKind::Reg;
  o.regs[0] = r;
  o.mbits = mach::isPred(r) ? 1 : bits;
  return o;
}
Operand imm(int64_t v) {
  Operand o;
  o.kind = OperandKind::Imm;
  o.imm = v;
  return o;
}
Operand stack(int64_t off) {  // [R1+off]
  Operand o;
  o.kind = OperandKind::Addr;
  o.regs[0] = mach::kSP;
  o.imm = off;
  o.mbits = 32;
  return o;
}
Operand label(uint32_t b) {
  Operand o;
  o.kind = OperandKind::Label;
  o.block = b;
  return o;
}

Instr make(Op op, Type t, std::vector<Operand> dst, std::vector<Operand> src, MRole role = MRole::Code) {
  Instr in;
  in.op = op;
  in.type = t;
  in.role = role;
  in.ndst = static_cast<uint8_t>(dst.size());
  for (size_t i = 0; i < dst.size(); ++i) in.dst[i] = dst[i];
  in.nsrc = static_cast<uint8_t>(src.size());
  for (size_t i = 0; i < src.size(); ++i) in.src[i] = src[i];
  return in;
}
Instr mov(Operand d, Operand s, MRole role = MRole::Code) {
  const Type t = d.mbits == 64 ? Type::B64 : Type::B32;
  return make(Op::Mov, t, {d}, {s}, role);
}
Instr add(Operand d, Operand a, Operand b, MRole role = MRole::Code) {
  return make(Op::Add, d.mbits == 64 ? Type::S64 : Type::S32, {d}, {a, b}, role);
}
Instr setpLt(uint32_t p, Operand a, Operand b) {
  Instr in = make(Op::Setp, Type::S32, {R(p)}, {a, b});
  in.mods.cmp = ptx::Cmp::Lt;
  return in;
}
Instr spill(int64_t off, Operand v, MRole role = MRole::Spill) {
  Instr in = make(Op::St, v.mbits == 64 ? Type::B64 : Type::B32, {}, {stack(off), v}, role);
  in.space = ptx::Space::Local;
  return in;
}
Instr fill(Operand v, int64_t off, MRole role = MRole::Fill) {
  Instr in = make(Op::Ld, v.mbits == 64 ? Type::B64 : Type::B32, {v}, {stack(off)}, role);
  in.space = ptx::Space::Local;
  return in;
}
Instr bra(uint32_t target, uint32_t guard = N) {
  Instr in = make(Op::Bra, Type::None, {}, {label(target)});
  if (guard != N) in.guard = R(guard);
  return in;
}
Instr ret() { return make(Op::Ret, Type::None, {}, {}); }

// A machine function being written, with its slot values beside it. Value
// ids below 20 are named %r0..%r19; %rd7 is a 64-bit one.
struct Machine {
  ptx::Function fn;
  SlotValues values;
  std::vector<std::string> names;

  explicit Machine(bool kernel, uint32_t nblocks = 1) {
    fn.name = kernel ? "k" : "f";
    fn.is_entry = kernel;
    fn.regs.resize(mach::kNumRegIds);
    for (uint32_t r = 0; r < mach::kNumRegIds; ++r) fn.regs[r].name = mach::regName(r);
    fn.machine_regs = 32;
    fn.blocks.resize(nblocks);
    values.resize(nblocks);
    for (uint32_t v = 0; v < 20; ++v) names.push_back("%r" + std::to_string(v));
  }
  Machine& at(uint32_t b, Instr in, std::vector<uint32_t> vals) {
    in.loc.line = 100 + static_cast<uint32_t>(fn.blocks[b].instrs.size()) + 10 * b;
    fn.blocks[b].instrs.push_back(in);
    values[b].push_back(std::move(vals));
    return *this;
  }
  uint32_t call(std::vector<uint32_t> uses, std::vector<uint32_t> defs) {
    ptx::CallInfo c;
    c.callee = 1;
    c.machine_uses = std::move(uses);
    c.machine_defs = std::move(defs);
    fn.calls.push_back(c);
    return static_cast<uint32_t>(fn.calls.size() - 1);
  }
  CheckResult check(uint32_t callee_saved = 16) {
    ptx::buildCfg(fn);
    mach::Abi abi;
    abi.callee_saved_count = callee_saved;
    CheckResult r = checkAllocation(fn, values, abi, names);
    for (const auto& e : r.errors) UNSCOPED_INFO(e);
    return r;
  }
};

Instr callInstr(uint32_t index) {
  Instr in = make(Op::Call, Type::None, {}, {});
  in.call = index;
  return in;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("check: a correct straight-line allocation passes", "[backend][check]") {
  // f(a in R4, b in R5) returns a*b+a in R4.
  Machine m(false);
  m.fn.machine_args = {4, 5};
  m.fn.machine_rets = {4};
  m.at(0, mov(R(2), R(4), MRole::ArgMove), {ph(4), 0})
      .at(0, mov(R(3), R(5), MRole::ArgMove), {ph(5), 1})
      .at(0, make(Op::Mul, Type::S32, {R(6)}, {R(2), R(3)}), {0, 1, 7})
      .at(0, add(R(2), R(6), R(2)), {7, 0, 8})  // %r0 dies here, so R2 may take %r8
      .at(0, mov(R(4), R(2), MRole::ArgMove), {8, ph(4)})
      .at(0, ret(), {});
  const CheckResult r = m.check();
  CHECK(r.ok());
  CHECK(r.uses_checked == 8);  // seven register reads and the ret's result
}

TEST_CASE("check: two live values in one register are reported with both names", "[backend][check]") {
  Machine m(true);
  m.at(0, mov(R(2), imm(1)), {7})
      .at(0, mov(R(2), imm(2)), {9})  // %r9 overwrites %r7, which is still live
      .at(0, add(R(3), R(2), R(2)), {7, 9, 10})
      .at(0, ret(), {});
  const CheckResult r = m.check();
  REQUIRE(r.errors.size() == 1);
  const std::string& e = r.errors[0];
  CHECK(contains(e, "kernel k, block 0 (line 102)"));
  CHECK(contains(e, "`add.s32 R3, R2, R2;`"));
  CHECK(contains(e, "R2 holds %r9, expected %r7"));
  CHECK(r.uses_checked == 2);
}

TEST_CASE("check: a fill must read the slot its value was spilled to", "[backend][check]") {
  const int64_t fill_off = GENERATE(8, 12);
  Machine m(true);
  m.at(0, mov(R(2), imm(5)), {7})
      .at(0, spill(8, R(2)), {ph(1), 7})
      .at(0, mov(R(2), imm(6)), {9})
      .at(0, fill(R(3), fill_off), {ph(1), 7})
      .at(0, add(R(4), R(3), R(2)), {7, 9, 10})
      .at(0, ret(), {});
  const CheckResult r = m.check();
  if (fill_off == 8) {
    CHECK(r.ok());
  } else {
    REQUIRE(r.errors.size() == 2);
    CHECK(contains(r.errors[0], "`ld.local.b32 R3, [R1+12];`"));
    CHECK(contains(r.errors[0], "the fill reads [R1+12], which holds no value, expected %r7"));
    CHECK(contains(r.errors[1], "R3 holds no value, expected %r7"));
  }
}

TEST_CASE("check: a value live across a call must be in a callee-saved register", "[backend][check]") {
  const uint32_t home = GENERATE(2u, 16u);
  Machine m(true);
  const uint32_t c = m.call({4}, {4});
  m.at(0, mov(R(home), imm(3)), {7})
      .at(0, mov(R(4), R(home), MRole::ArgMove), {7, ph(4)})
      .at(0, callInstr(c), {ph(4), ph(4)})
      .at(0, add(R(3), R(4), R(home)), {ph(4), 7, 10})
      .at(0, ret(), {});
  const CheckResult r = m.check();
  if (home == 16) {
    CHECK(r.ok());
    CHECK(r.uses_checked == 4);
  } else {
    REQUIRE(r.errors.size() == 1);
    CHECK(contains(r.errors[0], "R2 holds a value clobbered by a call, expected %r7"));
  }
}

TEST_CASE("check: a called function must give back the callee-saved registers it writes", "[backend][check]") {
  const bool saves = GENERATE(false, true);
  Machine m(false);
  m.fn.machine_args = {4};
  m.fn.machine_rets = {4};
  if (saves)
    m.at(0, make(Op::Sub, Type::U32, {R(1)}, {R(1), imm(8)}, MRole::StackAdj), {N, N})
        .at(0, spill(0, R(17), MRole::Save), {N, N});
  m.at(0, add(R(17), R(4), imm(1)), {ph(4), 7}).at(0, add(R(4), R(17), R(17), MRole::Code), {7, 7, ph(4)});
  if (saves)
    m.at(0, fill(R(17), 0, MRole::Restore), {N, N})
        .at(0, make(Op::Add, Type::U32, {R(1)}, {R(1), imm(8)}, MRole::StackAdj), {N, N});
  m.at(0, ret(), {});
  const CheckResult r = m.check();
  if (saves) {
    CHECK(r.ok());
  } else {
    REQUIRE(r.errors.size() == 1);
    CHECK(contains(r.errors[0], "function f, block 0"));
    CHECK(contains(r.errors[0], "`ret;`"));
    CHECK(contains(r.errors[0], "callee-saved R17 holds %r7, expected its value on entry"));
  }
}

TEST_CASE("check: the stack pointer written by plain code is reported, and at the ret", "[backend][check]") {
  Machine m(false);
  m.at(0, add(R(1), R(1), imm(16)), {ph(1), 7}).at(0, ret(), {});
  const CheckResult r = m.check();
  REQUIRE(r.errors.size() == 2);
  CHECK(contains(r.errors[0], "R1 (the stack pointer) is written by a code instruction"));
  CHECK(contains(r.errors[1], "R1 (the stack pointer) holds %r7, expected its value on entry"));
}

TEST_CASE("check: paths that leave different values in a register conflict at the join", "[backend][check]") {
  // 0: if (p) goto 2;  1: R2 = %r7; goto 3;  2: R2 = ...;  3: use %r7 in R2
  const bool wrong = GENERATE(false, true);
  Machine m(true, 4);
  m.at(0, mov(R(3), imm(0)), {6})
      .at(0, setpLt(P0, R(3), imm(4)), {6, 8})
      .at(0, bra(2, P0), {8})
      .at(1, mov(R(2), imm(1)), {7})
      .at(1, bra(3), {});
  if (wrong)
    m.at(2, mov(R(2), imm(2)), {9}).at(2, mov(R(5), imm(2)), {7});  // %r7 went to R5 on this path
  else
    m.at(2, mov(R(2), imm(2)), {7});
  m.at(3, add(R(4), R(2), R(2)), {7, 7, 10}).at(3, ret(), {});
  const CheckResult r = m.check();
  if (!wrong) {
    CHECK(r.ok());
  } else {
    REQUIRE(r.errors.size() == 2);  // both reads of R2
    CHECK(contains(r.errors[0], "block 3 (line 130)"));
    CHECK(contains(r.errors[0], "R2 holds %r9 (block 1: %r7; block 2: %r9), expected %r7"));
  }
}

TEST_CASE("check: a value defined on one path only may share nothing there, but must be where it is defined", "[backend][check]") {
  // 0: if (p) goto 2;  1: %r7 = 1; goto 3;  2: (no %r7, or %r7 in the wrong register);  3: use %r7
  const bool wrong = GENERATE(false, true);
  Machine m(true, 4);
  m.at(0, mov(R(3), imm(0)), {6})
      .at(0, setpLt(P0, R(3), imm(4)), {6, 8})
      .at(0, bra(2, P0), {8})
      .at(1, mov(R(2), imm(1)), {7})
      .at(1, bra(3), {});
  if (wrong)
    m.at(2, mov(R(5), imm(2)), {7});  // %r7 is defined on this path too, but R2 never gets it
  else
    m.at(2, mov(R(5), imm(2)), {9});
  m.at(3, add(R(4), R(2), R(2)), {7, 7, 10}).at(3, ret(), {});
  const CheckResult r = m.check();
  if (!wrong) {
    CHECK(r.ok());  // PTX reads of a register defined on some paths only are the program's own business
  } else {
    REQUIRE(r.errors.size() == 2);
    CHECK(contains(r.errors[0],
                   "R2 holds different values on different paths (block 1: %r7; block 2: the entry value of R2), expected %r7"));
  }
}

TEST_CASE("check: a spilled value defined and read only under one condition, in a loop, passes", "[backend][check]") {
  // 0: R3 = %r6;  1 (loop): if (!P0) goto 4;  2: R2 = %r7; spill it;  3: an inner
  // loop;  4: if (!P0) goto 6;  5: fill %r7 and read it;  6: if (P1) goto 1;  7: ret.
  // %r7 is defined and read only when P0 holds (a tile with items): the slot
  // holds it, or nothing on the first trip, wherever it is read. The data
  // flow meets block 6 before block 5 has seen %r7 in the slot; that early,
  // incomplete meet must not stick (once it did, as a conflict that went
  // round the loop). `wrong` fills from a slot nothing was spilled to.
  const bool wrong = GENERATE(false, true);
  Machine m(true, 8);
  m.at(0, mov(R(3), imm(0)), {6})
      .at(1, setpLt(P0, R(3), imm(4)), {6, 8})
      .at(1, bra(4, P0), {8})
      .at(2, mov(R(2), imm(5)), {7})
      .at(2, spill(8, R(2)), {ph(1), 7})
      .at(3, add(R(5), R(3), imm(1)), {6, 11})
      .at(3, setpLt(P0 + 1, R(5), imm(9)), {11, 12})
      .at(3, bra(3, P0 + 1), {12})
      .at(4, bra(6, P0), {8})
      .at(5, fill(R(4), wrong ? 12 : 8), {ph(1), 7})
      .at(5, add(R(4), R(4), R(3)), {7, 6, 10})
      .at(6, setpLt(P0 + 2, R(3), imm(2)), {6, 13})
      .at(6, bra(1, P0 + 2), {13})
      .at(7, ret(), {});
  const CheckResult r = m.check();
  if (!wrong) {
    CHECK(r.ok());
  } else {
    REQUIRE(r.errors.size() == 2);
    CHECK(contains(r.errors[0], "the fill reads [R1+12], which holds no value, expected %r7"));
  }
}

TEST_CASE("check: a register holding two copies keeps the one the other path never defined", "[backend][check]") {
  // 0: R2 = %r6; if (P0) goto 2;  1: %r7 = mov %r6 in R2 (both in R2);  2: read
  // %r7 from R2. %r7 is not defined on the path 0 -> 2, so R2 may be read as it.
  Machine m(true, 3);
  m.at(0, mov(R(2), imm(3)), {6})
      .at(0, setpLt(P0, R(2), imm(4)), {6, 8})
      .at(0, bra(2, P0), {8})
      .at(1, mov(R(2), R(2)), {6, 7})
      .at(2, add(R(3), R(2), R(2)), {7, 6, 9})
      .at(2, ret(), {});
  const CheckResult r = m.check();
  CHECK(r.ok());
}

TEST_CASE("check: a loop converges, and a value broken on the back edge is reported once", "[backend][check]") {
  // 0: R2 = %r7;  1: %r7 += 1 (R2); R2 = ...; if (P0) goto 1;  2: ret
  const bool wrong = GENERATE(false, true);
  Machine m(true, 3);
  m.at(0, mov(R(2), imm(0)), {7});
  m.at(1, add(R(2), R(2), imm(1)), {7, 7});
  if (wrong)
    m.at(1, mov(R(2), imm(5)), {9}).at(1, setpLt(P0, R(2), imm(10)), {9, 8});
  else
    m.at(1, setpLt(P0, R(2), imm(10)), {7, 8});
  m.at(1, bra(1, P0), {8}).at(2, mov(R(3), R(2)), {wrong ? 9u : 7u, 10}).at(2, ret(), {});
  const CheckResult r = m.check();
  if (!wrong) {
    CHECK(r.ok());
    CHECK(r.uses_checked == 4);
  } else {
    REQUIRE(r.errors.size() == 1);
    CHECK(contains(r.errors[0], "block 1 (line 110)"));
    CHECK(contains(r.errors[0], "R2 holds %r9 (block 0: %r7; block 1: %r9), expected %r7"));
  }
}

TEST_CASE("check: a 64-bit pair on an odd register is reported", "[backend][check]") {
  Machine m(true);
  m.names[11] = "%rd11";
  m.at(0, mov(R(3, 64), imm(1)), {11}).at(0, add(R(6, 64), R(3, 64), imm(1)), {11, 12}).at(0, ret(), {});
  const CheckResult r = m.check();
  REQUIRE(r.errors.size() == 2);
  CHECK(contains(r.errors[0], "the 64-bit pair R3:R4 starts at an odd register"));
  CHECK(contains(r.errors[1], "the 64-bit pair R3:R4 starts at an odd register"));
}

TEST_CASE("check: each half of a pair must hold the pair's value", "[backend][check]") {
  Machine m(true);
  m.names[11] = "%rd11";
  m.at(0, mov(R(2, 64), imm(1)), {11})
      .at(0, mov(R(3), imm(2)), {9})  // %r9 takes the high half of a live pair
      .at(0, add(R(4, 64), R(2, 64), imm(1)), {11, 12})
      .at(0, ret(), {});
  const CheckResult r = m.check();
  REQUIRE(r.errors.size() == 1);
  CHECK(contains(r.errors[0], "R3 holds %r9, expected %rd11"));
}

TEST_CASE("check: registers at or above the count, and writes to RZ, are reported", "[backend][check]") {
  Machine m(true);
  m.fn.machine_regs = 8;
  m.at(0, mov(R(8), imm(1)), {7}).at(0, mov(R(mach::kRZ), R(8)), {7, 9}).at(0, ret(), {});
  const CheckResult r = m.check();
  REQUIRE(r.errors.size() == 3);
  CHECK(contains(r.errors[0], "R8 is at or above the function's register count 8"));
  CHECK(contains(r.errors[1], "R8 is at or above the function's register count 8"));
  CHECK(contains(r.errors[2], "RZ is written"));
}

TEST_CASE("check: slot values that do not match the instruction are reported", "[backend][check]") {
  Machine m(true);
  m.at(0, add(R(3), R(2), R(2)), {7, 7}).at(0, ret(), {});
  const CheckResult r = m.check();
  REQUIRE_FALSE(r.ok());
  CHECK(contains(r.errors[0], "the slot values list 2 slots, the instruction has 3"));
}
