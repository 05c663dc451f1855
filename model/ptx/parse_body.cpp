// Function headers and bodies: parameters, register declarations, labels
// and basic blocks, call prototypes. Instructions are in parse_instr.cpp.
#include <iostream>

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/instr_table.h"
#include "ptx/parser_impl.h"

namespace rfsim::ptx::detail {

void Parser::parsePerfDirectives(Function& f) {
  for (;;) {
    const Token& t = peek();
    if (t.kind != Tok::Directive) return;
    auto dims = [&](uint32_t* out) {
      next();
      out[0] = static_cast<uint32_t>(expectUInt("a thread count"));
      for (int k = 1; k < 3 && acceptPunct(','); ++k) out[k] = static_cast<uint32_t>(expectUInt("a thread count"));
      for (int k = 1; k < 3; ++k) if (out[k] == 0) out[k] = 1;
    };
    if (t.text == ".maxntid") dims(f.maxntid);
    else if (t.text == ".reqntid") dims(f.reqntid);
    else if (t.text == ".minnctapersm") { next(); f.minnctapersm = static_cast<uint32_t>(expectUInt("a CTA count")); }
    else if (t.text == ".maxnreg") {
      next();
      const Token& at = peek();
      const uint64_t n = expectUInt("a register count");
      // ptxas: "Too many maxnreg specified for entry k, will be ignored"
      // (exit 0), beyond the 255 registers a thread can address.
      if (n > 255)
        std::cerr << fmt::format("rfsim: warning: {}: .maxnreg {} of {} is more than the 255 registers a thread can "
                                 "have: ignored, as ptxas does\n",
                                 where(locOf(at)), n, f.name);
      f.maxnreg = n > 255 ? 0 : static_cast<uint32_t>(n);
    }
    else if (t.text == ".maxnctapersm") { next(); expectUInt("a CTA count"); }
    else if (t.text == ".noreturn") { next(); f.noreturn = true; }
    else if (t.text == ".pragma") {
      next();
      if (peek().kind != Tok::String) fail(peek(), "expected a string after .pragma");
      f.pragmas.push_back(next().text);
      expectPunct(';', "after .pragma");
    } else if (t.text == ".explicitcluster") next();
    else if (t.text == ".reqnctapercluster" || t.text == ".maxclusterrank") {
      uint32_t ignored[3] = {0, 0, 0};
      dims(ignored);
    } else return;
  }
}

void Parser::parseFunction(bool is_entry, bool is_extern, bool is_visible, bool is_weak) {
  next();  // .entry / .func
  if (peek().is(Tok::Directive, ".attribute")) {
    next();
    expectPunct('(', "after .attribute");
    while (!peek().punct(')') && peek().kind != Tok::End) next();
    expectPunct(')', "closing .attribute");
  }
  std::vector<Decl> rets, params;
  if (!is_entry && peek().punct('(')) parseParamList(rets, false);
  const Token& name = expectIdent("a function name");
  if (name.text.find('.') != std::string::npos || name.text[0] == '%') {
    fail(name, fmt::format("bad function name '{}'", name.text));
  }
  if (peek().punct('(')) parseParamList(params, false);
  Function hdr;
  hdr.name = name.text;  // for the directives' messages
  parsePerfDirectives(hdr);
  const bool has_body = peek().punct('{');
  if (!has_body) expectPunct(';', "or '{' after a function header");

  uint32_t fidx;
  auto it = mod_.function_index.find(name.text);
  if (mod_.global_symbols.count(name.text)) fail(name, fmt::format("duplicate definition of '{}' (a variable)", name.text));
  if (it != mod_.function_index.end()) {
    fidx = it->second;
    Function& f = mod_.functions[fidx];
    if (has_body && fn_defined_[fidx]) {
      fail(name, fmt::format("duplicate definition of function '{}' (first at {}:{})", name.text, f.loc.line, f.loc.col));
    }
    if (f.params.size() != params.size() || f.rets.size() != rets.size() || f.is_entry != is_entry) {
      fail(name, fmt::format("declaration of '{}' conflicts with the one at {}:{}", name.text, f.loc.line, f.loc.col));
    }
    // The definition's parameter names are the ones its body uses.
    auto update = [&](std::vector<uint32_t>& syms, const std::vector<Decl>& decls) {
      for (size_t i = 0; i < decls.size(); ++i) {
        Symbol s = symbolFrom(decls[i]);
        s.owner = static_cast<int32_t>(fidx);
        mod_.symbols[syms[i]] = std::move(s);
      }
    };
    if (has_body) {
      update(f.params, params);
      update(f.rets, rets);
      f.loc = locOf(name);
    }
  } else {
    fidx = static_cast<uint32_t>(mod_.functions.size());
    Function f;
    f.name = name.text;
    f.is_entry = is_entry;
    f.loc = locOf(name);
    auto add = [&](std::vector<uint32_t>& syms, const std::vector<Decl>& decls) {
      std::unordered_set<std::string> seen;
      for (const Decl& d : decls) {
        if (d.name != "_" && !seen.insert(d.name).second) fail(d.loc, fmt::format("duplicate definition of parameter '{}'", d.name));
        Symbol s = symbolFrom(d);
        s.owner = static_cast<int32_t>(fidx);
        syms.push_back(static_cast<uint32_t>(mod_.symbols.size()));
        mod_.symbols.push_back(std::move(s));
      }
    };
    add(f.params, params);
    add(f.rets, rets);
    mod_.functions.push_back(std::move(f));
    mod_.function_index.emplace(name.text, fidx);
    fn_sym_.push_back(kNoSym);
    fn_defined_.push_back(false);
  }
  {
    Function& f = mod_.functions[fidx];
    f.is_extern = f.is_extern || is_extern;
    f.is_visible = f.is_visible || is_visible || is_weak;
    f.is_weak = f.is_weak || is_weak;
    f.noreturn = f.noreturn || hdr.noreturn;
    for (int k = 0; k < 3; ++k) {
      if (hdr.maxntid[k]) f.maxntid[k] = hdr.maxntid[k];
      if (hdr.reqntid[k]) f.reqntid[k] = hdr.reqntid[k];
    }
    if (hdr.minnctapersm) f.minnctapersm = hdr.minnctapersm;
    if (hdr.maxnreg) f.maxnreg = hdr.maxnreg;
    for (auto& p : hdr.pragmas) f.pragmas.push_back(p);
  }
  if (!has_body) return;
  if (is_extern) fail(peek(), fmt::format("extern function '{}' cannot have a body", name.text));
  fn_defined_[fidx] = true;
  mod_.functions[fidx].is_extern = false;
  FnCtx fn;
  fn.index = fidx;
  fn.sym_scopes.emplace_back();
  fn.reg_scopes.emplace_back();
  const Function& f = mod_.functions[fidx];
  for (uint32_t s : f.params) {
    fn.sym_scopes.back().emplace(mod_.symbols[s].name, s);
    fn.sym_names.insert(mod_.symbols[s].name);
  }
  for (uint32_t s : f.rets) {
    fn.sym_scopes.back().emplace(mod_.symbols[s].name, s);
    fn.sym_names.insert(mod_.symbols[s].name);
  }
  parseBody(fn);
}

BasicBlock& Parser::currentBlock(FnCtx& fn) {
  Function& f = func(fn);
  if (f.blocks.empty() || fn.start_block) {
    f.blocks.emplace_back();
    fn.start_block = false;
  }
  return f.blocks.back();
}

void Parser::defineLabel(FnCtx& fn, const Token& label) {
  if (fn.labels.count(label.text) || fn.prototypes.count(label.text) || fn.calltargets.count(label.text)) {
    fail(label, fmt::format("duplicate definition of label '{}'", label.text));
  }
  Function& f = func(fn);
  if (f.blocks.empty() || !f.blocks.back().instrs.empty() || !f.blocks.back().label.empty() || fn.start_block) {
    f.blocks.emplace_back();
  }
  fn.start_block = false;
  f.blocks.back().label = label.text;
  fn.labels.emplace(label.text, static_cast<uint32_t>(f.blocks.size() - 1));
}

uint32_t Parser::declareReg(FnCtx& fn, const std::string& name, Type type, const Token& at) {
  auto& scope = fn.reg_scopes.back();
  if (scope.count(name)) fail(at, fmt::format("duplicate definition of register '{}'", name));
  Function& f = func(fn);
  if (f.regs.size() >= kMaxRegs) fail(at, fmt::format("too many registers in '{}'", f.name));
  const auto id = static_cast<uint32_t>(f.regs.size());
  f.regs.push_back({uniqueName(fn.reg_names, name), type});
  scope.emplace(name, id);
  return id;
}

void Parser::parseRegDecl(FnCtx& fn) {
  next();  // .reg
  Type type = Type::None;
  while (peek().kind == Tok::Directive) {
    const Token& t = next();
    const std::string w = t.text.substr(1);
    if (w == "v2" || w == "v4") fail(t, "vector registers are not supported");
    if (w == "align") { expectUInt("an alignment"); continue; }
    const Type ty = typeFromWord(w);
    if (ty == Type::None || type != Type::None) fail(t, fmt::format("unexpected '{}' in a register declaration", t.text));
    type = ty;
  }
  if (type == Type::None) fail(peek(), fmt::format("expected a register type, found {}", describe(peek())));
  for (;;) {
    const Token& name = expectIdent("a register name");
    if (name.text.find('.') != std::string::npos) fail(name, fmt::format("bad register name '{}'", name.text));
    if (acceptPunct('<')) {
      const Token& at = peek();
      const uint64_t n = expectUInt("a register count");
      if (n > kMaxRegRange) fail(at, "register range too large");
      expectPunct('>', "after a register count");
      for (uint64_t i = 0; i < n; ++i) declareReg(fn, name.text + std::to_string(i), type, name);
    } else {
      declareReg(fn, name.text, type, name);
    }
    if (!acceptPunct(',')) break;
  }
  expectPunct(';', "after a register declaration");
}

void Parser::parsePrototype(FnCtx& fn, const Token& label) {
  next();  // .callprototype
  Prototype p;
  p.label = label.text;
  std::vector<Decl> rets, params;
  if (peek().punct('(')) parseParamList(rets, true);
  const Token& us = expectIdent("'_' in a .callprototype");
  if (us.text != "_") fail(us, "expected '_' in a .callprototype");
  if (peek().punct('(')) parseParamList(params, true);
  while (acceptDirective(".noreturn")) {
  }
  expectPunct(';', "after a .callprototype");
  for (const Decl& d : params) {
    p.params.push_back(d.type);
    p.param_sizes.push_back(d.count * elemBytes(d));
  }
  for (const Decl& d : rets) {
    p.rets.push_back(d.type);
    p.ret_sizes.push_back(d.count * elemBytes(d));
  }
  if (fn.labels.count(label.text) || fn.prototypes.count(label.text) || fn.calltargets.count(label.text)) {
    fail(label, fmt::format("duplicate definition of label '{}'", label.text));
  }
  fn.prototypes.emplace(label.text, static_cast<uint32_t>(mod_.prototypes.size()));
  mod_.prototypes.push_back(std::move(p));
}

void Parser::parseCalltargets(FnCtx& fn, const Token& label) {
  next();  // .calltargets
  std::vector<uint32_t> targets;
  for (;;) {
    const Token& t = expectIdent("a function name");
    auto it = mod_.function_index.find(t.text);
    if (it == mod_.function_index.end()) fail(t, fmt::format("undeclared function '{}'", t.text));
    targets.push_back(it->second);
    if (!acceptPunct(',')) break;
  }
  expectPunct(';', "after .calltargets");
  if (fn.labels.count(label.text) || fn.prototypes.count(label.text) || fn.calltargets.count(label.text)) {
    fail(label, fmt::format("duplicate definition of label '{}'", label.text));
  }
  fn.calltargets.emplace(label.text, std::move(targets));
}

void Parser::parseBody(FnCtx& fn) {
  std::vector<SrcLoc> opens{locOf(next())};  // '{'
  currentBlock(fn);  // blocks[0], the entry
  for (;;) {
    const Token& t = peek();
    if (t.kind == Tok::End) {
      fail(t, fmt::format("unterminated block: the '{{' at {}:{} is never closed", opens.back().line, opens.back().col));
    }
    if (t.punct('}')) {
      next();
      opens.pop_back();
      fn.reg_scopes.pop_back();
      fn.sym_scopes.pop_back();
      if (opens.empty()) break;
      continue;
    }
    if (t.punct('{')) {
      opens.push_back(locOf(next()));
      fn.reg_scopes.emplace_back();
      fn.sym_scopes.emplace_back();
      continue;
    }
    if (t.punct(';')) {
      next();
      continue;
    }
    if (t.kind == Tok::Directive) {
      const std::string& d = t.text;
      if (d == ".reg") {
        parseRegDecl(fn);
      } else if (d == ".local" || d == ".shared" || d == ".param" || d == ".const" || d == ".global") {
        next();
        const Space sp = d == ".local" ? Space::Local : d == ".shared" ? Space::Shared
                       : d == ".param" ? Space::Param : d == ".const" ? Space::Const : Space::Global;
        parseVariable(sp, false, false, &fn);
      } else if (d == ".pragma") {
        next();
        if (peek().kind != Tok::String) fail(peek(), "expected a string after .pragma");
        const std::string text = next().text;
        if (text == "nounroll") currentBlock(fn).nounroll = true;  // the lexer drops the quotes
        func(fn).pragmas.push_back(text);
        expectPunct(';', "after .pragma");
      } else if (d == ".loc" || d == ".file") {
        skipRestOfLine(t);
      } else {
        fail(t, fmt::format("unsupported directive '{}' in a function body", d));
      }
      continue;
    }
    if (t.kind == Tok::Ident && peek(1).punct(':')) {
      const Token& label = next();
      next();  // ':'
      if (peek().is(Tok::Directive, ".callprototype")) {
        parsePrototype(fn, label);
      } else if (peek().is(Tok::Directive, ".calltargets")) {
        parseCalltargets(fn, label);
      } else if (peek().is(Tok::Directive, ".branchtargets")) {
        fail(peek(), "unsupported directive '.branchtargets' (brx.idx is not supported)");
      } else {
        if (label.text.find('.') != std::string::npos || label.text[0] == '%') {
          fail(label, fmt::format("bad label '{}'", label.text));
        }
        defineLabel(fn, label);
      }
      continue;
    }
    if (t.kind == Tok::Ident || t.punct('@')) {
      parseInstruction(fn);
      continue;
    }
    fail(t, fmt::format("unexpected {} in a function body", describe(t)));
  }
  resolveFixups(fn);
}

void Parser::resolveFixups(FnCtx& fn) {
  Function& f = func(fn);
  for (const auto& fx : fn.fixups) {
    auto it = fn.labels.find(fx.label);
    if (it == fn.labels.end()) fail(fx.loc, fmt::format("missing label '{}'", fx.label));
    Instr& in = f.blocks[fx.block].instrs[fx.instr];
    (fx.dst ? in.dst[fx.slot] : in.src[fx.slot]).block = it->second;
  }
  for (const auto& cf : fn.call_fixups) {
    auto it = fn.calltargets.find(cf.label);
    if (it == fn.calltargets.end()) fail(cf.loc, fmt::format("undeclared prototype or .calltargets '{}'", cf.label));
    f.calls[cf.call].targets = it->second;
  }
}

}  // namespace rfsim::ptx::detail
