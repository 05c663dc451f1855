// Instructions: guard, opcode (decoded by instr_table.cpp), operands with
// PTX's type-checking rules, call sequences, and block splitting.
#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/instr_table.h"
#include "ptx/parser_impl.h"

namespace rfsim::ptx::detail {

namespace {

struct SRegName {
  SReg sreg;
  bool has_dims;
};

const std::unordered_map<std::string, SRegName>& sregs() {
  static const std::unordered_map<std::string, SRegName> m = {
      {"%tid", {SReg::Tid, true}},          {"%ntid", {SReg::Ntid, true}},
      {"%ctaid", {SReg::Ctaid, true}},      {"%nctaid", {SReg::Nctaid, true}},
      {"%laneid", {SReg::Laneid, false}},   {"%warpid", {SReg::Warpid, false}},
      {"%nwarpid", {SReg::Nwarpid, false}}, {"%smid", {SReg::Smid, false}},
      {"%nsmid", {SReg::Nsmid, false}},     {"%gridid", {SReg::Gridid, false}},
      {"%clock", {SReg::Clock, false}},     {"%clock64", {SReg::Clock64, false}},
      {"%lanemask_eq", {SReg::LanemaskEq, false}}, {"%lanemask_le", {SReg::LanemaskLe, false}},
      {"%lanemask_lt", {SReg::LanemaskLt, false}}, {"%lanemask_ge", {SReg::LanemaskGe, false}},
      {"%lanemask_gt", {SReg::LanemaskGt, false}},
      {"%dynamic_smem_size", {SReg::DynamicSmemSize, false}},
      {"%total_smem_size", {SReg::TotalSmemSize, false}},
      {"%globaltimer", {SReg::GlobalTimer, false}},
  };
  return m;
}

// Special register `name` -> operand; false if it is not one.
bool specialRegister(const std::string& name, Operand& op) {
  if (name.size() < 2 || name[0] != '%') return false;
  const size_t dot = name.find('.');
  const std::string base = name.substr(0, dot);
  if (base.rfind("%envreg", 0) == 0 && dot == std::string::npos && base.size() > 7) {
    const std::string num = base.substr(7);
    if (num.size() > 2 || num.find_first_not_of("0123456789") != std::string::npos) return false;
    const int n = std::stoi(num);
    if (n > 31) return false;
    op.kind = OperandKind::SReg;
    op.sreg = SReg::Envreg;
    op.dim = static_cast<uint8_t>(n);
    return true;
  }
  auto it = sregs().find(base);
  if (it == sregs().end()) return false;
  op.kind = OperandKind::SReg;
  op.sreg = it->second.sreg;
  if (it->second.has_dims) {
    const std::string d = dot == std::string::npos ? "" : name.substr(dot + 1);
    if (d != "x" && d != "y" && d != "z") return false;
    op.dim = static_cast<uint8_t>(d[0] - 'x');
  } else if (dot != std::string::npos) {
    return false;
  }
  return true;
}

uint32_t floatBits(double d) {
  const float f = static_cast<float>(d);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

uint64_t doubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

bool endsBlock(Op op) { return op == Op::Bra || op == Op::Ret || op == Op::Exit || op == Op::Trap; }

bool isAddressReg(Type t) { return t != Type::Pred && !isFloat(t) && (typeBits(t) == 32 || typeBits(t) == 64); }

}  // namespace

const uint32_t* Parser::findReg(FnCtx& fn, const std::string& name) const {
  for (auto it = fn.reg_scopes.rbegin(); it != fn.reg_scopes.rend(); ++it) {
    auto r = it->find(name);
    if (r != it->end()) return &r->second;
  }
  return nullptr;
}

uint32_t Parser::findSymbol(FnCtx& fn, const std::string& name) const {
  for (auto it = fn.sym_scopes.rbegin(); it != fn.sym_scopes.rend(); ++it) {
    auto s = it->find(name);
    if (s != it->end()) return s->second;
  }
  auto g = mod_.global_symbols.find(name);
  return g == mod_.global_symbols.end() ? kNoSym : g->second;
}

Operand Parser::parseImmediate(const Token& t, Type want) {
  Operand op;
  op.kind = OperandKind::Imm;
  if (t.kind == Tok::Int) {
    op.imm = t.ival;
    // An integer written where a float goes means its value (`mov.f32 %f1, 0`).
    if (want == Type::F32) op.imm = floatBits(static_cast<double>(t.ival));
    else if (want == Type::F64) op.imm = static_cast<int64_t>(doubleBits(static_cast<double>(t.ival)));
    return op;
  }
  // Float literals: 0f/0d are IEEE bits, taken as written by .b/.u/.s and
  // same-width float instructions; converted when the width differs.
  const size_t d = t.text[0] == '-' ? 1 : 0;
  const bool hex = t.text.size() > d + 1 && t.text[d] == '0' && std::strchr("fFdD", t.text[d + 1]) != nullptr;
  double value;
  if (t.fwidth == 32) {
    float f;
    const auto u = static_cast<uint32_t>(t.fbits);
    std::memcpy(&f, &u, 4);
    value = f;
  } else {
    std::memcpy(&value, &t.fbits, 8);
  }
  if (want == Type::F32) {
    op.imm = t.fwidth == 32 ? static_cast<int64_t>(t.fbits) : floatBits(value);
  } else if (want == Type::F64) {
    op.imm = static_cast<int64_t>(t.fwidth == 64 ? t.fbits : doubleBits(value));
  } else if (hex) {
    op.imm = static_cast<int64_t>(t.fbits);
  } else {
    fail(t, fmt::format("floating-point literal '{}' where a .{} value is expected", t.text, typeName(want)));
  }
  return op;
}

void Parser::checkReg(FnCtx& fn, uint32_t reg, Type want, bool relaxed, const Token& at,
                      const std::string& opcode) {
  const RegInfo& r = func(fn).regs[reg];
  if (!typeCompatible(want, r.type, relaxed)) {
    fail(at, fmt::format("operand type mismatch: '{}' is .{} but '{}' needs .{} here", at.text,
                         typeName(r.type), opcode, typeName(want)));
  }
}

Operand Parser::parseAddress(FnCtx& fn) {
  const Token& open = next();  // '['
  Operand op;
  op.kind = OperandKind::Addr;
  const Token& b = peek();
  if (b.kind == Tok::Ident) {
    next();
    if (const uint32_t* r = findReg(fn, b.text)) {
      if (!isAddressReg(func(fn).regs[*r].type)) {
        fail(b, fmt::format("operand type mismatch: '{}' is .{}, an address needs a 32- or 64-bit integer",
                            b.text, typeName(func(fn).regs[*r].type)));
      }
      op.regs[0] = *r;
    } else {
      const uint32_t s = findSymbol(fn, b.text);
      if (s == kNoSym) {
        fail(b, std::string(b.text[0] == '%' ? "undeclared register '" : "undeclared symbol '") + b.text + "'");
      }
      op.sym = s;
    }
    // `+8`, `+-4`, or a negative literal written directly (`-4`).
    if (acceptPunct('+')) {
      const Token& n = peek();
      if (n.kind != Tok::Int) fail(n, fmt::format("expected an offset after '+', found '{}'", n.text));
      op.imm = next().ival;
    } else if (peek().kind == Tok::Int && peek().ival < 0) {
      op.imm = next().ival;
    }
  } else if (b.kind == Tok::Int) {
    op.imm = next().ival;  // an absolute address
  } else {
    fail(b, fmt::format("expected a register, symbol or address in '[', found '{}'", b.text));
  }
  if (!peek().punct(']')) {
    fail(peek(), fmt::format("expected ']' to close the address opened at {}:{}, found '{}'", open.line,
                             open.col, peek().text));
  }
  next();
  return op;
}

Operand Parser::parseOperand(FnCtx& fn, Instr& in, bool is_dst, unsigned index) {
  const Slot slot = operandSlot(in, is_dst, index);
  const std::string& opcode = op_text_;
  const Token& t = peek();
  if (slot.address && !t.punct('[')) {
    fail(t, fmt::format("expected an address operand '[...]' for '{}', found '{}'", opcode, t.text));
  }
  if (t.punct('[')) {
    if (!slot.address) fail(t, fmt::format("unexpected address operand for '{}'", opcode));
    return parseAddress(fn);
  }
  if (t.punct('{')) {
    next();
    const bool is_mov = in.op == Op::Mov;
    if (!is_mov && in.op != Op::Ld && in.op != Op::Ldu && in.op != Op::St) {
      fail(t, fmt::format("unexpected vector operand for '{}'", opcode));
    }
    Operand op;
    op.kind = OperandKind::Vec;
    std::vector<const Token*> elems;
    for (;;) {
      const Token& e = peek();
      if (e.kind != Tok::Ident && (is_dst || (e.kind != Tok::Int && e.kind != Tok::Float))) {
        fail(e, fmt::format("expected a register in a vector operand, found {}", describe(e)));
      }
      next();
      elems.push_back(&e);
      if (elems.size() > 4) fail(e, "a vector operand has at most 4 elements");
      if (acceptPunct('}')) break;
      expectPunct(',', "between vector elements");
    }
    const unsigned n = static_cast<unsigned>(elems.size());
    if (is_mov) {
      if ((n != 2 && n != 4) || isFloat(in.type) || typeBits(in.type) / n < 8) {
        fail(t, fmt::format("a vector operand of '{}' must have 2 or 4 elements splitting a .b type", opcode));
      }
    } else if (n != in.mods.vec) {
      fail(t, fmt::format("vector operand has {} elements, '{}' needs {}", n, opcode, unsigned{in.mods.vec}));
    }
    Type elem_want = slot.type;
    if (is_mov) {
      switch (typeBits(in.type) / n) {
        case 8: elem_want = Type::B8; break;
        case 16: elem_want = Type::B16; break;
        case 32: elem_want = Type::B32; break;
        default: elem_want = Type::B64; break;
      }
    }
    op.vec_n = static_cast<uint8_t>(n);
    for (unsigned i = 0; i < n; ++i) {
      const Token& e = *elems[i];
      if (e.kind != Tok::Ident) {
        // An immediate element (`{0, %rs1}` in cuda_bf16.h's inline asm,
        // `st.param.v4.b32 [param0+0], {%r1, 2, 3, 4}` in nvcc's call
        // sequences): regs[i] stays kNoReg, the value sits in imm_hi:imm at
        // the element's bits.
        const unsigned w = typeBits(elem_want);
        const auto v = static_cast<uint64_t>(parseImmediate(e, elem_want).imm);
        if (!setVecImm(op, i, w, v)) fail(e, "immediate vector elements beyond the first 128 bits must be 0");
        continue;
      }
      if (e.text == "_") {  // sink
        if (!is_dst) fail(e, "the sink '_' can only be a destination");
        continue;
      }
      const uint32_t* r = findReg(fn, e.text);
      if (r == nullptr) fail(e, fmt::format("undeclared register '{}'", e.text));
      checkReg(fn, *r, elem_want, slot.relaxed || is_mov, e, opcode);
      if (is_mov && typeBits(func(fn).regs[*r].type) != typeBits(elem_want)) {
        fail(e, fmt::format("operand type mismatch: '{}' is .{} but '{}' needs .{} here", e.text,
                            typeName(func(fn).regs[*r].type), opcode, typeName(elem_want)));
      }
      op.regs[i] = *r;
    }
    return op;
  }
  if (t.kind == Tok::Int || t.kind == Tok::Float) {
    if (is_dst) fail(t, fmt::format("destination of '{}' must be a register, found '{}'", opcode, t.text));
    if (slot.label) fail(t, fmt::format("expected a label for '{}', found '{}'", opcode, t.text));
    next();
    return parseImmediate(t, slot.type);
  }
  bool negate = false;
  if (t.punct('!')) {
    if (is_dst) fail(t, fmt::format("destination of '{}' cannot be negated", opcode));
    next();
    negate = true;
  }
  const Token& id = peek();
  if (id.kind != Tok::Ident) fail(id, fmt::format("expected an operand for '{}', found {}", opcode, id.kind == Tok::End ? std::string("end of file") : "'" + id.text + "'"));
  next();
  Operand op;
  if (slot.label) {
    if (negate) fail(t, "a label cannot be negated");
    op.kind = OperandKind::Label;
    auto it = fn.labels.find(id.text);
    if (it != fn.labels.end()) {
      op.block = it->second;
    } else {
      // Resolved once the function's labels are all known.
      fn.fixups.push_back({0, 0, is_dst, static_cast<uint8_t>(index), id.text, locOf(id)});
    }
    return op;
  }
  if (id.text == "_") {
    if (!is_dst) fail(id, "the sink '_' can only be a destination");
    op.kind = OperandKind::Reg;
    return op;
  }
  if (const uint32_t* r = findReg(fn, id.text)) {
    checkReg(fn, *r, slot.type, slot.relaxed, id, opcode);
    if (negate && func(fn).regs[*r].type != Type::Pred) fail(t, fmt::format("only a predicate can be negated, '{}' is not one", id.text));
    op.kind = OperandKind::Reg;
    op.regs[0] = *r;
    op.negate = negate;
    return op;
  }
  if (negate) fail(id, fmt::format("undeclared register '{}'", id.text));
  if (specialRegister(id.text, op)) {
    if (is_dst) fail(id, fmt::format("special register '{}' cannot be a destination", id.text));
    return op;
  }
  const uint32_t s = findSymbol(fn, id.text);
  if (s != kNoSym || mod_.function_index.count(id.text)) {
    if (is_dst) fail(id, fmt::format("destination of '{}' must be a register, found '{}'", opcode, id.text));
    if (slot.type == Type::Pred) fail(id, fmt::format("operand type mismatch: '{}' is a symbol but '{}' needs a predicate", id.text, opcode));
    op.kind = OperandKind::Sym;
    op.sym = s != kNoSym ? s : functionSymbol(mod_.function_index.at(id.text));
    return op;
  }
  if (id.text[0] == '%') {
    if (id.text.find('.') != std::string::npos || sregs().count(id.text)) {
      fail(id, fmt::format("unsupported special register '{}'", id.text));
    }
    fail(id, fmt::format("undeclared register '{}'", id.text));
  }
  fail(id, fmt::format("undeclared symbol '{}'", id.text));
}

uint32_t Parser::resolveParamSym(FnCtx& fn, const Token& t) {
  if (t.kind != Tok::Ident) fail(t, fmt::format("expected a .param name in a call, found '{}'", t.text));
  const uint32_t s = findSymbol(fn, t.text);
  if (s == kNoSym) fail(t, fmt::format("undeclared symbol '{}'", t.text));
  if (mod_.symbols[s].space != Space::Param) {
    fail(t, fmt::format("call operand '{}' must be a .param variable", t.text));
  }
  return s;
}

void Parser::parseCall(FnCtx& fn, Instr& in, const Token& op_tok) {
  CallInfo ci;
  auto list = [&](std::vector<uint32_t>& out) {
    next();  // '('
    if (acceptPunct(')')) return;
    for (;;) {
      out.push_back(resolveParamSym(fn, next()));
      if (acceptPunct(')')) return;
      expectPunct(',', "between call operands");
    }
  };
  if (peek().punct('(')) {
    list(ci.rets);
    expectPunct(',', "after the call's return list");
  }
  const Token& target = expectIdent("a function or register to call");
  in.nsrc = 1;
  auto fit = mod_.function_index.find(target.text);
  if (const uint32_t* r = findReg(fn, target.text)) {
    if (!isAddressReg(func(fn).regs[*r].type)) {
      fail(target, fmt::format("operand type mismatch: '{}' is .{}, an indirect call needs a 64-bit address",
                               target.text, typeName(func(fn).regs[*r].type)));
    }
    ci.indirect = true;
    ci.target_reg = *r;
    in.src[0].kind = OperandKind::Reg;
    in.src[0].regs[0] = *r;
  } else if (fit != mod_.function_index.end()) {
    ci.callee = fit->second;
    in.src[0].kind = OperandKind::Sym;
    in.src[0].sym = functionSymbol(fit->second);
  } else {
    fail(target, std::string(target.text[0] == '%' ? "undeclared register '" : "undeclared function '") + target.text + "'");
  }
  bool pending_targets = false;
  if (acceptPunct(',')) {
    if (peek().punct('(')) {
      list(ci.args);
      if (acceptPunct(',')) {
        const Token& p = expectIdent("a prototype or .calltargets label");
        auto pit = fn.prototypes.find(p.text);
        if (pit != fn.prototypes.end()) {
          ci.prototype = pit->second;
        } else {
          auto cit = fn.calltargets.find(p.text);
          if (cit != fn.calltargets.end()) ci.targets = cit->second;
          else {
            fn.call_fixups.push_back({static_cast<uint32_t>(func(fn).calls.size()), p.text, locOf(p)});
            pending_targets = true;
          }
        }
        if (!ci.indirect) fail(p, "a direct call takes no prototype");
      }
    } else {
      fail(peek(), fmt::format("expected '(' with the call's arguments, found '{}'", peek().text));
    }
  }
  if (ci.indirect && ci.prototype == kNoSym && ci.targets.empty() && !pending_targets) {
    fail(target, "an indirect call needs a .callprototype or .calltargets label");
  }
  // Argument and return counts against the callee or the prototype.
  size_t want_args = 0, want_rets = 0;
  std::string callee;
  if (!ci.indirect) {
    const Function& f = mod_.functions[ci.callee];
    want_args = f.params.size();
    want_rets = f.rets.size();
    callee = "'" + f.name + "'";
  } else if (ci.prototype != kNoSym) {
    want_args = mod_.prototypes[ci.prototype].params.size();
    want_rets = mod_.prototypes[ci.prototype].rets.size();
    callee = "prototype '" + mod_.prototypes[ci.prototype].label + "'";
  }
  if (!callee.empty() && (ci.args.size() != want_args || ci.rets.size() != want_rets)) {
    fail(op_tok, fmt::format("wrong operand count: {} takes {} argument(s) and {} return value(s), the call passes {} and {}",
                             callee, want_args, want_rets, ci.args.size(), ci.rets.size()));
  }
  in.call = static_cast<uint32_t>(func(fn).calls.size());
  func(fn).calls.push_back(std::move(ci));
}

void Parser::parseInstruction(FnCtx& fn) {
  const Token& first = peek();
  const size_t fixups_before = fn.fixups.size();
  Operand guard;
  if (acceptPunct('@')) {
    const bool neg = acceptPunct('!');
    const Token& p = expectIdent("a predicate register after '@'");
    const uint32_t* r = findReg(fn, p.text);
    if (r == nullptr) fail(p, fmt::format("undeclared register '{}'", p.text));
    if (func(fn).regs[*r].type != Type::Pred) {
      fail(p, fmt::format("operand type mismatch: guard '{}' is .{}, not .pred", p.text, typeName(func(fn).regs[*r].type)));
    }
    guard.kind = OperandKind::Reg;
    guard.regs[0] = *r;
    guard.negate = neg;
  }
  const Token& op_tok = peek();
  if (op_tok.kind != Tok::Ident) fail(op_tok, fmt::format("expected an instruction, found '{}'", op_tok.text));
  next();
  Instr in;
  std::string why;
  const DecodeStatus st = decodeOpcode(op_tok.text, in, &why);
  if (st != DecodeStatus::Ok) fail(op_tok, why);
  in.guard = guard;
  in.loc = locOf(first);
  op_text_ = op_tok.text;
  if (in.op == Op::Call) {
    parseCall(fn, in, op_tok);
  } else {
    const OperandCounts c = operandCounts(in);
    unsigned nd = 0, ns = 0;
    bool any = false;
    auto tooMany = [&](const Token& at) {
      fail(at, fmt::format("wrong operand count for '{}': expected {}", op_tok.text,
                           c.min_dst + c.min_src == c.max_dst + c.max_src
                               ? fmt::format("{} operand(s)", c.min_dst + c.min_src)
                               : fmt::format("{} to {} operands", c.min_dst + c.min_src, c.max_dst + c.max_src)));
    };
    while (!peek().punct(';')) {
      if (peek().kind == Tok::End || peek().punct('}')) {
        fail(peek(), fmt::format("expected ';' after '{}', found {}", op_tok.text,
                                 peek().kind == Tok::End ? std::string("end of file") : "'" + peek().text + "'"));
      }
      if (any) expectPunct(',', "between operands");
      any = true;
      const Token& at = peek();
      const bool is_dst = nd < c.min_dst || (nd == 0 && c.max_dst > 0);
      if (is_dst) {
        in.dst[nd] = parseOperand(fn, in, true, nd);
        ++nd;
        if (peek().punct('|')) {
          const Token& bar = next();
          if (c.max_dst < 2) fail(bar, fmt::format("'{}' has no second (predicate) destination", op_tok.text));
          const Token& p = expectIdent("a predicate after '|'");
          Operand po;
          po.kind = OperandKind::PredOut;
          if (p.text != "_") {
            const uint32_t* r = findReg(fn, p.text);
            if (r == nullptr) fail(p, fmt::format("undeclared register '{}'", p.text));
            checkReg(fn, *r, Type::Pred, false, p, op_tok.text);
            po.regs[0] = *r;
          }
          in.dst[nd++] = po;
        }
      } else {
        if (ns >= c.max_src || ns >= in.src.size()) tooMany(at);
        in.nsrc = static_cast<uint8_t>(ns + 1);  // operandSlot may look at nsrc
        in.src[ns] = parseOperand(fn, in, false, ns);
        ++ns;
      }
    }
    if (nd < c.min_dst || ns < c.min_src) tooMany(peek());
    in.ndst = static_cast<uint8_t>(nd);
    in.nsrc = static_cast<uint8_t>(ns);
    // bar.red: the last source is the predicate, whatever the count.
    if (in.op == Op::Bar && (in.mods.red_popc || in.mods.boolop != BoolOp::None)) {
      const Operand& last = in.src[ns - 1];
      if (last.kind == OperandKind::Reg && func(fn).regs[last.regs[0]].type != Type::Pred) {
        fail(op_tok, fmt::format("operand type mismatch: the last operand of '{}' must be a predicate", op_tok.text));
      }
    }
  }
  expectPunct(';', "after an instruction");
  BasicBlock& bb = currentBlock(fn);
  for (size_t i = fixups_before; i < fn.fixups.size(); ++i) {
    fn.fixups[i].block = static_cast<uint32_t>(func(fn).blocks.size() - 1);
    fn.fixups[i].instr = static_cast<uint32_t>(bb.instrs.size());
  }
  bb.instrs.push_back(in);
  if (endsBlock(in.op)) fn.start_block = true;
}

}  // namespace rfsim::ptx::detail
