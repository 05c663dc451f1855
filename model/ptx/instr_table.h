// Opcode and modifier decoding for the parser: the text `setp.lt.and.s32`
// becomes Op, types and Mods; plus, per opcode, how many operands it takes
// and what type each operand position has (for PTX's type-checking rules).
#pragma once

#include <cstdint>
#include <string>

#include "ptx/ir.h"

namespace rfsim::ptx {

enum class DecodeStatus : uint8_t { Ok, Unknown, Unsupported };

// Fills in.op, type, type2, space, mods from the full opcode text. On
// failure returns Unknown (no such opcode) or Unsupported (a PTX instruction
// or modifier outside ir.h's Op list) with the detail in *why.
DecodeStatus decodeOpcode(const std::string& text, Instr& in, std::string* why);

// Allowed operand counts of a decoded instruction (call excluded: the
// parser handles its operand lists itself).
struct OperandCounts {
  uint8_t min_dst, max_dst, min_src, max_src;
};
OperandCounts operandCounts(const Instr& in);

// What an operand position holds, for type checking and for encoding
// immediates. `relaxed`: a register wider than `type` is fine (ld/st/cvt
// of sub-word integers, PTX ISA 5.4.3); `address`: a memory operand
// `[...]` goes here.
struct Slot {
  Type type = Type::None;
  bool relaxed = false;
  bool address = false;
  bool label = false;
};
Slot operandSlot(const Instr& in, bool is_dst, unsigned index);

// PTX's rule for a register declared `reg` used where `want` is expected:
// same-size integer types are interchangeable, .b types match any type of
// their size, floats only themselves and .b, predicates only predicates.
bool typeCompatible(Type want, Type reg, bool relaxed);

// ".s32" -> Type::S32; Type::None if the word is not a type.
Type typeFromWord(const std::string& word);

}  // namespace rfsim::ptx
