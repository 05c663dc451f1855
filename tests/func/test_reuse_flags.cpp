// The operand reuse flags set on a machine program (func::setReuseFlags):
// hand-built instruction sequences.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <vector>

#include "func/decode.h"
#include "ptx/machine.h"

using namespace rfsim;
using func::Cls;
using func::DInstr;

namespace {

ptx::Instr dummy;

DInstr instr(std::initializer_list<uint16_t> reads, std::initializer_list<uint16_t> writes, Cls cls = Cls::Lane) {
  DInstr d;
  d.in = &dummy;
  d.cls = cls;
  for (uint16_t r : reads) d.reads[d.nreads++] = r;
  for (uint16_t w : writes) d.writes[d.nwrites++] = w;
  return d;
}

constexpr uint16_t kP0 = ptx::mach::kPredBase;  // a predicate: not a register-file operand

}  // namespace

TEST_CASE("reuse flags: an operand the next instruction reads in the same slot", "[reuse]") {
  // FFMA R4, R0, R1, R2; FFMA R5, R0, R3, R2; FADD R6, R3, R0
  std::vector<DInstr> code{instr({0, 1, 2}, {4}), instr({0, 3, 2}, {5}), instr({3, 0}, {6})};
  func::setReuseFlags(code, {0});
  CHECK(code[0].reuse == 0b101);  // R0 in slot 0, R2 in slot 2
  CHECK(code[1].reuse == 0);      // R3 and R0 change slots
  CHECK(code[2].reuse == 0);      // the last instruction
}

TEST_CASE("reuse flags: predicates take no slot, and a written register is not flagged", "[reuse]") {
  // @P0 IADD R1, R1, R2 (writes R1); IADD R3, R1, R2
  std::vector<DInstr> code{instr({kP0, 1, 2}, {1}), instr({1, 2}, {3})};
  func::setReuseFlags(code, {0});
  CHECK(code[0].reuse == 0b10);  // R2 only: R1 is written by the first
}

TEST_CASE("reuse flags: not across a block boundary or a control transfer", "[reuse]") {
  std::vector<DInstr> code{instr({0}, {1}), instr({0}, {2}), instr({0}, {3}), instr({0}, {}, Cls::Call),
                           instr({0}, {4})};
  func::setReuseFlags(code, {0, 1});  // a block starts at pc 1
  CHECK(code[0].reuse == 0);          // pc 1 starts a block
  CHECK(code[1].reuse == 1);
  CHECK(code[2].reuse == 0);          // a call next: not an ALU instruction
  CHECK(code[3].reuse == 0);          // a call
}

TEST_CASE("reuse flags: an instruction without an operand in the slot leaves it, a write in between does not",
          "[reuse]") {
  // IMAD R4, R0, c, R1; MOV R5, R7; IMAD R6, R2, c, R1: R1 stays in slot 1
  // across the MOV, which has no slot 1 (as ptxas flags it).
  std::vector<DInstr> code{instr({0, 1}, {4}), instr({7}, {5}), instr({2, 1}, {6})};
  func::setReuseFlags(code, {0});
  CHECK(code[0].reuse == 0b10);
  // The same with the MOV writing R1: R1 changed, no flag.
  std::vector<DInstr> written{instr({0, 1}, {4}), instr({7}, {1}), instr({2, 1}, {6})};
  func::setReuseFlags(written, {0});
  CHECK(written[0].reuse == 0);
}

TEST_CASE("reuse flags: only between unpredicated ALU instructions", "[reuse]") {
  DInstr guarded = instr({0}, {2});
  guarded.has_guard = true;
  // A load reads R0 in slot 0 next: its operands go to the memory pipeline.
  std::vector<DInstr> load{instr({0}, {1}), instr({0}, {2}, Cls::Ld), instr({0}, {3})};
  func::setReuseFlags(load, {0});
  CHECK(load[0].reuse == 0);
  CHECK(load[1].reuse == 0);
  // A predicated instruction next, or in between.
  std::vector<DInstr> pred{instr({0}, {1}), guarded, instr({0}, {3})};
  func::setReuseFlags(pred, {0});
  CHECK(pred[0].reuse == 0);
  CHECK(pred[1].reuse == 0);
  std::vector<DInstr> between{instr({0, 1}, {4}), instr({7}, {5}), instr({2, 1}, {6})};
  between[1].has_guard = true;
  func::setReuseFlags(between, {0});
  CHECK(between[0].reuse == 0);
}
