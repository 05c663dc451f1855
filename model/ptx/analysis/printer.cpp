// Module and function layout for printer.h; instructions are spelled in
// printer_instr.cpp.
#include "ptx/analysis/printer.h"

#include <cstring>
#include <fmt/format.h>
#include <map>
#include <set>

#include "ptx/analysis/cfg.h"
#include "ptx/analysis/dominators.h"
#include "ptx/analysis/loops.h"
#include "ptx/analysis/printer_names.h"
#include "ptx/isa_ext.h"
#include "ptx/machine.h"

namespace rfsim::ptx {

namespace printer_detail {

unsigned typeBytes(Type t) {
  switch (t) {
    case Type::None: return 0;
    case Type::Pred: case Type::B8: case Type::U8: case Type::S8: return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16: return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2: case Type::BF16x2: return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
    case Type::B128: return 16;
  }
  return 0;
}

std::string regName(const Function& fn, uint32_t reg) {
  if (reg == kNoReg) return "_";
  if (reg < fn.regs.size() && !fn.regs[reg].name.empty()) return fn.regs[reg].name;
  return fmt::format("%v{}", reg);
}

std::string symName(const Module& m, const FunctionNames& names, uint32_t sym) {
  auto it = names.syms.find(sym);
  if (it != names.syms.end()) return it->second;
  if (sym >= m.symbols.size()) return fmt::format("$S{}", sym);
  const Symbol& s = m.symbols[sym];
  if (s.is_function && s.function < m.functions.size()) return m.functions[s.function].name;
  return s.name;
}

FunctionNames nameFunction(const Module& m, const Function& fn) {
  FunctionNames names;
  std::set<std::string> used;
  for (const auto& bb : fn.blocks)
    if (!bb.label.empty()) used.insert(bb.label);
  auto fresh = [&](const std::string& base) {
    std::string name = base;
    for (unsigned k = 1; used.count(name); ++k) name = fmt::format("{}_{}", base, k);
    used.insert(name);
    return name;
  };
  bool entry_targeted = false;
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs)
      for (unsigned i = 0; i < in.nsrc && i < in.src.size(); ++i)
        if (in.src[i].kind == OperandKind::Label && in.src[i].block == 0) entry_targeted = true;
  names.labels.resize(fn.blocks.size());
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    const std::string& label = fn.blocks[b].label;
    if (!label.empty())
      names.labels[b] = label;
    else if (b > 0 || entry_targeted)
      names.labels[b] = fresh(fmt::format("$BB{}", b));
  }
  // Call sequences declare `.param .b32 param0;` in their own `{ }` scopes;
  // printed at the top of the function, repeated names must differ.
  for (uint32_t s : fn.params) used.insert(m.symbols[s].name);
  for (uint32_t s : fn.rets) used.insert(m.symbols[s].name);
  for (uint32_t s : fn.locals)
    if (s < m.symbols.size()) names.syms[s] = fresh(m.symbols[s].name);
  for (uint32_t c = 0; c < fn.calls.size(); ++c)
    if (fn.calls[c].indirect && !fn.calls[c].targets.empty()) names.calltargets[c] = fresh(fmt::format("$CT{}", c));
  return names;
}

}  // namespace printer_detail

namespace {

using namespace printer_detail;

bool isSignedType(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }

// `.global .align 4 .u32 name[4] = {1, 2, 3, 4}`, without the `;`.
std::string declareSymbol(const Module& m, const Symbol& s, const std::string& name) {
  std::string d;
  if (s.is_extern) d += ".extern ";
  if (s.is_weak) d += ".weak ";
  else if (s.is_visible) d += ".visible ";
  d += fmt::format(".{}", ptxSpaceName(s.space));
  if (s.align) d += fmt::format(" .align {}", s.align);
  d += fmt::format(" .{} {}", ptxTypeName(s.type), name);
  if (s.count == 0)
    d += "[]";
  else if (s.count > 1)
    d += fmt::format("[{}]", s.count);
  if (s.init.empty() && s.init_addrs.empty()) return d;

  const unsigned esize = std::max(1u, typeBytes(s.type));
  std::map<uint64_t, uint32_t> addrs(s.init_addrs.begin(), s.init_addrs.end());
  const uint64_t nbytes = std::max<uint64_t>(s.init.size(), s.count * esize);
  std::vector<std::string> elems;
  for (uint64_t off = 0; off + esize <= nbytes;) {
    auto a = addrs.find(off);
    if (a != addrs.end()) {
      // A 64-bit address: one element of a .u64/.b64 array, eight of a .b8 one.
      const Symbol& t = m.symbols[a->second];
      elems.push_back(t.is_function ? symName(m, {}, a->second) : fmt::format("generic({})", t.name));
      off += std::max<uint64_t>(esize, 8);
      continue;
    }
    uint64_t bits = 0;
    for (unsigned i = 0; i < esize && i < 8; ++i)
      if (off + i < s.init.size()) bits |= uint64_t(s.init[off + i]) << (8 * i);
    if (isSignedType(s.type) && esize < 8 && (bits >> (8 * esize - 1)) & 1) bits |= ~uint64_t(0) << (8 * esize);
    if (s.type == Type::F32 || s.type == Type::F64 || isSignedType(s.type))
      elems.push_back(spellImm(static_cast<int64_t>(bits), s.type));
    else
      elems.push_back(std::to_string(bits));
    off += esize;
  }
  if (s.count == 1 && elems.size() == 1) return d + " = " + elems[0];
  std::string list;
  for (size_t i = 0; i < elems.size(); ++i) list += (i ? ", " : "") + elems[i];
  return d + " = {" + list + "}";
}

std::string prototypeDecl(const Prototype& p) {
  auto one = [](Type t, uint64_t size) {
    const unsigned tb = typeBytes(t);
    if (size > tb && tb > 0) return fmt::format(".param .b8 _[{}]", size);
    return fmt::format(".param .{} _", ptxTypeName(t));
  };
  std::string s = p.label + ": .callprototype ";
  if (!p.rets.empty()) s += "(" + one(p.rets[0], p.ret_sizes.empty() ? 0 : p.ret_sizes[0]) + ") ";
  s += "_ (";
  for (size_t i = 0; i < p.params.size(); ++i)
    s += (i ? ", " : "") + one(p.params[i], i < p.param_sizes.size() ? p.param_sizes[i] : 0);
  return s + ");";
}

std::string header(const Module& m, const Function& fn) {
  std::string s;
  if (fn.is_extern) s += ".extern ";
  if (fn.is_visible) s += ".visible ";
  s += fn.is_entry ? ".entry " : ".func ";
  const FunctionNames none;
  if (!fn.rets.empty()) {
    s += "(";
    for (size_t i = 0; i < fn.rets.size(); ++i) s += (i ? ", " : "") + declareSymbol(m, m.symbols[fn.rets[i]], m.symbols[fn.rets[i]].name);
    s += ") ";
  }
  s += fn.name;
  if (!fn.params.empty()) {
    s += "(\n";
    for (size_t i = 0; i < fn.params.size(); ++i)
      s += "\t" + declareSymbol(m, m.symbols[fn.params[i]], m.symbols[fn.params[i]].name) +
           (i + 1 < fn.params.size() ? ",\n" : "\n");
    s += ")";
  } else {
    s += "()";
  }
  if (fn.noreturn) s += "\n.noreturn";
  auto dims = [&](const char* name, const uint32_t (&v)[3]) {
    if (v[0]) s += fmt::format("\n.{} {}, {}, {}", name, v[0], std::max(v[1], 1u), std::max(v[2], 1u));
  };
  dims("maxntid", fn.maxntid);
  dims("reqntid", fn.reqntid);
  if (fn.minnctapersm) s += fmt::format("\n.minnctapersm {}", fn.minnctapersm);
  if (fn.maxnreg) s += fmt::format("\n.maxnreg {}", fn.maxnreg);
  return s;
}

std::string blockList(const std::vector<uint32_t>& v) {
  if (v.empty()) return "-";
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::string printInstr(const Module& m, const Function& fn, const Instr& in) {
  return spellInstr(m, fn, nameFunction(m, fn), in);
}

std::string printFunction(const Module& m, const Function& fn, const PrintOptions& opt) {
  std::string s = header(m, fn);
  if (fn.blocks.empty()) return s + ";\n";
  const FunctionNames names = nameFunction(m, fn);
  s += "\n{\n";
  for (const auto& p : fn.pragmas) s += fmt::format("\t.pragma \"{}\";\n", p);
  for (size_t r = 0; r < fn.regs.size(); ++r) {
    // A machine function's table holds every extension-register id; only
    // those a class was given are registers.
    if (m.machine && mach::isExtReg(static_cast<uint32_t>(r)) && !extRegClassOf(static_cast<uint32_t>(r))) continue;
    s += fmt::format("\t.reg .{} {};", ptxTypeName(fn.regs[r].type), regName(fn, static_cast<uint32_t>(r)));
    if (fn.regs[r].ext_reg) s += " // pinned to " + mach::regName(fn.regs[r].ext_reg);
    s += "\n";
  }
  for (uint32_t l : fn.locals) {
    const Symbol& sym = m.symbols[l];
    if (sym.space == Space::None || sym.space == Space::Reg) continue;  // labels, prototypes
    s += "\t" + declareSymbol(m, sym, names.syms.at(l)) + ";\n";
  }
  std::set<uint32_t> protos;
  for (const CallInfo& c : fn.calls)
    if (c.indirect && c.targets.empty() && c.prototype < m.prototypes.size()) protos.insert(c.prototype);
  for (uint32_t p : protos)
    if (p < m.prototypes.size()) s += "\t" + prototypeDecl(m.prototypes[p]) + "\n";
  for (const auto& [c, label] : std::map<uint32_t, std::string>(names.calltargets.begin(), names.calltargets.end())) {
    std::string list;
    for (uint32_t t : fn.calls[c].targets) list += (list.empty() ? "" : ", ") + m.functions.at(t).name;
    s += fmt::format("\t{}: .calltargets {};\n", label, list);
  }

  Function copy;
  std::vector<int32_t> idom;
  PostDom pd;
  LoopInfo li;
  if (opt.annotate) {
    copy = fn;
    buildCfg(copy);
    idom = dominators(copy);
    pd = postDominators(copy);
    li = findLoops(copy, idom);
  }
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    s += "\n";
    if (opt.annotate) {
      const auto& bb = copy.blocks[b];
      const std::string d = idom[b] == kUnreachable ? "unreachable" : std::to_string(idom[b]);
      const std::string p = pd.ipdom[b] == kVirtualExit ? "exit" : std::to_string(pd.ipdom[b]);
      s += fmt::format("\t// block {}: preds {}; succs {}; idom {}; ipdom {}; loop depth {}\n", b, blockList(bb.preds),
                       blockList(bb.succs), d, p, li.depth[b]);
    }
    if (!names.labels[b].empty()) s += names.labels[b] + ":\n";
    for (const Instr& in : fn.blocks[b].instrs) s += "\t" + spellInstr(m, fn, names, in) + "\n";
  }
  return s + "}\n";
}

std::string printModule(const Module& m, const PrintOptions& opt) {
  std::string s = "//\n// Generated by rfsim's PTX printer";
  if (!m.file.empty()) s += " from " + m.file;
  s += "\n//\n\n";
  s += fmt::format(".version {}.{}\n", m.version_major, m.version_minor);
  if (!m.target.empty()) s += ".target " + m.target + "\n";
  s += fmt::format(".address_size {}\n", m.address_size);
  // Declarations first: initialisers and bodies may name any function.
  bool any = false;
  for (const Function& fn : m.functions)
    if (!fn.is_entry) {
      if (!any) s += "\n";
      any = true;
      Function decl = fn;
      decl.blocks.clear();
      s += printFunction(m, decl, opt);
    }
  any = false;
  for (const Symbol& sym : m.symbols) {
    if (sym.owner >= 0 || sym.is_function || sym.space == Space::None || sym.space == Space::Param) continue;
    if (!any) s += "\n";
    any = true;
    s += declareSymbol(m, sym, sym.name) + ";\n";
  }
  // Bodies of .func first, then kernels: the order a re-parse gives them
  // (the declarations above number the .func first), so printing is stable.
  for (bool entries : {false, true})
    for (const Function& fn : m.functions)
      if (!fn.blocks.empty() && fn.is_entry == entries) s += "\n" + printFunction(m, fn, opt);
  return s;
}

}  // namespace rfsim::ptx
