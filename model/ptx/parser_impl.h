// The parser's internal state, shared by its translation units:
// parser.cpp (module level, declarations, function bodies) and
// parse_instr.cpp (instructions and operands). Not a public header.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ptx/ir.h"
#include "ptx/lexer.h"

namespace rfsim::ptx::detail {

// One declarator: `.param .align 8 .b8 name[16]`, `.shared .u32 s[2][4]`.
struct Decl {
  Space space = Space::None;
  Type type = Type::None;
  uint32_t align = 0;
  uint8_t vec = 1;
  std::string name;
  SrcLoc loc;
  uint64_t count = 1;
  bool unsized = false;  // `[]`
  bool managed = false;  // `.attribute(.managed)`: a __managed__ variable
};

// Bounds that keep a hostile or corrupted file from asking for absurd
// amounts of memory: far above anything nvcc emits.
inline constexpr uint64_t kMaxRegRange = 1u << 20;
inline constexpr uint64_t kMaxRegs = 1u << 22;  // per function
inline constexpr uint64_t kMaxInitBytes = 1ull << 28;

inline uint64_t elemBytes(const Decl& d) { return (typeBits(d.type) + 7) / 8 * d.vec; }

inline Symbol symbolFrom(const Decl& d) {
  Symbol s;
  s.name = d.name;
  s.space = d.space;
  s.type = d.type;
  s.align = d.align;
  s.count = d.unsized ? 0 : d.count * d.vec;
  s.size = d.unsized ? 0 : d.count * elemBytes(d);
  s.loc = d.loc;
  return s;
}

// A token as messages quote it.
inline std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::End: return "end of file";
    case Tok::String: return "\"" + t.text + "\"";
    default: return "'" + t.text + "'";
  }
}

// Per-function parsing state.
struct FnCtx {
  uint32_t index = 0;
  // Scopes: the body, then one per nested `{ }` (call sequences).
  std::vector<std::unordered_map<std::string, uint32_t>> reg_scopes, sym_scopes;
  std::unordered_set<std::string> reg_names, sym_names;  // every name given in this function
  std::unordered_map<std::string, uint32_t> labels;      // label -> block
  std::unordered_map<std::string, uint32_t> prototypes;  // label -> Module::prototypes index
  std::unordered_map<std::string, std::vector<uint32_t>> calltargets;
  struct Fixup {
    uint32_t block, instr;
    bool dst;
    uint8_t slot;
    std::string label;
    SrcLoc loc;
  };
  std::vector<Fixup> fixups;
  struct CallFixup {  // `call ..., label;` naming a .calltargets defined later
    uint32_t call;
    std::string label;
    SrcLoc loc;
  };
  std::vector<CallFixup> call_fixups;
  bool start_block = false;  // the last instruction ended a block
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string file);
  // `whole_file`: the text is a PTX file, which starts with .version and
  // .target (ptxas' rule); an empty one, or one cut before them, is an error.
  Module run(bool whole_file = false);

 private:
  // Tokens.
  bool whole_file_ = false;
  const Token& peek(size_t k = 0) const;
  const Token& next();
  bool acceptPunct(char c);
  bool acceptDirective(const char* d);
  const Token& expectPunct(char c, const char* context);
  const Token& expectIdent(const char* what);
  uint64_t expectUInt(const char* what);
  [[noreturn]] void fail(const Token& t, const std::string& msg) const;
  [[noreturn]] void fail(const SrcLoc& loc, const std::string& msg) const;
  static SrcLoc locOf(const Token& t) { return {t.line, t.col}; }
  std::string where(const SrcLoc& loc) const;

  // Module level (parser.cpp).
  void parseHeader();
  void parseTopLevel();
  void skipRestOfLine(const Token& directive);
  void skipSection();
  void parseFunction(bool is_entry, bool is_extern, bool is_visible, bool is_weak);
  void parseParamList(std::vector<Decl>& out, bool in_prototype);
  Decl parseDeclarator(Space space, bool allow_dims, bool allow_ptr);
  void parseVariable(Space space, bool is_extern, bool is_visible, FnCtx* fn, bool is_weak = false);
  void parseInitializer(Symbol& sym, Type type, uint64_t elem_bytes);
  uint32_t addSymbol(Symbol sym, FnCtx* fn);  // fails at sym.loc on a duplicate
  uint32_t functionSymbol(uint32_t function);
  void parsePerfDirectives(Function& f);

  // Function bodies (parser.cpp).
  void parseBody(FnCtx& fn);
  void parseRegDecl(FnCtx& fn);
  void parsePrototype(FnCtx& fn, const Token& label);
  void parseCalltargets(FnCtx& fn, const Token& label);
  void defineLabel(FnCtx& fn, const Token& label);
  void resolveFixups(FnCtx& fn);
  uint32_t declareReg(FnCtx& fn, const std::string& name, Type type, const Token& at);
  std::string uniqueName(std::unordered_set<std::string>& used, const std::string& name);
  BasicBlock& currentBlock(FnCtx& fn);
  Function& func(FnCtx& fn) { return mod_.functions[fn.index]; }

  // Instructions (parse_instr.cpp).
  void parseInstruction(FnCtx& fn);
  void parseCall(FnCtx& fn, Instr& in, const Token& op_tok);
  Operand parseOperand(FnCtx& fn, Instr& in, bool is_dst, unsigned index);
  Operand parseAddress(FnCtx& fn);
  Operand parseImmediate(const Token& t, Type want);
  void checkReg(FnCtx& fn, uint32_t reg, Type want, bool relaxed, const Token& at,
                const std::string& opcode);
  const uint32_t* findReg(FnCtx& fn, const std::string& name) const;
  uint32_t findSymbol(FnCtx& fn, const std::string& name) const;  // kNoSym if none
  uint32_t resolveParamSym(FnCtx& fn, const Token& t);

  std::vector<Token> toks_;
  size_t pos_ = 0;
  Module mod_;
  std::vector<uint32_t> fn_sym_;             // function -> its address symbol, or kNoSym
  std::vector<bool> fn_defined_;             // function has a body
  std::string op_text_;                      // opcode of the instruction being parsed, for messages
};

}  // namespace rfsim::ptx::detail
