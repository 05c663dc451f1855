// Register allocation (regalloc.h): an interference graph over the virtual
// values with the physical registers as per-node exclusions, Chaitin-Briggs
// simplify/select with optimistic colouring, and spill / predicate-to-GPR
// rewriting until every value has a register.
//
// Single GPRs and aligned pairs share one register file, so a plain degree
// count is not a colourability test. Degrees are weighted as in Smith,
// Ramsey and Holloway, "A generalized algorithm for graph-coloring register
// allocation" (PLDI 2004): a neighbour counts for the most registers of the
// node's class it can take away (a pair takes two singles; a single or a pair
// takes one pair, because pairs are aligned). A node whose weighted degree is
// below the number of registers it may use is trivially colourable.
#include <bitset>
#include <cmath>
#include <limits>
#include <string>

#include "backend/ra_internal.h"
#include "backend/regalloc.h"
#include "common/error.h"
#include "ptx/analysis/loops.h"

namespace rfsim::backend {

namespace {

using ra::BitSet;
using RegSet = std::bitset<ptx::mach::kNumRegIds>;
constexpr uint32_t kNone = ptx::kNoReg;

struct Graph {
  uint32_t nv = 0;
  std::vector<RegClass> cls;
  std::vector<bool> present;                 // referenced by some instruction
  std::vector<std::vector<uint32_t>> adj;    // virtual neighbours, same register file
  std::vector<uint64_t> matrix;              // nv x nv adjacency bits
  std::vector<RegSet> forbid;                // physical registers the node may not take
  std::vector<std::vector<uint32_t>> moves;  // move partners (value ids: virtual or physId)
  std::vector<double> cost;                  // Chaitin: sum of 10^depth over defs and uses
  std::vector<uint32_t> first;               // position (layout order) of the first def, else of the first use
  // Single-word values read together by one arithmetic instruction: the
  // register-bank preference keeps them in different banks.
  std::vector<std::vector<uint32_t>> bank_partners;
  // Live across a call: the bank preference leaves it alone (below).
  std::vector<uint8_t> across_call;
};

bool sameFile(RegClass a, RegClass b) { return (a == RegClass::Pred) == (b == RegClass::Pred); }

// How many of `n`'s candidate registers a neighbour of class `m` can take.
unsigned worst(RegClass n, RegClass m) { return n == RegClass::Gpr && m == RegClass::Pair ? 2 : 1; }

void addEdge(Graph& g, uint32_t a, uint32_t b) {
  if (a == b || !sameFile(g.cls[a], g.cls[b])) return;
  const uint64_t bit = uint64_t(a) * g.nv + b;
  if ((g.matrix[bit >> 6] >> (bit & 63)) & 1) return;
  const uint64_t bit2 = uint64_t(b) * g.nv + a;
  g.matrix[bit >> 6] |= uint64_t{1} << (bit & 63);
  g.matrix[bit2 >> 6] |= uint64_t{1} << (bit2 & 63);
  g.adj[a].push_back(b);
  g.adj[b].push_back(a);
}

// Interference between two value indices (ra::ValueSpace numbering).
void interfere(Graph& g, uint32_t a, uint32_t b) {
  const bool pa = a >= g.nv, pb = b >= g.nv;
  if (pa && pb) return;
  if (pa) g.forbid[b].set(a - g.nv);
  else if (pb) g.forbid[a].set(b - g.nv);
  else addEdge(g, a, b);
}

// The operands an arithmetic instruction reads from the register file in
// the same cycle: single-word virtual values, two or more of them.
void bankPartners(Graph& g, const ptx::Instr& in, const ra::InstrEffects& fx) {
  using ptx::Op;
  if (in.op == Op::Ld || in.op == Op::Ldu || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red ||
      in.op == Op::Call || in.op == Op::Mov)
    return;
  std::vector<uint32_t> srcs;
  for (uint32_t u : fx.uses)
    if (u < g.nv && g.cls[u] == RegClass::Gpr && std::find(srcs.begin(), srcs.end(), u) == srcs.end())
      srcs.push_back(u);
  if (srcs.size() < 2) return;
  for (uint32_t a : srcs)
    for (uint32_t b : srcs)
      if (a != b && std::find(g.bank_partners[a].begin(), g.bank_partners[a].end(), b) == g.bank_partners[a].end())
        g.bank_partners[a].push_back(b);
}

Graph buildGraph(MFunction& f, const RaOptions& opt) {
  Graph g;
  g.nv = static_cast<uint32_t>(f.fn.regs.size());
  const ra::ValueSpace vs{g.nv};
  g.cls.resize(g.nv);
  for (uint32_t v = 0; v < g.nv; ++v) g.cls[v] = classOfBits(f.vbits[v]);
  g.present.assign(g.nv, false);
  g.adj.assign(g.nv, {});
  g.matrix.assign((uint64_t(g.nv) * g.nv + 63) / 64, 0);
  g.forbid.assign(g.nv, RegSet());
  g.across_call.assign(g.nv, 0);
  g.moves.assign(g.nv, {});
  g.cost.assign(g.nv, 0.0);
  g.first.assign(g.nv, std::numeric_limits<uint32_t>::max());
  g.bank_partners.assign(opt.reg_banks > 1 ? g.nv : 0, {});
  std::vector<uint32_t> first_use(g.nv, std::numeric_limits<uint32_t>::max());
  std::vector<uint32_t> block_pos(f.fn.blocks.size() + 1, 0);
  for (size_t b = 0; b < f.fn.blocks.size(); ++b)
    block_pos[b + 1] = block_pos[b] + static_cast<uint32_t>(f.fn.blocks[b].instrs.size());

  RegSet clobber;
  for (uint32_t r = 0; r < ptx::mach::kNumRegIds; ++r)
    if (opt.abi.clobberedByCall(r)) clobber.set(r);

  const ra::BlockLive bl = ra::solveLiveness(f, vs);
  const ptx::LoopInfo loops = ptx::findLoops(f.fn);
  ra::InstrEffects fx;
  for (size_t b = 0; b < f.fn.blocks.size(); ++b) {
    const double w = std::pow(10.0, std::min<uint32_t>(b < loops.depth.size() ? loops.depth[b] : 0, 12));
    BitSet live = bl.out[b];
    auto& instrs = f.fn.blocks[b].instrs;
    for (size_t k = instrs.size(); k-- > 0;) {
      ra::instrEffects(f, instrs[k], vs, fx);
      const uint32_t pos = block_pos[b] + static_cast<uint32_t>(k);
      for (const ra::Def& d : fx.defs)
        if (d.idx < g.nv) g.present[d.idx] = true, g.cost[d.idx] += w, g.first[d.idx] = std::min(g.first[d.idx], pos);
      for (uint32_t u : fx.uses)
        if (u < g.nv) g.present[u] = true, g.cost[u] += w, first_use[u] = std::min(first_use[u], pos);
      if (opt.reg_banks > 1) bankPartners(g, instrs[k], fx);
      if (fx.ends_path) live.clear();
      for (size_t i = 0; i < fx.defs.size(); ++i) {
        const uint32_t d = fx.defs[i].idx;
        live.forEach([&](uint32_t l) {
          if (l == d || (fx.is_move && l == fx.move_src)) return;
          interfere(g, d, l);
        });
        for (size_t j = 0; j < i; ++j)
          if (fx.defs[j].idx != d) interfere(g, d, fx.defs[j].idx);
      }
      if (fx.is_call) {
        // Every value live across the call loses the registers it clobbers:
        // the callee's own set when the back end knows it, else the ABI's.
        const ptx::Instr& ci = instrs[k];
        RegSet known;
        const bool use_known = ci.call < f.fn.calls.size() && f.fn.calls[ci.call].clobbers_known;
        if (use_known)
          for (uint32_t r : f.fn.calls[ci.call].machine_clobbers)
            if (r < ptx::mach::kNumRegIds) known.set(r);
        const RegSet& cl = use_known ? known : clobber;
        live.forEach([&](uint32_t l) {
          if (l >= g.nv) return;
          for (const ra::Def& d : fx.defs)
            if (d.idx == l) return;
          g.forbid[l] |= cl;
          g.across_call[l] = 1;
        });
      }
      if (fx.is_move) {
        const uint32_t d = fx.move_dst, s = fx.move_src;
        if (d < g.nv) g.moves[d].push_back(vs.id(s));
        if (s < g.nv) g.moves[s].push_back(vs.id(d));
      }
      for (const ra::Def& d : fx.defs)
        if (!d.guarded) live.reset(d.idx);
      for (uint32_t u : fx.uses) live.set(u);
    }
    if (b == 0) {
      // The entry defines the register arguments before block 0.
      for (uint32_t e : f.entry_defs) {
        if (!isPhysId(e) || physOf(e) >= ptx::mach::kNumRegIds || physOf(e) == ptx::mach::kRZ) continue;
        const uint32_t ei = g.nv + physOf(e);
        live.forEach([&](uint32_t l) {
          if (l != ei) interfere(g, ei, l);
        });
      }
    }
  }
  for (uint32_t v = 0; v < g.nv; ++v)
    if (g.first[v] == std::numeric_limits<uint32_t>::max()) g.first[v] = first_use[v];
  return g;
}

// The registers of each class in the order they are offered.
struct Palette {
  std::vector<uint32_t> gpr, pair, pred;
  uint32_t banks = 1;  // RaOptions::reg_banks
  RegSet saved;        // the callee-saved registers of a called function (each costs a save)
  RegSet no_pair;  // words whose aligned pair can never be allocated (R0 beside R1, the last odd one)
};

// pairs_down: pairs are offered from the top of the range downward (within
// each preference group), singles still from the bottom up, so that 64-bit
// values and single words grow towards each other instead of interleaving.
Palette makePalette(const RaOptions& opt, bool pairs_down = false) {
  using namespace ptx::mach;
  const uint32_t max = std::min<uint32_t>(opt.max_regs, kRZ);
  Palette p;
  auto usable = [&](uint32_t r) { return r < max && r != kSP && r != kRZ; };
  auto saved = [&](uint32_t r) { return !opt.is_entry && opt.abi.calleeSaved(r); };
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t r = 0; r < max; ++r)
      if (usable(r) && saved(r) == (pass == 1)) p.gpr.push_back(r);
    const size_t first = p.pair.size();
    for (uint32_t r = 0; r + 1 < max; r += 2)
      if (usable(r) && usable(r + 1) && (saved(r) || saved(r + 1)) == (pass == 1)) p.pair.push_back(r);
    if (pairs_down) std::reverse(p.pair.begin() + static_cast<std::ptrdiff_t>(first), p.pair.end());
  }
  for (uint32_t k = 0; k < kNumPred; ++k) p.pred.push_back(kPredBase + k);
  p.banks = std::clamp<uint32_t>(opt.reg_banks, 1, 16);
  for (uint32_t r = 0; r < max; ++r)
    if (saved(r)) p.saved.set(r);
  p.no_pair.set();
  for (uint32_t r : p.pair) p.no_pair.reset(r), p.no_pair.reset(r + 1);
  return p;
}

const std::vector<uint32_t>& colours(const Palette& p, RegClass c) {
  return c == RegClass::Pred ? p.pred : c == RegClass::Pair ? p.pair : p.gpr;
}

bool fits(RegClass c, uint32_t r, const RegSet& blocked) {
  return !blocked.test(r) && (c != RegClass::Pair || !blocked.test(r + 1));
}

// Simplify: the order in which select colours the nodes (the stack, popped
// from the back).
std::vector<uint32_t> simplifyOrder(const Graph& g, const Palette& pal, const std::vector<uint8_t>& flags,
                                    const std::string& fname) {
  const uint32_t n = g.nv;
  std::vector<uint32_t> deg(n, 0), avail(n, 0);
  std::vector<uint8_t> removed(n, 1), queued(n, 0);
  std::vector<uint32_t> low, stack;
  uint32_t remaining = 0;
  for (uint32_t v = 0; v < n; ++v) {
    if (!g.present[v]) continue;
    removed[v] = 0;
    ++remaining;
    for (uint32_t r : colours(pal, g.cls[v])) avail[v] += fits(g.cls[v], r, g.forbid[v]);
    if (avail[v] == 0 && (flags[v] & ra::kNoSpill) && (g.cls[v] != RegClass::Pred || (flags[v] & ra::kNoConvert)))
      throw Error(fname + ": register allocation is impossible: value " + std::to_string(v) +
                  " has no register it may use (max_regs too small for the calling convention?)");
    for (uint32_t m : g.adj[v]) deg[v] += worst(g.cls[v], g.cls[m]);
  }
  for (uint32_t v = n; v-- > 0;)
    if (!removed[v] && deg[v] < avail[v]) low.push_back(v), queued[v] = 1;
  auto spillCost = [&](uint32_t v) {
    const bool fixed = g.cls[v] == RegClass::Pred ? (flags[v] & ra::kNoConvert) : (flags[v] & ra::kNoSpill);
    if (fixed) return std::numeric_limits<double>::infinity();
    return g.cost[v] / std::max<uint32_t>(deg[v], 1);
  };
  while (remaining > 0) {
    uint32_t v = kNone;
    while (!low.empty() && v == kNone) {
      const uint32_t c = low.back();
      low.pop_back();
      if (!removed[c]) v = c;
    }
    if (v == kNone) {
      // Blocked: push the cheapest spill candidate optimistically (Briggs).
      double best = std::numeric_limits<double>::infinity();
      for (uint32_t c = 0; c < n; ++c) {
        if (removed[c]) continue;
        const double sc = spillCost(c);
        if (v == kNone || sc < best) v = c, best = sc;
      }
    }
    removed[v] = 1;
    --remaining;
    stack.push_back(v);
    for (uint32_t m : g.adj[v]) {
      if (removed[m]) continue;
      deg[m] -= worst(g.cls[m], g.cls[v]);
      if (deg[m] < avail[m] && !queued[m]) low.push_back(m), queued[m] = 1;
    }
  }
  return stack;
}

// Select: colours the nodes of `stack` from the back. Returns each node's
// colour (kNone: not coloured).
std::vector<uint32_t> selectColours(const Graph& g, const Palette& pal, const std::vector<uint32_t>& stack) {
  const uint32_t n = g.nv;
  std::vector<uint32_t> colour(n, kNone);
  uint32_t high = 0;  // one past the highest GPR given so far
  for (size_t i = stack.size(); i-- > 0;) {
    const uint32_t v = stack[i];
    RegSet blocked = g.forbid[v];
    for (uint32_t m : g.adj[v]) {
      if (colour[m] == kNone) continue;
      blocked.set(colour[m]);
      if (g.cls[m] == RegClass::Pair) blocked.set(colour[m] + 1);
    }
    const auto& pal_v = colours(pal, g.cls[v]);
    // Biased colouring: a move partner's register first, if it is allowed.
    for (uint32_t p : g.moves[v]) {
      const uint32_t r = isPhysId(p) ? physOf(p) : colour[p];
      if (r == kNone) continue;
      if (std::find(pal_v.begin(), pal_v.end(), r) != pal_v.end() && fits(g.cls[v], r, blocked)) {
        colour[v] = r;
        break;
      }
    }
    // A single word read beside others by one instruction goes to a bank
    // none of those already coloured is in (ptxas on Volta/Turing: the
    // sixteen values of tests/backend/probes' h16, each added to one
    // accumulator, sit in R5, R7, ..., R33), even above `high`; never a
    // callee-saved register it would not take anyway. Not for a value live
    // across a call: ptxas keeps those in consecutive registers of the
    // preserved set whatever they are read beside (abi_probes 13 and 14: 20
    // values, each read beside one accumulator, in R16-R19, R22-R31,
    // R36-R39, R44-R45).
    if (colour[v] == kNone && g.cls[v] == RegClass::Gpr && pal.banks > 1 && !g.bank_partners.empty() &&
        !g.bank_partners[v].empty() && !g.across_call[v]) {
      uint32_t taken = 0;  // a bit per bank
      for (uint32_t m : g.bank_partners[v])
        if (colour[m] != kNone && g.cls[m] == RegClass::Gpr) taken |= 1u << (colour[m] % pal.banks);
      if (taken && taken != (1u << pal.banks) - 1)
        for (uint32_t r : pal_v)
          if (fits(g.cls[v], r, blocked) && !((taken >> (r % pal.banks)) & 1) && !pal.saved.test(r)) {
            colour[v] = r;
            break;
          }
    }
    // A single word then fills the free half of a pair whose other half is
    // taken, in palette order, so whole pairs stay free for 64-bit values;
    // only below the highest register already given, so that the register
    // count does not grow for it.
    if (colour[v] == kNone && g.cls[v] == RegClass::Gpr)
      for (uint32_t r : pal_v)
        if (r < high && fits(g.cls[v], r, blocked) && (blocked.test(r ^ 1) || pal.no_pair.test(r))) {
          colour[v] = r;
          break;
        }
    if (colour[v] == kNone)
      for (uint32_t r : pal_v)
        if (fits(g.cls[v], r, blocked)) {
          colour[v] = r;
          break;
        }
    if (colour[v] != kNone && g.cls[v] != RegClass::Pred)
      high = std::max(high, colour[v] + (g.cls[v] == RegClass::Pair ? 2 : 1));
  }
  return colour;
}


// Values left without a colour, and one past the highest GPR used.
struct ColourScore {
  uint32_t failed = 0;
  uint32_t regs = 0;
  // Fewer values left over; among complete colourings, fewer registers. A tie
  // keeps the earlier one: the simplify order's failures are its cost-aware
  // spill choices, an alternative's are whichever values came last.
  bool better(const ColourScore& o) const {
    return failed < o.failed || (failed == 0 && o.failed == 0 && regs < o.regs);
  }
};

ColourScore score(const Graph& g, const std::vector<uint32_t>& colour) {
  ColourScore s;
  for (uint32_t v = 0; v < g.nv; ++v) {
    if (!g.present[v]) continue;
    if (colour[v] == kNone) {
      ++s.failed;
      continue;
    }
    if (g.cls[v] != RegClass::Pred) s.regs = std::max(s.regs, colour[v] + (g.cls[v] == RegClass::Pair ? 2 : 1));
  }
  return s;
}

// When the preferred colouring leaves values uncoloured, the failure is often
// not pressure but the colouring order (optimistic colouring of a graph that
// is far from chordal) and fragmentation (singles scattered over the aligned
// pairs). Select is re-run (simplify is not: the orders below need no
// degrees) with variants: bit 0, pairs from the top of a range [0, top)
// downward and singles from the bottom up; bit 1, the nodes in program order
// instead of the simplify stack. Each is tried on the whole range; the best
// (fewest values left, then fewest registers) replaces `colour` only when it
// leaves fewer values uncoloured, and when it colours everything the
// smallest `top` that still does is searched for, so the register count
// stays low. Deterministic; costs a few select passes, only in rounds that
// would spill, or with RaOptions::minimize, where a complete colouring is
// searched the same way (every variant, the simplify order's too, under
// the smallest range that still colours everything) for fewer registers.
void retryAgainstFragmentation(const Graph& g, const RaOptions& opt, const std::vector<uint32_t>& stack,
                               std::vector<uint32_t>& colour) {
  const ColourScore base = score(g, colour);
  // Program order: the nodes by their first definition, as a linear scan
  // would meet them (optimal on interval graphs, which straight-line code with
  // few redefinitions nearly is).
  std::vector<uint32_t> prog;
  for (uint32_t v = 0; v < g.nv; ++v)
    if (g.present[v]) prog.push_back(v);
  std::sort(prog.begin(), prog.end(), [&](uint32_t a, uint32_t b) {
    return g.first[a] != g.first[b] ? g.first[a] > g.first[b] : a > b;
  });
  const uint32_t full = std::min<uint32_t>(opt.max_regs, ptx::mach::kRZ);
  auto attempt = [&](int variant, uint32_t top) {
    RaOptions o = opt;
    o.max_regs = top;
    const Palette p = makePalette(o, /*pairs_down=*/variant & 1);
    return selectColours(g, p, (variant & 2) ? prog : stack);
  };
  std::vector<uint32_t> best;
  ColourScore bs = base;
  int bv = -1;
  // Bisection for the smallest range [0, top) below `hi` under which
  // `variant` still colours everything (colourability is close to monotone
  // in top); the best complete colouring seen is kept either way.
  auto shrink = [&](int variant, uint32_t hi) {
    uint32_t lo = 18;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      std::vector<uint32_t> c = attempt(variant, mid);
      const ColourScore cs = score(g, c);
      if (cs.failed == 0) {
        hi = std::min(mid, cs.regs);
        if (cs.regs < bs.regs) best = std::move(c), bs = cs, bv = variant;
      } else {
        lo = mid + 1;
      }
    }
  };
  for (int variant = 1; variant < 4; ++variant) {
    std::vector<uint32_t> c = attempt(variant, full);
    const ColourScore cs = score(g, c);
    if (cs.better(bs))
      best = std::move(c), bs = cs, bv = variant;
  }
  if (bv < 0 && base.failed == 0 && opt.minimize) {
    // A complete colouring made smaller: each variant, the simplify order's
    // included.
    for (int variant = 0; variant < 4; ++variant) shrink(variant, bs.regs);
    if (bv >= 0) colour = std::move(best);
    return;
  }
  if (bv < 0) return;
  if (bs.failed == 0) shrink(bv, std::min(full, bs.regs));  // bs.regs colours everything
  colour = std::move(best);
}

}  // namespace

RaResult allocateRegisters(MFunction& f, const RaOptions& opt) {
  RaResult res;
  if (f.vbits.size() != f.fn.regs.size() || f.origin.size() != f.fn.regs.size())
    throw Error(f.fn.name + ": the MFunction's vbits/origin do not cover its registers");
  const Palette pal = makePalette(opt);
  if (pal.gpr.empty()) throw Error(f.fn.name + ": max_regs " + std::to_string(opt.max_regs) + " leaves no register");
  std::vector<uint8_t> flags(f.fn.regs.size(), 0);
  for (uint32_t v : f.scratch_values) flags.at(v) |= ra::kNoSpill;
  constexpr uint32_t kMaxRounds = 64;
  for (;;) {
    if (++res.rounds > kMaxRounds)
      throw Error(f.fn.name + ": register allocation did not converge in " + std::to_string(kMaxRounds) + " rounds");
    const Graph g = buildGraph(f, opt);
    const std::vector<uint32_t> stack = simplifyOrder(g, pal, flags, f.fn.name);
    std::vector<uint32_t> colour = selectColours(g, pal, stack);
    if (opt.minimize || score(g, colour).failed > 0) retryAgainstFragmentation(g, opt, stack, colour);
    std::vector<uint8_t> pick_spill(g.nv, 0), pick_conv(g.nv, 0);
    bool failed = false;
    for (uint32_t v = 0; v < g.nv; ++v) {
      if (!g.present[v] || colour[v] != kNone) continue;
      failed = true;
      const bool pred = g.cls[v] == RegClass::Pred;
      const uint8_t fixed = pred ? ra::kNoConvert : ra::kNoSpill;
      auto& pick = pred ? pick_conv : pick_spill;
      if (!(flags[v] & fixed)) {
        pick[v] = 1;
        continue;
      }
      // A spill temporary found no register: free one by evicting its
      // cheapest evictable neighbour instead.
      uint32_t best = kNone;
      for (uint32_t m : g.adj[v])
        if (!(flags[m] & fixed) && (g.cls[m] == RegClass::Pred) == pred && (best == kNone || g.cost[m] < g.cost[best]))
          best = m;
      if (best == kNone)
        throw Error(f.fn.name + ": register allocation is impossible: no register left for value " +
                    f.fn.regs[v].name + " (max_regs " + std::to_string(opt.max_regs) + ")");
      pick[best] = 1;
    }
    if (!failed) {
      ra::shareSpillSlots(f);
      res.assign.assign(g.nv, kNone);
      for (uint32_t v = 0; v < g.nv; ++v)
        if (g.present[v]) res.assign[v] = colour[v];
      return res;
    }
    std::vector<uint32_t> spill, conv;
    for (uint32_t v = 0; v < g.nv; ++v) {
      if (pick_spill[v]) spill.push_back(v);
      if (pick_conv[v]) conv.push_back(v);
    }
    if (!spill.empty()) ra::spillValues(f, spill, flags, res);
    if (!conv.empty()) ra::predsToGpr(f, conv, flags, res);
  }
}

}  // namespace rfsim::backend
