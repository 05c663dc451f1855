// Names the printer gives a function's blocks and local symbols (shared by
// printer.cpp and printer_instr.cpp; not part of the library's interface).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ptx/ir.h"

namespace rfsim::ptx::printer_detail {

struct FunctionNames {
  std::vector<std::string> labels;                  // per block; "" = print no label
  std::unordered_map<uint32_t, std::string> syms;   // function-scoped symbol -> unique name
  std::unordered_map<uint32_t, std::string> calltargets;  // call index -> label of its .calltargets
};

FunctionNames nameFunction(const Module& m, const Function& fn);
std::string regName(const Function& fn, uint32_t reg);
std::string symName(const Module& m, const FunctionNames& names, uint32_t sym);
std::string spellInstr(const Module& m, const Function& fn, const FunctionNames& names, const Instr& in);
// An immediate of type t: float bits as 0f/0d, integers in decimal.
std::string spellImm(int64_t imm, Type t);
unsigned typeBytes(Type t);

}  // namespace rfsim::ptx::printer_detail
