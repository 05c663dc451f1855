// Module level: header directives, variables, function headers and bodies.
// Instructions and their operands are in parse_instr.cpp.
#include "ptx/parser.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/instr_table.h"
#include "ptx/parser_impl.h"

namespace rfsim::ptx {

namespace detail {


Parser::Parser(std::vector<Token> tokens, std::string file) : toks_(std::move(tokens)) {
  mod_.file = std::move(file);
}

const Token& Parser::peek(size_t k) const {
  const size_t i = pos_ + k;
  return i < toks_.size() ? toks_[i] : toks_.back();
}

const Token& Parser::next() {
  const Token& t = toks_[pos_];
  if (pos_ + 1 < toks_.size()) ++pos_;
  return t;
}

bool Parser::acceptPunct(char c) {
  if (!peek().punct(c)) return false;
  next();
  return true;
}

bool Parser::acceptDirective(const char* d) {
  if (!peek().is(Tok::Directive, d)) return false;
  next();
  return true;
}


const Token& Parser::expectPunct(char c, const char* context) {
  if (!peek().punct(c)) fail(peek(), fmt::format("expected '{}' {}, found {}", c, context, describe(peek())));
  return next();
}

const Token& Parser::expectIdent(const char* what) {
  if (peek().kind != Tok::Ident) fail(peek(), fmt::format("expected {}, found {}", what, describe(peek())));
  return next();
}

uint64_t Parser::expectUInt(const char* what) {
  if (peek().kind != Tok::Int || peek().ival < 0) {
    fail(peek(), fmt::format("expected {} (a non-negative integer), found {}", what, describe(peek())));
  }
  return static_cast<uint64_t>(next().ival);
}

std::string Parser::where(const SrcLoc& loc) const {
  return fmt::format("{}:{}:{}", mod_.file, loc.line, loc.col);
}

void Parser::fail(const Token& t, const std::string& msg) const { fail(locOf(t), msg); }

void Parser::fail(const SrcLoc& loc, const std::string& msg) const {
  throw Error(where(loc) + ": " + escapeControl(msg));
}

Module Parser::run(bool whole_file) {
  whole_file_ = whole_file;
  if (whole_file_ && peek().kind == Tok::End)
    fail(peek(), "empty PTX file: no .version directive (a PTX file starts with .version and .target)");
  while (peek().kind != Tok::End) parseTopLevel();
  if (whole_file_ && mod_.target.empty())
    fail(peek(), "the file ends without a .target directive (is it cut short?)");
  for (size_t i = 0; i < mod_.functions.size(); ++i) {
    if (!fn_defined_[i]) mod_.functions[i].is_extern = true;  // declared, no body anywhere
  }
  return std::move(mod_);
}

void Parser::skipRestOfLine(const Token& directive) {
  next();
  while (peek().kind != Tok::End && peek().line == directive.line) next();
}

// `.section .debug_info { ... }`: DWARF data for the debugger, not code.
void Parser::skipSection() {
  next();  // .section
  if (peek().kind == Tok::Directive || peek().kind == Tok::Ident) next();  // its name
  const Token& open = expectPunct('{', "after .section name");
  int depth = 1;
  while (depth > 0) {
    const Token& t = next();
    if (t.kind == Tok::End) {
      fail(t, fmt::format("unterminated block: the '{{' at {}:{} is never closed", open.line, open.col));
    }
    if (t.punct('{')) ++depth;
    if (t.punct('}')) --depth;
  }
}

void Parser::parseTopLevel() {
  const Token& t = peek();
  if (t.kind != Tok::Directive) {
    fail(t, fmt::format("unexpected {} at module scope", describe(t)));
  }
  const std::string& d = t.text;
  // ptxas: "Missing .version directive at start of file", then the same for .target.
  if (whole_file_ && mod_.version_major == 0 && d != ".version")
    fail(t, fmt::format("missing .version directive at the start of the file (found {}; a PTX file starts with "
                        ".version and .target)",
                        describe(t)));
  if (whole_file_ && mod_.version_major != 0 && mod_.target.empty() && d != ".target" && d != ".version")
    fail(t, fmt::format("missing .target directive after .version (found {})", describe(t)));
  if (d == ".version") {
    next();
    const Token& v = next();
    if (v.kind != Tok::Float && v.kind != Tok::Int) fail(v, "expected a version number after .version");
    unsigned maj = 0, min = 0;
    if (std::sscanf(v.text.c_str(), "%u.%u", &maj, &min) < 1) fail(v, "bad .version '" + v.text + "'");
    mod_.version_major = maj;
    mod_.version_minor = min;
    return;
  }
  if (d == ".target") {
    next();
    mod_.target = expectIdent("a target after .target").text;
    while (acceptPunct(',')) expectIdent("a target option");
    return;
  }
  if (d == ".address_size") {
    next();
    const Token& at = peek();
    const uint64_t n = expectUInt("an address size");
    if (n != 32 && n != 64) fail(at, "address size must be 32 or 64");
    mod_.address_size = static_cast<uint32_t>(n);
    return;
  }
  if (d == ".file" || d == ".loc") return skipRestOfLine(t);
  if (d == ".section") return skipSection();
  if (d == ".pragma") {
    next();
    if (peek().kind != Tok::String) fail(peek(), "expected a string after .pragma");
    next();
    expectPunct(';', "after .pragma");
    return;
  }
  bool is_extern = false, is_visible = false, is_weak = false;
  for (;;) {
    if (acceptDirective(".extern")) is_extern = true;
    else if (acceptDirective(".visible")) is_visible = true;
    else if (acceptDirective(".weak") || acceptDirective(".common")) is_weak = true;
    else break;
  }
  const Token& k = peek();
  if (k.is(Tok::Directive, ".entry")) return parseFunction(true, is_extern, is_visible, is_weak);
  if (k.is(Tok::Directive, ".func")) return parseFunction(false, is_extern, is_visible, is_weak);
  Space sp = Space::None;
  if (k.is(Tok::Directive, ".global")) sp = Space::Global;
  else if (k.is(Tok::Directive, ".shared")) sp = Space::Shared;
  else if (k.is(Tok::Directive, ".const")) sp = Space::Const;
  else if (k.is(Tok::Directive, ".local")) sp = Space::Local;
  if (sp != Space::None) {
    next();
    return parseVariable(sp, is_extern, is_visible || is_weak, nullptr, is_weak);
  }
  if (k.kind == Tok::Directive) fail(k, fmt::format("unsupported directive '{}' at module scope", k.text));
  fail(k, fmt::format("unexpected {} at module scope", describe(k)));
}

// ---------------------------------------------------------------------------
// Declarations.

Decl Parser::parseDeclarator(Space space, bool allow_dims, bool allow_ptr) {
  Decl d;
  d.space = space;
  bool after_ptr = false;  // `.ptr .global .align 16`: the pointee's space and alignment
  for (;;) {
    const Token& t = peek();
    if (t.kind != Tok::Directive) break;
    const std::string w = t.text.substr(1);
    if (w == "align") {
      next();
      const Token& at = peek();
      const uint64_t a = expectUInt("an alignment");
      if (a == 0 || (a & (a - 1)) != 0 || a > 4096) fail(at, "alignment must be a power of two");
      if (!after_ptr) d.align = static_cast<uint32_t>(a);
    } else if (w == "v2" || w == "v4" || w == "v8") {
      next();
      d.vec = static_cast<uint8_t>(w[1] - '0');
    } else if (w == "ptr" && allow_ptr) {
      next();
      after_ptr = true;
    } else if (after_ptr && (w == "global" || w == "shared" || w == "const" || w == "local")) {
      next();  // `.ptr .global`: a hint on where the pointer points
    } else if (w == "attribute") {
      next();
      expectPunct('(', "after .attribute");
      while (!peek().punct(')') && peek().kind != Tok::End) {
        if (peek().text == ".managed" || peek().text == "managed") d.managed = true;
        next();
      }
      expectPunct(')', "closing .attribute");
    } else if (typeFromWord(w) != Type::None) {
      if (d.type != Type::None) fail(t, fmt::format("second type '{}' in a declaration", t.text));
      next();
      d.type = typeFromWord(w);
    } else {
      fail(t, fmt::format("unexpected '{}' in a declaration", t.text));
    }
  }
  if (d.type == Type::None) fail(peek(), fmt::format("expected a type, found {}", describe(peek())));
  const Token& name = expectIdent("a name");
  if (name.text.find('.') != std::string::npos) fail(name, fmt::format("bad name '{}'", name.text));
  d.name = name.text;
  d.loc = locOf(name);
  while (allow_dims && peek().punct('[')) {
    next();
    if (acceptPunct(']')) {
      d.unsized = true;
      d.count = 0;
      continue;
    }
    const Token& at = peek();
    const uint64_t n = expectUInt("an array size");
    if (n > kMaxInitBytes) fail(at, "array too large");
    d.count *= n;
    if (d.count > kMaxInitBytes) fail(at, "array too large");
    expectPunct(']', "after an array size");
  }
  return d;
}

void Parser::parseParamList(std::vector<Decl>& out, bool in_prototype) {
  expectPunct('(', "to open a parameter list");
  if (acceptPunct(')')) return;
  for (;;) {
    const Token& sp = peek();
    if (!sp.is(Tok::Directive, ".param")) {
      if (sp.is(Tok::Directive, ".reg")) fail(sp, "register parameters (.reg) are not supported");
      fail(sp, fmt::format("expected .param, found {}", describe(sp)));
    }
    next();
    Decl d = parseDeclarator(Space::Param, true, true);
    if (d.type == Type::Pred) fail(d.loc, "a parameter cannot be a predicate");
    if (d.unsized && !in_prototype) fail(d.loc, "a parameter needs a size");
    out.push_back(std::move(d));
    if (acceptPunct(')')) return;
    expectPunct(',', "between parameters");
  }
}


std::string Parser::uniqueName(std::unordered_set<std::string>& used, const std::string& name) {
  std::string n = name;
  for (unsigned k = 1; used.count(n); ++k) n = fmt::format("{}${}", name, k);
  used.insert(n);
  return n;
}

uint32_t Parser::addSymbol(Symbol sym, FnCtx* fn) {
  const SrcLoc at = sym.loc;
  const std::string name = sym.name;
  if (fn == nullptr) {
    auto it = mod_.global_symbols.find(name);
    if (it != mod_.global_symbols.end()) {
      Symbol& old = mod_.symbols[it->second];
      // An extern declaration and the definition may both appear.
      if (old.is_extern && !sym.is_extern) {
        sym.is_visible = sym.is_visible || old.is_visible;
        old = std::move(sym);
        return it->second;
      }
      if (sym.is_extern) return it->second;
      fail(at, fmt::format("duplicate definition of '{}' (first at {}:{})", name, old.loc.line, old.loc.col));
    }
    if (mod_.function_index.count(name)) fail(at, fmt::format("duplicate definition of '{}' (a function)", name));
    const auto idx = static_cast<uint32_t>(mod_.symbols.size());
    mod_.symbols.push_back(std::move(sym));
    mod_.global_symbols.emplace(name, idx);
    return idx;
  }
  auto& scope = fn->sym_scopes.back();
  if (scope.count(name)) fail(at, fmt::format("duplicate definition of '{}'", name));
  sym.owner = static_cast<int32_t>(fn->index);
  sym.name = uniqueName(fn->sym_names, name);
  const auto idx = static_cast<uint32_t>(mod_.symbols.size());
  mod_.symbols.push_back(std::move(sym));
  scope.emplace(name, idx);
  return idx;
}

uint32_t Parser::functionSymbol(uint32_t function) {
  if (fn_sym_[function] != kNoSym) return fn_sym_[function];
  Symbol s;
  s.name = mod_.functions[function].name;
  s.is_function = true;
  s.function = function;
  s.is_extern = mod_.functions[function].is_extern;
  s.is_visible = mod_.functions[function].is_visible;
  s.size = 0;
  s.loc = mod_.functions[function].loc;
  const auto idx = static_cast<uint32_t>(mod_.symbols.size());
  mod_.symbols.push_back(std::move(s));
  fn_sym_[function] = idx;
  return idx;
}

void Parser::parseVariable(Space space, bool is_extern, bool is_visible, FnCtx* fn, bool is_weak) {
  Decl d = parseDeclarator(space, true, false);
  for (;;) {
    if (d.type == Type::Pred) fail(d.loc, "a variable cannot be a predicate");
    Symbol s = symbolFrom(d);
    s.is_extern = is_extern;
    s.is_visible = is_visible;
    s.is_weak = is_weak;
    s.is_managed = d.managed;
    if (acceptPunct('=')) {
      if (is_extern) fail(peek(), "an extern variable cannot have an initialiser");
      if (space != Space::Global && space != Space::Const) {
        fail(peek(), fmt::format("a .{} variable cannot have an initialiser", spaceName(space)));
      }
      parseInitializer(s, d.type, elemBytes(d) / d.vec);
    }
    const uint32_t idx = addSymbol(std::move(s), fn);
    if (fn != nullptr) func(*fn).locals.push_back(idx);
    if (!acceptPunct(',')) break;
    // Another name with the same specification: `.global .u32 a, b;`
    const Token& n = expectIdent("a name");
    d.name = n.text;
    d.loc = locOf(n);
    d.count = 1;
    d.unsized = false;
    while (peek().punct('[')) {
      next();
      if (acceptPunct(']')) { d.unsized = true; d.count = 0; continue; }
      const Token& at = peek();
      const uint64_t c = expectUInt("an array size");
      d.count *= c;
      if (c > kMaxInitBytes || d.count > kMaxInitBytes) fail(at, "array too large");
      expectPunct(']', "after an array size");
    }
  }
  expectPunct(';', "after a variable declaration");
}

void Parser::parseInitializer(Symbol& sym, Type type, uint64_t elem) {
  const bool sized = sym.count != 0;
  if (sized && sym.size > kMaxInitBytes) fail(sym.loc, "initialised variable too large");
  if (sized) sym.init.assign(sym.size, 0);
  uint64_t off = 0;
  auto put = [&](const Token& at, uint64_t bits) {
    if (sized && off + elem > sym.size) fail(at, fmt::format("too many initialisers for '{}'", sym.name));
    if (!sized) {
      if (off + elem > kMaxInitBytes) fail(at, "initialiser too large");
      sym.init.resize(off + elem, 0);
    }
    for (uint64_t b = 0; b < elem && b < 8; ++b) sym.init[off + b] = static_cast<uint8_t>(bits >> (8 * b));
    off += elem;
  };
  auto scalar = [&]() {
    const Token& t = next();
    if (t.kind == Tok::Int) {
      uint64_t bits = static_cast<uint64_t>(t.ival);
      if (type == Type::F32) {
        const float f = static_cast<float>(t.ival);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        bits = u;
      } else if (type == Type::F64) {
        const double f = static_cast<double>(t.ival);
        std::memcpy(&bits, &f, 8);
      }
      return put(t, bits);
    }
    if (t.kind == Tok::Float) {
      return put(t, static_cast<uint64_t>(parseImmediate(t, type).imm));
    }
    if (t.kind == Tok::Ident) {
      const Token* name = &t;
      bool generic = false;
      if (t.text == "generic" && peek().punct('(')) {
        next();
        name = &expectIdent("a variable name in generic()");
        expectPunct(')', "after generic(name");
        generic = true;
      }
      uint32_t target = kNoSym;
      auto g = mod_.global_symbols.find(name->text);
      if (g != mod_.global_symbols.end()) {
        target = g->second;
      } else {
        auto f = mod_.function_index.find(name->text);
        if (f == mod_.function_index.end() || generic) {
          fail(*name, fmt::format("undeclared symbol '{}'", name->text));
        }
        target = functionSymbol(f->second);
      }
      uint64_t add = 0;
      if (acceptPunct('+')) {
        if (peek().kind != Tok::Int) fail(peek(), fmt::format("expected an offset after '+', found {}", describe(peek())));
        add = static_cast<uint64_t>(next().ival);
      }
      // The symbol's address is added to the bytes already there (the
      // `sym+4` offset, normally 0).
      sym.init_addrs.emplace_back(off, target);
      return put(*name, add);
    }
    fail(t, fmt::format("unexpected {} in an initialiser", describe(t)));
  };
  // Nested braces (`{{1, 2}, {3, 4}}`) flatten in row-major order.
  int depth = 0;
  for (;;) {
    if (acceptPunct('{')) {
      ++depth;
      continue;
    }
    if (depth > 0 && peek().punct('}')) {
      next();
      --depth;
    } else {
      scalar();
    }
    while (depth > 0 && peek().punct('}')) {
      next();
      --depth;
    }
    if (depth == 0) break;
    expectPunct(',', "between initialisers");
  }
  if (!sized) {
    sym.count = elem ? off / elem : 0;
    sym.size = off;
  }
}

}  // namespace detail

Module parseString(const std::string& text, const std::string& file_name) {
  return detail::Parser(lex(text, file_name), file_name).run();
}

Module parseFile(const std::filesystem::path& path) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || !std::filesystem::is_regular_file(path, ec)) {
    throw Error(fmt::format("{}: cannot open PTX file", path.string()));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return detail::Parser(lex(ss.str(), path.string()), path.string()).run(true);
}

}  // namespace rfsim::ptx
