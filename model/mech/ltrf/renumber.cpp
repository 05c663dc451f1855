#include "mech/ltrf/renumber.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <set>
#include <cstdio>

#include "backend/mfunction.h"
#include "mech/ltrf/intervals.h"
#include "mech/ltrf/liveness.h"
#include "ptx/machine.h"

namespace rfsim::mech::ltrf {

namespace mach = ptx::mach;

namespace {

class UnionFind {
 public:
  int add() {
    parent_.push_back(static_cast<int>(parent_.size()));
    return parent_.back();
  }
  int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
  size_t size() const { return parent_.size(); }

 private:
  std::vector<int> parent_;
};

struct SlotInfo {
  uint32_t reg;
  unsigned mbits;
  bool def, guarded;
  int operand;
};

std::vector<SlotInfo> slotsOf(ptx::Instr& in, ptx::Function& fn) {
  std::vector<SlotInfo> v;
  backend::forEachSlot(in, fn, [&](const backend::Slot& s) { v.push_back({*s.reg, s.mbits, s.def, s.guarded, s.operand}); });
  return v;
}

bool gpr(uint32_t r) { return r < mach::kRZ; }

}  // namespace

namespace {

uint32_t totalConflicts(const ptx::Function& fn, uint32_t n, const BankMapping& bm) {
  uint32_t total = 0;
  for (const Interval& i : formIntervals(fn, n, true).intervals) {
    std::vector<uint32_t> per(bm.banks, 0);
    for (uint32_t r : i.regs.members()) total += per[bm.bank(r)]++ > 0;
  }
  return total;
}

RenumberResult renumberOnce(ptx::Function& fn, uint32_t n, const BankMapping& bm, uint32_t reserved);

}  // namespace

RenumberResult renumber(ptx::Function& fn, uint32_t n, const BankMapping& bm, uint32_t reserved) {
  // Kept only when the prefetches' bank conflicts fall.
  const ptx::Function before = fn;
  const uint32_t was = totalConflicts(fn, n, bm);
  RenumberResult r = renumberOnce(fn, n, bm, reserved);
  r.conflicts_before = was;
  r.conflicts_after = totalConflicts(fn, n, bm);
  if (r.conflicts_after >= was) {
    fn = before;
    r.moved = 0;
    r.conflicts_after = was;
    r.kept = false;
  }
  return r;
}

namespace {

RenumberResult renumberOnce(ptx::Function& fn, uint32_t n, const BankMapping& bm, uint32_t reserved) {
  RenumberResult res;
  const uint32_t banks = bm.banks;
  const size_t nb = fn.blocks.size();
  if (nb == 0 || banks < 2) return res;
  const std::vector<RegBits> live_in = blockLiveIn(fn);

  // Live after each instruction.
  std::vector<std::vector<RegBits>> live_after(nb);
  for (size_t b = 0; b < nb; ++b) {
    auto& code = fn.blocks[b].instrs;
    live_after[b].resize(code.size());
    RegBits live = blockLiveOut(fn, live_in, static_cast<uint32_t>(b));
    for (size_t i = code.size(); i-- > 0;) {
      live_after[b][i] = live;
      stepBack(code[i], fn, live);
    }
  }

  // Webs: a node per register (half) a slot names and per (block, live-in
  // register); uses join the reaching definition, block ends join their
  // successors' live-ins.
  UnionFind uf;
  std::vector<uint8_t> fixed, across_call;
  std::vector<uint32_t> reg_of;
  std::vector<std::pair<int, int>> pairs;  // the two halves of a 64-bit operand: (low, high)
  auto node = [&](uint32_t r, bool fix) {
    const int x = uf.add();
    fixed.push_back(fix);
    across_call.push_back(0);
    reg_of.push_back(r);
    return x;
  };
  std::vector<std::array<int, 256>> entry(nb), at_end(nb);
  for (size_t b = 0; b < nb; ++b) {
    entry[b].fill(-1);
    for (uint32_t r = 0; r < mach::kRZ; ++r)
      if (live_in[b].test(r)) entry[b][r] = node(r, b == 0);  // live at the function's entry: a parameter, R1, ...
  }
  std::vector<std::vector<std::vector<int>>> slot_nodes(nb);  // [b][i][slot]: node of the slot's (low) register
  std::vector<std::pair<int, int>> interfere;
  uint32_t max_reg = 0;
  RegBits used;
  const RegBits ret_live = returnLive();
  for (size_t b = 0; b < nb; ++b) {
    std::array<int, 256> cur = entry[b];
    auto& code = fn.blocks[b].instrs;
    slot_nodes[b].resize(code.size());
    for (size_t i = 0; i < code.size(); ++i) {
      const std::vector<SlotInfo> slots = slotsOf(code[i], fn);
      std::vector<int>& sn = slot_nodes[b][i];
      sn.assign(slots.size(), -1);
      // A 64-bit operand's halves stay an aligned even/odd pair: they are
      // linked (`pairs`) and move together by an even distance. Only a
      // call's target and implicit operands (the calling convention's
      // registers) and R1 keep their register.
      auto make = [&](const SlotInfo& s, uint32_t r) {
        const bool fix = s.operand < -1 || r == mach::kSP || (s.mbits == 64 && !gpr(s.reg + 1));
        max_reg = std::max(max_reg, r);
        used.set(r);
        return node(r, fix);
      };
      for (size_t k = 0; k < slots.size(); ++k) {
        const SlotInfo& s = slots[k];
        if (s.def || !gpr(s.reg)) continue;
        int low = -1;
        for (uint32_t h = 0; h < (s.mbits == 64 ? 2u : 1u); ++h) {
          const uint32_t r = s.reg + h;
          if (!gpr(r)) continue;
          const int x = make(s, r);
          if (cur[r] >= 0) uf.unite(x, cur[r]);
          else cur[r] = x;
          if (h == 0) sn[k] = low = x;
          else if (low >= 0) pairs.push_back({low, x});
        }
      }
      if (code[i].op == ptx::Op::Ret && !fn.is_entry)
        for (uint32_t r = 0; r < mach::kRZ; ++r)
          if (ret_live.test(r) && cur[r] >= 0) fixed[uf.find(cur[r])] = 1;
      // Live across a call: the callee may change any caller-saved register,
      // so such a value may move only to a callee-saved one (the ABI's
      // guarantee, docs/abi.md), or stay.
      if (code[i].op == ptx::Op::Call)
        for (uint32_t r = 0; r < mach::kRZ; ++r)
          if (live_after[b][i].test(r) && cur[r] >= 0) across_call[cur[r]] = 1;
      std::vector<int> defs;
      for (size_t k = 0; k < slots.size(); ++k) {
        const SlotInfo& s = slots[k];
        if (!s.def || !gpr(s.reg)) continue;
        int low = -1;
        for (uint32_t h = 0; h < (s.mbits == 64 ? 2u : 1u); ++h) {
          const uint32_t r = s.reg + h;
          if (!gpr(r)) continue;
          const int x = make(s, r);
          if (s.guarded && cur[r] >= 0) uf.unite(x, cur[r]);
          cur[r] = x;
          defs.push_back(x);
          if (h == 0) sn[k] = low = x;
          else if (low >= 0) pairs.push_back({low, x});
        }
      }
      for (int d : defs)
        for (uint32_t q = 0; q < mach::kRZ; ++q)
          if (live_after[b][i].test(q) && cur[q] >= 0 && cur[q] != d) interfere.push_back({d, cur[q]});
    }
    at_end[b] = cur;
  }
  for (size_t b = 0; b < nb; ++b)
    for (uint32_t s : fn.blocks[b].succs)
      for (uint32_t r = 0; r < mach::kRZ; ++r)
        if (entry[s][r] >= 0 && at_end[b][r] >= 0) uf.unite(entry[s][r], at_end[b][r]);

  // Live ranges of one register named in one interval move together:
  // renumbering permutes each working set and never splits a register of it
  // in two (which would grow the set past N).
  const Intervals iv = formIntervals(fn, n, true);
  {
    std::vector<std::array<int, 256>> first(iv.intervals.size());
    for (auto& f : first) f.fill(-1);
    for (size_t s = 0; s < iv.segments.size(); ++s) {
      const Segment& seg = iv.segments[s];
      auto& f = first[iv.interval_of[s]];
      for (uint32_t i = seg.begin; i < seg.end; ++i)
        for (int x : slot_nodes[seg.block][i]) {
          if (x < 0) continue;
          int& y = f[reg_of[x]];
          if (y < 0) y = x;
          else uf.unite(x, y);
        }
    }
  }

  // Webs by root.
  std::vector<int> web_of(uf.size(), -1);
  std::vector<int> roots;
  for (size_t x = 0; x < uf.size(); ++x) {
    const int r = uf.find(static_cast<int>(x));
    if (web_of[r] < 0) {
      web_of[r] = static_cast<int>(roots.size());
      roots.push_back(r);
    }
  }
  const size_t nw = roots.size();
  std::vector<uint8_t> wfixed(nw, 0);
  std::vector<uint32_t> wreg(nw, 0);
  for (size_t x = 0; x < uf.size(); ++x) {
    const int w = web_of[uf.find(static_cast<int>(x))];
    wfixed[w] |= fixed[x];
    wreg[w] = reg_of[x];
  }
  auto webOf = [&](int x) { return web_of[uf.find(x)]; };
  std::vector<uint8_t> wcall(nw, 0);
  for (size_t x = 0; x < uf.size(); ++x) wcall[webOf(static_cast<int>(x))] |= across_call[x];

  // Units: the webs joined by 64-bit operands (an aligned pair, and every web
  // either half meets in another pair) move together by an even distance;
  // every other web is a unit of its own. A unit with a fixed web is fixed.
  UnionFind pair_uf;
  for (size_t w = 0; w < nw; ++w) pair_uf.add();
  for (auto [lo, hi] : pairs) pair_uf.unite(webOf(lo), webOf(hi));
  std::vector<int> unit_of(nw, -1);
  std::vector<std::vector<int>> units;
  for (size_t w = 0; w < nw; ++w) {
    int& u = unit_of[pair_uf.find(static_cast<int>(w))];
    if (u < 0) {
      u = static_cast<int>(units.size());
      units.emplace_back();
    }
    unit_of[w] = u;
    units[u].push_back(static_cast<int>(w));
  }
  std::vector<uint8_t> ufixed(units.size(), 0), paired(nw, 0);
  for (size_t u = 0; u < units.size(); ++u)
    for (int w : units[u]) ufixed[u] |= wfixed[w], paired[w] = units[u].size() > 1;
  for (size_t w = 0; w < nw; ++w) wfixed[w] = ufixed[unit_of[w]];
  std::vector<std::set<int>> inter(nw);
  for (auto [a, b] : interfere) {
    const int x = webOf(a), y = webOf(b);
    if (x != y) inter[x].insert(y), inter[y].insert(x);
  }

  // The interval conflict graph.
  std::vector<std::set<int>> icg(nw);
  std::vector<std::set<int>> named(iv.intervals.size());
  for (size_t s = 0; s < iv.segments.size(); ++s) {
    const Segment& seg = iv.segments[s];
    for (uint32_t i = seg.begin; i < seg.end; ++i)
      for (int x : slot_nodes[seg.block][i])
        if (x >= 0) named[iv.interval_of[s]].insert(webOf(x));
  }
  for (const auto& set : named)
    for (int a : set)
      for (int b : set)
        if (a < b && wreg[a] != wreg[b]) {
          if (icg[a].insert(b).second) ++res.icg_edges;
          icg[b].insert(a);
        }
  res.webs = static_cast<uint32_t>(nw);

  // Chaitin's order over the webs that may move alone, then a balanced
  // colouring; fixed webs and pairs keep their bank as their colour here
  // (pairs are placed by the refinement below, which moves them whole).
  std::vector<int> colour(nw, -1);
  std::vector<uint32_t> uses(banks, 0);
  std::vector<uint8_t> pinned(nw, 0);
  size_t npinned = 0;
  for (size_t w = 0; w < nw; ++w) {
    res.fixed += wfixed[w];
    pinned[w] = wfixed[w] || paired[w];
    if (pinned[w]) colour[w] = static_cast<int>(bm.bank(wreg[w])), ++npinned;
  }
  std::vector<int> order, degree(nw, 0);
  std::vector<uint8_t> gone(nw, 0);
  for (size_t w = 0; w < nw; ++w)
    if (!pinned[w])
      for (int o : icg[w]) degree[w] += !pinned[o];
  for (size_t left = nw - npinned; left > 0; --left) {
    int pick = -1;
    for (size_t w = 0; w < nw; ++w) {
      if (pinned[w] || gone[w]) continue;
      if (degree[w] < static_cast<int>(banks)) {
        pick = static_cast<int>(w);
        break;
      }
      if (pick < 0 || degree[w] > degree[pick]) pick = static_cast<int>(w);  // optimistic
    }
    gone[pick] = 1;
    order.push_back(pick);
    for (int o : icg[pick]) --degree[o];
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int w = *it;
    std::vector<uint32_t> near(banks, 0);
    for (int o : icg[w])
      if (colour[o] >= 0) ++near[colour[o]];
    int best = -1;
    for (uint32_t c = 0; c < banks; ++c)
      if (best < 0 || near[c] < near[best] || (near[c] == near[best] && uses[c] < uses[best])) best = static_cast<int>(c);
    colour[w] = best;
    ++uses[best];
  }
  for (size_t w = 0; w < nw; ++w)
    for (int o : icg[w])
      if (static_cast<int>(w) < o && colour[w] == colour[o]) ++res.same_colour;

  // Registers: fixed webs keep theirs; the others, in colouring order.
  // A kernel may use registers up to the end of its allocation granule
  // (8 registers a thread: 256 a warp) without changing its occupancy; a
  // called function stays below its own highest (the kernel's count is the
  // largest of its call tree's).
  uint32_t limit = max_reg;
  if (fn.is_entry) limit = std::min<uint32_t>((max_reg + 1 + reserved + 7) / 8 * 8 - 1 - reserved, mach::kRZ - 1);
  const bool calls = !fn.calls.empty();
  const mach::Abi abi;
  auto candidate = [&](uint32_t r) {
    if (r == mach::kSP || r > limit) return false;
    if (!fn.is_entry && abi.calleeSaved(r) && !used.test(r)) return false;  // not saved by the function
    if (calls && (r == mach::kRetAddr || r == mach::kRetAddr + 1)) return false;
    return true;
  };
  // A web may take register r: its own, or a candidate that, when the web
  // is live across a call, is callee-saved.
  auto okReg = [&](int w, uint32_t r) {
    return r == wreg[w] || (candidate(r) && (!wcall[w] || abi.calleeSaved(r)));
  };
  // Every web holds a register at every step, the others their original
  // ones until they move: a web moves only to a register none of the webs
  // it interferes with holds, so the code stays correct after each move
  // and a web can always keep its own.
  std::vector<int> assigned(nw);
  for (size_t w = 0; w < nw; ++w) assigned[w] = static_cast<int>(wreg[w]);
  auto free = [&](int w, uint32_t r) {
    for (int o : inter[w])
      if (assigned[o] == static_cast<int>(r)) return false;
    return true;
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int w = *it;
    const uint32_t c = static_cast<uint32_t>(colour[w]);
    if (bm.bank(wreg[w]) == c) continue;
    bool moved = false;
    for (uint32_t r = 0; !moved && r <= limit; ++r)
      if (bm.bank(r) == c && okReg(w, r) && free(w, r)) {
        assigned[w] = static_cast<int>(r);
        moved = true;
      }
    // Or a swap with the one web in the way, when that loses it nothing:
    // it takes this one's register, which is free for it and of its own
    // colour (or it was off its colour anyway).
    for (uint32_t r = 0; !moved && r <= limit; ++r) {
      if (bm.bank(r) != c || !okReg(w, r)) continue;
      int blocker = -1, count = 0;
      for (int o : inter[w])
        if (assigned[o] == static_cast<int>(r)) blocker = o, ++count;
      if (count != 1 || pinned[blocker]) continue;
      const uint32_t mine = static_cast<uint32_t>(assigned[w]);
      const bool its_colour_kept = bm.bank(mine) == static_cast<uint32_t>(colour[blocker]) ||
                                   bm.bank(static_cast<uint32_t>(assigned[blocker])) != static_cast<uint32_t>(colour[blocker]);
      if (!its_colour_kept || !okReg(blocker, mine)) continue;
      assigned[w] = -1;  // out of the way while the blocker is checked
      const bool ok = free(blocker, mine);
      assigned[w] = static_cast<int>(mine);
      if (!ok) continue;
      assigned[blocker] = static_cast<int>(mine);
      assigned[w] = static_cast<int>(r);
      moved = true;
    }
    if (!moved) ++res.off_colour;  // keeps its own register
  }

  // Refinement: a unit shifted by a distance (even for a pair, so that it
  // stays aligned), or two units swapped (the one in the way shifted back
  // by the same distance), each taken when it lowers the same-bank
  // registers of the intervals its live ranges are named in (the colouring
  // is a heuristic; this measures the objective itself), until no move
  // helps or a few rounds.
  {
    const size_t ni = named.size();
    std::vector<std::vector<int>> in_of(nw);
    for (size_t k = 0; k < ni; ++k)
      for (int u : named[k]) in_of[u].push_back(static_cast<int>(k));
    std::vector<std::vector<uint32_t>> cnt(ni, std::vector<uint32_t>(banks, 0));
    for (size_t k = 0; k < ni; ++k)
      for (int u : named[k]) ++cnt[k][bm.bank(static_cast<uint32_t>(assigned[u]))];
    std::vector<int> pos(nw, -1);  // a tentative register, -1: none
    auto at = [&](int w) { return pos[w] >= 0 ? pos[w] : assigned[w]; };
    // The webs of `us` shifted by `d`s: legal, and the change in conflicts.
    struct Move {
      int u, d;
    };
    auto trial = [&](const std::vector<Move>& ms, int& delta) {
      bool ok = true;
      std::vector<int> moved_webs;
      for (const Move& m : ms)
        for (int w : units[m.u]) {
          const int r = assigned[w] + m.d;
          if (r < 0 || !okReg(w, static_cast<uint32_t>(r))) ok = false;
          pos[w] = r;
          moved_webs.push_back(w);
        }
      for (int w : moved_webs)
        for (int o : inter[w])
          if (ok && at(o) == pos[w]) ok = false;
      delta = 0;
      if (ok) {
        std::set<int> ks;
        for (int w : moved_webs) ks.insert(in_of[w].begin(), in_of[w].end());
        auto cost = [&](int k) {
          int c = 0;
          for (uint32_t n : cnt[k]) c += n > 1 ? static_cast<int>(n) - 1 : 0;
          return c;
        };
        for (int k : ks) delta -= cost(k);
        for (int w : moved_webs)
          for (int k : in_of[w]) --cnt[k][bm.bank(static_cast<uint32_t>(assigned[w]))], ++cnt[k][bm.bank(static_cast<uint32_t>(pos[w]))];
        for (int k : ks) delta += cost(k);
        for (int w : moved_webs)
          for (int k : in_of[w]) ++cnt[k][bm.bank(static_cast<uint32_t>(assigned[w]))], --cnt[k][bm.bank(static_cast<uint32_t>(pos[w]))];
      }
      for (int w : moved_webs) pos[w] = -1;
      return ok;
    };
    auto apply = [&](const std::vector<Move>& ms) {
      for (const Move& m : ms)
        for (int w : units[m.u]) {
          const uint32_t r = static_cast<uint32_t>(assigned[w] + m.d);
          for (int k : in_of[w]) --cnt[k][bm.bank(static_cast<uint32_t>(assigned[w]))], ++cnt[k][bm.bank(r)];
          assigned[w] = static_cast<int>(r);
        }
    };
    for (int round = 0; round < 8; ++round) {
      bool better = false;
      for (size_t u = 0; u < units.size(); ++u) {
        if (ufixed[u]) continue;
        const std::vector<int>& mem = units[u];
        if (std::all_of(mem.begin(), mem.end(), [&](int w) { return in_of[w].empty(); })) continue;
        const int step = mem.size() > 1 ? 2 : 1;
        const int base = assigned[mem[0]];
        int best = 0;
        std::vector<Move> best_ms;
        for (int r = (base % step); r <= static_cast<int>(limit); r += step) {
          const int d = r - base;
          if (d == 0) continue;
          std::vector<Move> ms{{static_cast<int>(u), d}};
          int delta = 0;
          if (!trial(ms, delta)) {
            // The one unit in the way, shifted back by d (even when either is a pair).
            int blocker = -1;
            bool one = true;
            for (int w : mem)
              for (int o : inter[w])
                if (unit_of[o] != static_cast<int>(u) && assigned[o] == assigned[w] + d) {
                  if (blocker >= 0 && blocker != unit_of[o]) one = false;
                  blocker = unit_of[o];
                }
            if (!one || blocker < 0 || ufixed[blocker] || (d % 2 && units[blocker].size() > 1)) continue;
            ms.push_back({blocker, -d});
            if (!trial(ms, delta)) continue;
          }
          if (delta < best) best = delta, best_ms = ms;
        }
        if (best_ms.empty()) continue;
        apply(best_ms);
        better = true;
      }
      if (!better) break;
    }
  }

  // Rewrite the slots of the webs that moved.
  for (size_t b = 0; b < nb; ++b) {
    auto& code = fn.blocks[b].instrs;
    for (size_t i = 0; i < code.size(); ++i) {
      size_t k = 0;
      const std::vector<int>& sn = slot_nodes[b][i];
      backend::forEachSlot(code[i], fn, [&](const backend::Slot& s) {
        const int x = k < sn.size() ? sn[k] : -1;
        ++k;
        if (x < 0) return;
        const int w = webOf(x);
        if (!wfixed[w] && assigned[w] >= 0) *s.reg = static_cast<uint32_t>(assigned[w]);
      });
    }
  }
  for (size_t w = 0; w < nw; ++w) res.moved += !wfixed[w] && assigned[w] != static_cast<int>(wreg[w]);
  return res;
}

}  // namespace

ConflictCount bankConflicts(const ptx::Function& fn, uint32_t n, const BankMapping& bm) {
  ConflictCount c;
  const Intervals iv = formIntervals(fn, n, true);
  for (const Interval& i : iv.intervals) {
    if (i.regs.count() == 0) continue;
    std::vector<uint32_t> per(bm.banks, 0);
    for (uint32_t r : i.regs.members()) ++per[bm.bank(r)];
    const uint32_t most = *std::max_element(per.begin(), per.end());
    ++c.intervals;
    if (most <= 1) ++c.conflict_free;
    c.max_conflicts = std::max(c.max_conflicts, most - 1);
  }
  return c;
}

}  // namespace rfsim::mech::ltrf
