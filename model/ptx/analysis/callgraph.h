// The module's call graph: which function may call which, the recursive
// parts (strongly connected components, Tarjan 1972), a bottom-up order and
// the longest-path weights that size register stacks (Kang et al. §III-B,
// Fig. 4: MaxStackDepth).
//
// Direct calls go to CallInfo::callee. An indirect call goes to its
// .calltargets list when it has one; otherwise, conservatively, to every
// function whose address is taken (a function symbol used as an operand of
// some instruction or in a variable's initialiser) and, when the call names
// a .callprototype (CallInfo::prototype, an index into Module::prototypes),
// whose parameter and return counts (and sizes, where both sides give
// them) match it.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.h"

namespace rfsim::ptx {

struct CallGraph {
  // Per function index (Module::functions), ascending, without duplicates.
  std::vector<std::vector<uint32_t>> callees, callers;
  // The function is on a cycle: in a component of several functions, or
  // calling itself.
  std::vector<bool> recursive;
  // Component of each function; components are numbered bottom-up (a
  // component's callees are in components with smaller numbers).
  std::vector<uint32_t> scc;
  std::vector<std::vector<uint32_t>> sccs;  // members of each component, ascending
  // Every function, callees before callers (reverse topological order of the
  // component graph; the members of one component are adjacent).
  std::vector<uint32_t> bottom_up;
  std::vector<bool> address_taken;
  // Indirect call sites with neither .calltargets nor a taken address to go to.
  uint32_t unresolved_indirect_calls = 0;
};

CallGraph buildCallGraph(const Module& m);

// For each function, the largest sum of `weight` along any call path from it
// to a leaf, itself included (MaxStackDepth when weight is each
// function's FRU). A recursive component counts each of its functions once
// ("we assume only one iteration of the recursive components"): its weight is
// the sum of its members', and every member gets the component's value.
std::vector<uint64_t> maxPathWeight(const CallGraph& cg, const std::vector<uint64_t>& weight);

// Functions reachable from `root` through calls, `root` included, per
// function index.
std::vector<bool> reachable(const CallGraph& cg, uint32_t root);

// The callees an indirect call site may reach (as buildCallGraph resolves it).
std::vector<uint32_t> indirectTargets(const Module& m, const CallInfo& call, const std::vector<bool>& address_taken);
// Functions whose address is taken, per function index.
std::vector<bool> addressTaken(const Module& m);

}  // namespace rfsim::ptx
