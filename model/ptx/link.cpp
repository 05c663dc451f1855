#include "ptx/link.h"

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/parser.h"

namespace rfsim::ptx {

namespace {

std::string arch(const std::string& target) { return target.substr(0, target.find(',')); }

// Adds module `b` to `a`.
class Linker {
 public:
  Linker(Module& a, Module& b, uint32_t unit)
      : a_(a), b_(b), unit_(unit), fmap_(b.functions.size(), 0), smap_(b.symbols.size(), kNoSym) {}

  void run() {
    if (arch(a_.target) != arch(b_.target) || a_.address_size != b_.address_size)
      throw Error(fmt::format("link {} + {}: .target {} / .address_size {} against .target {} / .address_size {}",
                              a_.file, b_.file, a_.target, a_.address_size, b_.target, b_.address_size));
    mapFunctions();
    mapSymbols();
    const auto pbase = static_cast<uint32_t>(a_.prototypes.size());
    for (Prototype& p : b_.prototypes) a_.prototypes.push_back(std::move(p));
    // B's functions, their references rewritten, into their merged slots.
    for (uint32_t f = 0; f < b_.functions.size(); ++f) {
      Function& fn = b_.functions[f];
      if (!take_[f]) continue;
      rewrite(fn, pbase);
      fn.unit = unit_;
      a_.functions[fmap_[f]] = std::move(fn);
    }
    // B's symbols: function-scope ones always, module-scope ones that were new
    // or that define what A only declared.
    for (uint32_t s = 0; s < b_.symbols.size(); ++s) {
      if (!take_sym_[s]) continue;
      Symbol sym = std::move(b_.symbols[s]);
      if (sym.owner >= 0) sym.owner = static_cast<int32_t>(fmap_[static_cast<uint32_t>(sym.owner)]);
      if (sym.is_function) sym.function = fmap_[sym.function];
      for (auto& ia : sym.init_addrs) ia.second = smap_[ia.second];
      a_.symbols[smap_[s]] = std::move(sym);
    }
    a_.function_index.clear();
    for (uint32_t f = 0; f < a_.functions.size(); ++f) a_.function_index[a_.functions[f].name] = f;
    a_.global_symbols.clear();
    for (uint32_t s = 0; s < a_.symbols.size(); ++s)
      if (a_.symbols[s].owner < 0 && !a_.symbols[s].is_function) a_.global_symbols[a_.symbols[s].name] = s;
    a_.file += "+" + b_.file;
  }

 private:
  // Which of two entries of one name is kept: true when B's replaces A's.
  bool bWins(bool a_extern, bool a_weak, bool b_extern, bool b_weak, const std::string& what,
             const std::string& name) const {
    if (b_extern) return false;  // a declaration binds to what A has
    if (a_extern) return true;   // A only declared it
    if (!a_weak && !b_weak)
      throw Error(fmt::format("link {} + {}: {} '{}' is defined in both (neither .weak)", a_.file, b_.file, what,
                              name));
    return a_weak && !b_weak;  // a strong definition beats a weak one; two weak ones: the first
  }

  void mapFunctions() {
    take_.assign(b_.functions.size(), false);
    for (uint32_t f = 0; f < b_.functions.size(); ++f) {
      const Function& fb = b_.functions[f];
      auto it = a_.function_index.find(fb.name);
      if (it == a_.function_index.end()) {
        fmap_[f] = static_cast<uint32_t>(a_.functions.size());
        a_.functions.emplace_back();
        take_[f] = true;
        continue;
      }
      const Function& fa = a_.functions[it->second];
      if (fa.is_entry != fb.is_entry || fa.params.size() != fb.params.size() || fa.rets.size() != fb.rets.size())
        throw Error(fmt::format("link {} + {}: function '{}' is {} with {} parameters and {} results in the first, "
                                "{} with {} and {} in the second (line {})",
                                a_.file, b_.file, fb.name, fa.is_entry ? "an entry" : "a function", fa.params.size(),
                                fa.rets.size(), fb.is_entry ? "an entry" : "a function", fb.params.size(),
                                fb.rets.size(), fb.loc.line));
      fmap_[f] = it->second;
      take_[f] = bWins(fa.is_extern, fa.is_weak, fb.is_extern, fb.is_weak, "function", fb.name);
    }
  }

  void mapSymbols() {
    take_sym_.assign(b_.symbols.size(), false);
    for (uint32_t s = 0; s < b_.symbols.size(); ++s) {
      const Symbol& sb = b_.symbols[s];
      bool fresh = sb.owner >= 0;  // a function's own parameter or local
      if (!fresh) {
        auto it = a_.global_symbols.find(sb.name);
        if (it == a_.global_symbols.end()) {
          fresh = true;
        } else {
          const Symbol& sa = a_.symbols[it->second];
          smap_[s] = it->second;
          if (sa.is_function != sb.is_function)
            throw Error(fmt::format("link {} + {}: '{}' is a {} in the first and a {} in the second", a_.file,
                                    b_.file, sb.name, sa.is_function ? "function" : "variable",
                                    sb.is_function ? "function" : "variable"));
          // (global_symbols holds variables only: a function's address
          // symbol of B is new, its function mapped.)
          // Two definitions of a variable: as for functions, a .weak one
          // (nvcc -rdc emits a class's vtable .weak in every unit that
          // builds its objects) gives way to a strong one, of two .weak ones
          // the first stays, two strong ones are an error.
          if (!sb.is_function)
            take_sym_[s] = bWins(sa.is_extern, sa.is_weak, sb.is_extern, sb.is_weak, "variable", sb.name);
          if (!sb.is_function && !sa.is_extern && !sb.is_extern && sa.size != sb.size)
            throw Error(fmt::format("link {} + {}: variable '{}' has {} bytes in the first and {} in the second",
                                    a_.file, b_.file, sb.name, sa.size, sb.size));
        }
      }
      if (fresh) {
        smap_[s] = static_cast<uint32_t>(a_.symbols.size());
        a_.symbols.emplace_back();
        take_sym_[s] = true;
      }
    }
  }

  void operand(Operand& o) const {
    if (o.sym != kNoSym && (o.kind == OperandKind::Sym || o.kind == OperandKind::Addr)) o.sym = smap_[o.sym];
  }

  void rewrite(Function& fn, uint32_t pbase) const {
    for (uint32_t& s : fn.params) s = smap_[s];
    for (uint32_t& s : fn.rets) s = smap_[s];
    for (uint32_t& s : fn.locals) s = smap_[s];
    for (CallInfo& c : fn.calls) {
      if (!c.indirect) c.callee = fmap_[c.callee];
      if (c.prototype != kNoSym) c.prototype += pbase;
      for (uint32_t& t : c.targets) t = fmap_[t];
      for (uint32_t& s : c.args) s = smap_[s];
      for (uint32_t& s : c.rets) s = smap_[s];
    }
    for (BasicBlock& bb : fn.blocks)
      for (Instr& in : bb.instrs) {
        for (unsigned i = 0; i < in.ndst; ++i) operand(in.dst[i]);
        for (unsigned i = 0; i < in.nsrc; ++i) operand(in.src[i]);
      }
  }

  Module& a_;
  Module& b_;
  uint32_t unit_;
  std::vector<uint32_t> fmap_, smap_;
  std::vector<bool> take_, take_sym_;
};

}  // namespace

Module link(std::vector<Module> mods) {
  if (mods.empty()) throw Error("link: no PTX module");
  Module out = std::move(mods[0]);
  for (size_t i = 1; i < mods.size(); ++i) Linker(out, mods[i], static_cast<uint32_t>(i)).run();
  return out;
}

Module parseAndLink(const std::vector<std::filesystem::path>& files) {
  std::vector<Module> mods;
  for (const auto& f : files) mods.push_back(parseFile(f));
  return link(std::move(mods));
}

}  // namespace rfsim::ptx
