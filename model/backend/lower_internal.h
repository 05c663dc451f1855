// Pieces the lowering's files share (lower.cpp: the function as a whole,
// .local variables, extension registers; lower_params.cpp: the calling
// convention, parameter, result and argument symbols); not an interface for
// other units.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/lower.h"
#include "common/error.h"

namespace rfsim::backend::lowering {

inline ptx::Type typeOfBits(unsigned bits) {
  switch (bits) {
    case 1: return ptx::Type::Pred;
    case 16: return ptx::Type::B16;
    case 64: return ptx::Type::B64;
    default: return ptx::Type::B32;
  }
}
inline ptx::Operand regOp(uint32_t v, unsigned bits) { return regOperand(v, bits); }
inline ptx::Operand immOp(int64_t v) { return immOperand(v); }
inline ptx::Operand spAddr(int64_t off) { return stackAddr(physId(ptx::mach::kSP), off); }

// Where one parameter-like symbol's bytes live inside this function. A
// register-passed one is a run of 32-bit words (one value per argument
// register), or one 64-bit pair value when it is an 8-byte scalar only ever
// accessed whole.
struct Store {
  bool in_regs = false;
  uint32_t first = 0, nregs = 0;  // argument registers
  bool pair = false;              // a 64-bit scalar kept in one pair value
  uint32_t pair_vreg = ptx::kNoReg;
  std::vector<uint32_t> words;    // 32-bit values, one per register
  uint32_t bit = 0;               // in_regs: index of its word 0 in the written-word sets (Lowerer::written_in_)
  int64_t stack = 0;              // !in_regs: R1-relative offset of byte 0
};

class Lowerer {
 public:
  Lowerer(const ptx::Module& m, uint32_t index) : m_(m), src_(m.functions[index]) {
    mf_.index = index;
    mf_.fn = src_;
  }

  MFunction run();

 private:
  [[noreturn]] void fail(const ptx::Instr& in, const std::string& what) const {
    throw Error(fmt::format("{}:{}: {} {}: {}", m_.file, in.loc.line, src_.is_entry ? "kernel" : "function",
                            src_.name, what));
  }
  // lower.cpp
  void setWidths();
  void ensureEntryBlock();
  void scanAccesses();
  bool lowerLocalSymbols(std::vector<ptx::Instr>& out, ptx::Instr& in);
  void pinExtRegisters();
  // lower_params.cpp
  void placeOwnParams();
  void placeCalls();
  void makeStore(uint32_t sym, const ptx::mach::ParamLoc& loc, int64_t stack_base);
  void analyzeWrites();
  void noteWrite(const ptx::Instr& in, std::vector<bool>& written) const;
  Store& store(uint32_t sym) { return stores_.at(sym); }
  uint32_t word(Store& s, uint32_t k) {
    if (s.words[k] == ptx::kNoReg) s.words[k] = mf_.newVreg(ptx::Type::B32, 32);
    return s.words[k];
  }
  ptx::Instr mk(ptx::Op op, ptx::Type t, const ptx::Instr& at, ptx::MRole role = ptx::MRole::ArgMove) const {
    ptx::Instr in;
    in.op = op;
    in.type = t;
    in.loc = at.loc;
    in.role = role;
    return in;
  }
  void emitMov(std::vector<ptx::Instr>& out, const ptx::Instr& at, uint32_t dst, unsigned dbits,
               const ptx::Operand& src);
  void readStore(std::vector<ptx::Instr>& out, const ptx::Instr& at, Store& s, int64_t off, unsigned bytes,
                 const ptx::Operand& dst, ptx::Type type);
  void writeStore(std::vector<ptx::Instr>& out, const ptx::Instr& at, Store& s, int64_t off, unsigned bytes,
                  ptx::Operand src);
  void lowerParamAccess(std::vector<ptx::Instr>& out, const ptx::Instr& in);
  void lowerCall(std::vector<ptx::Instr>& out, ptx::Instr in);
  void lowerRet(std::vector<ptx::Instr>& out, const ptx::Instr& in);
  void entryMoves(std::vector<ptx::Instr>& out);

  const ptx::Module& m_;
  const ptx::Function& src_;
  MFunction mf_;
  std::map<uint32_t, Store> stores_;          // by symbol
  std::map<uint32_t, bool> only_whole64_;     // symbol: every access is 8 bytes at offset 0
  std::map<uint32_t, uint32_t> local_off_;    // .local symbol -> offset in the frame
  std::vector<uint32_t> own_params_, own_rets_;
  // The words of register-passed stores (Store::bit + k) that a st.param
  // may have written on some path: at the start of each block, and while
  // a block is lowered (cur_written_). ever_written_: by any st.param in
  // the function, or on entry (the function's own parameters).
  std::vector<std::vector<bool>> written_in_;
  std::vector<bool> cur_written_, ever_written_;
};

}  // namespace rfsim::backend::lowering
