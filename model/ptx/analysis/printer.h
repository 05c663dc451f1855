// Writes the IR back as PTX text: directives, module variables with their
// initialisers, functions with parameters, returns, one `.reg` declaration
// per virtual register (original names), labelled blocks and instructions
// spelled from their decoded enums. Meant to be re-parsable by the front end
// into an equivalent module, and to be read by people (with `annotate`, each
// block carries its CFG facts as a comment).
//
// What the IR does not keep cannot be printed back: memory-model orders and
// scopes (printed as `.relaxed.gpu`, `membar.gl`, `fence.acq_rel.gpu`), cache
// and prefetch levels, pointer parameter attributes, .weak/.common linkage,
// debug sections and .loc, where a .pragma stood in a body, and the `{ }`
// scopes of call sequences: their .param declarations go to the top of the
// function, renamed (`param0_1`, ...) where a name repeats. Function bodies
// come .func first, then .entry, after a declaration of every .func, so that
// parse -> print -> parse -> print gives the same text twice.
#pragma once

#include <string>

#include "ptx/ir.h"

namespace rfsim::ptx {

struct PrintOptions {
  // Per block: `// block N: preds ...; succs ...; idom D; ipdom P; loop depth L`.
  // The CFG is rebuilt on a copy for this, so it works before buildCfg too.
  bool annotate = false;
};

std::string printModule(const Module& m, const PrintOptions& opt = {});
std::string printFunction(const Module& m, const Function& fn, const PrintOptions& opt = {});
// One instruction, without indentation, `;` included (`@!%p1 bra $L__BB0_3;`).
std::string printInstr(const Module& m, const Function& fn, const Instr& in);

// PTX spellings of the IR's enums (printer_instr.cpp). They mirror ir.cpp's
// typeName/opName/spaceName, kept here so this library does not need them.
const char* ptxTypeName(Type t);  // "s32"; "" for None
const char* ptxSpaceName(Space s);  // "global"; "" for None and Generic
const char* ptxOpName(Op op);     // "setp"

}  // namespace rfsim::ptx
