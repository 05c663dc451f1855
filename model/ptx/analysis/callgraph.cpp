#include "ptx/analysis/callgraph.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::ptx {

namespace {

void markSymbol(const Module& m, uint32_t sym, std::vector<bool>& taken) {
  if (sym == kNoSym || sym >= m.symbols.size()) return;
  const Symbol& s = m.symbols[sym];
  if (s.is_function && s.function < taken.size()) taken[s.function] = true;
}

// Same count of parameters as the prototype, and the same sizes where both
// sides know them (a .b32 parameter cannot receive a .b64 argument).
bool matches(const Module& m, const std::vector<uint32_t>& syms, const std::vector<uint64_t>& sizes, size_t count) {
  if (syms.size() != count) return false;
  for (size_t i = 0; i < syms.size() && i < sizes.size(); ++i) {
    const uint64_t have = syms[i] < m.symbols.size() ? m.symbols[syms[i]].size : 0;
    if (have != 0 && sizes[i] != 0 && have != sizes[i]) return false;
  }
  return true;
}

void sortUnique(std::vector<uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Tarjan's strongly connected components, iteratively. Components come out
// in reverse topological order: callees first.
void tarjan(CallGraph& cg) {
  const uint32_t n = static_cast<uint32_t>(cg.callees.size());
  std::vector<int32_t> index(n, -1), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, size_t>> dfs;
  int32_t counter = 0;
  cg.scc.assign(n, 0);
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != -1) continue;
    dfs.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = true;
    while (!dfs.empty()) {
      auto& [v, next] = dfs.back();
      if (next < cg.callees[v].size()) {
        const uint32_t w = cg.callees[v][next++];
        if (index[w] == -1) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = true;
          dfs.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const uint32_t done = v;
      dfs.pop_back();
      if (!dfs.empty()) low[dfs.back().first] = std::min(low[dfs.back().first], low[done]);
      if (low[done] != index[done]) continue;
      std::vector<uint32_t> members;
      uint32_t w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = false;
        members.push_back(w);
        cg.scc[w] = static_cast<uint32_t>(cg.sccs.size());
      } while (w != done);
      std::sort(members.begin(), members.end());
      cg.sccs.push_back(std::move(members));
    }
  }
}

}  // namespace

std::vector<bool> addressTaken(const Module& m) {
  std::vector<bool> taken(m.functions.size(), false);
  for (const Function& fn : m.functions)
    for (const BasicBlock& bb : fn.blocks)
      for (const Instr& in : bb.instrs) {
        if (in.op == Op::Call) continue;  // naming the callee is not taking its address
        for (uint8_t i = 0; i < in.nsrc && i < in.src.size(); ++i)
          if (in.src[i].kind == OperandKind::Sym || in.src[i].kind == OperandKind::Addr) markSymbol(m, in.src[i].sym, taken);
        for (uint8_t i = 0; i < in.ndst && i < in.dst.size(); ++i)
          if (in.dst[i].kind == OperandKind::Addr) markSymbol(m, in.dst[i].sym, taken);
      }
  for (const Symbol& s : m.symbols)
    for (const auto& [offset, sym] : s.init_addrs) markSymbol(m, sym, taken);
  return taken;
}

std::vector<uint32_t> indirectTargets(const Module& m, const CallInfo& call, const std::vector<bool>& address_taken) {
  std::vector<uint32_t> out;
  if (!call.targets.empty()) {
    out = call.targets;
    sortUnique(out);
    return out;
  }
  // The parser keeps CallInfo::prototype as an index into Module::prototypes.
  const Prototype* proto = call.prototype < m.prototypes.size() ? &m.prototypes[call.prototype] : nullptr;
  for (uint32_t f = 0; f < m.functions.size(); ++f) {
    if (!address_taken[f]) continue;
    const Function& fn = m.functions[f];
    if (proto && !matches(m, fn.params, proto->param_sizes, proto->params.size())) continue;
    if (proto && !matches(m, fn.rets, proto->ret_sizes, proto->rets.size())) continue;
    out.push_back(f);
  }
  return out;
}

CallGraph buildCallGraph(const Module& m) {
  CallGraph cg;
  const uint32_t n = static_cast<uint32_t>(m.functions.size());
  cg.callees.resize(n);
  cg.callers.resize(n);
  cg.recursive.assign(n, false);
  cg.address_taken = addressTaken(m);
  for (uint32_t f = 0; f < n; ++f) {
    const Function& fn = m.functions[f];
    for (const CallInfo& call : fn.calls) {
      if (!call.indirect) {
        if (call.callee >= n)
          throw Error(fmt::format("{}: call to function {} of {}", fn.name, call.callee, n));
        cg.callees[f].push_back(call.callee);
        continue;
      }
      std::vector<uint32_t> targets = indirectTargets(m, call, cg.address_taken);
      if (targets.empty()) ++cg.unresolved_indirect_calls;
      for (uint32_t t : targets) {
        if (t >= n) throw Error(fmt::format("{}: .calltargets names function {} of {}", fn.name, t, n));
        cg.callees[f].push_back(t);
      }
    }
    sortUnique(cg.callees[f]);
    for (uint32_t t : cg.callees[f]) cg.callers[t].push_back(f);
  }
  // callers[] were filled in increasing caller order: already sorted.
  tarjan(cg);
  for (const auto& members : cg.sccs) {
    for (uint32_t f : members) cg.bottom_up.push_back(f);
    const bool self_call = members.size() == 1 &&
                           std::binary_search(cg.callees[members[0]].begin(), cg.callees[members[0]].end(), members[0]);
    if (members.size() > 1 || self_call)
      for (uint32_t f : members) cg.recursive[f] = true;
  }
  return cg;
}

std::vector<uint64_t> maxPathWeight(const CallGraph& cg, const std::vector<uint64_t>& weight) {
  const size_t n = cg.callees.size();
  if (weight.size() != n)
    throw Error(fmt::format("maxPathWeight: {} weights for {} functions", weight.size(), n));
  // Components are numbered bottom-up, so every callee component is done
  // before the component calling it.
  std::vector<uint64_t> depth(cg.sccs.size(), 0);
  for (size_t c = 0; c < cg.sccs.size(); ++c) {
    uint64_t own = 0, below = 0;
    for (uint32_t f : cg.sccs[c]) {
      own += weight[f];
      for (uint32_t g : cg.callees[f])
        if (cg.scc[g] != c) below = std::max(below, depth[cg.scc[g]]);
    }
    depth[c] = own + below;
  }
  std::vector<uint64_t> out(n);
  for (size_t f = 0; f < n; ++f) out[f] = depth[cg.scc[f]];
  return out;
}

std::vector<bool> reachable(const CallGraph& cg, uint32_t root) {
  std::vector<bool> seen(cg.callees.size(), false);
  std::vector<uint32_t> work{root};
  seen[root] = true;
  while (!work.empty()) {
    const uint32_t f = work.back();
    work.pop_back();
    for (uint32_t c : cg.callees[f])
      if (!seen[c]) seen[c] = true, work.push_back(c);
  }
  return seen;
}

}  // namespace rfsim::ptx
