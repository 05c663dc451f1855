// List scheduling before allocation (prealloc.h).
//
// ptxas schedules each block for latency before it allocates: a tile load
// written as 16 load/store pairs becomes 16 loads then 16 stores, an
// unrolled inner product loads all its operands first, and the registers
// those loads keep in flight are what makes its counts higher than a
// PTX-order allocation on such kernels (docs/backend.md). This pass does the
// same over the lowered function: a dependence graph per block, then the
// ready instruction with the longest latency-weighted path to the block's
// end first, under a bound on the values it keeps live.
//
// Dependences kept:
//   * registers: read after write (with the producer's latency), write after
//     read, write after write, on virtual and physical registers alike (a
//     guarded write also reads the old value); the carry flag of add.cc /
//     addc chains;
//   * memory: a store against every earlier or later access that may alias
//     it (same state space or generic; different constant offsets from the
//     same base register do not alias; kernel-parameter, constant and .nc
//     loads never alias a store), volatile accesses in order;
//   * order points, which nothing crosses: barriers, fences, atomics, calls,
//     warp-synchronous instructions (shfl, vote, activemask, match), clock
//     reads, mechanism extensions, and the block's branch/ret/exit, which
//     stays last.
//
// Stores go early: ptxas issues a store as soon as its operands are ready
// rather than keeping its address and data live to the block's end (dwt2d's
// rdwt53 kernels: eight STG of computed values, each right after its value,
// 46 registers; at the end, as their low height puts them, 57). A ready
// store is taken first when it frees registers, its operands would be ready
// by now in an in-order issue of the schedule so far (one instruction a
// cycle, memory instructions two cycles apart, each result after its
// latency), no load depends on it, and it stores nothing a load produced
// in this block (ptxas hoists a tile copy's loads and then stores them: a
// copy's stores stay where their height puts them).
#include <algorithm>

#include "backend/prealloc.h"
#include "backend/ra_internal.h"

namespace rfsim::backend {

namespace {

using ptx::Op;
using ptx::OperandKind;
using ptx::Space;

// Latency-weights of the priority (cycles, Volta-like: the SM's own are the
// pipeline.*_latency keys, docs/sm.md; only their order matters here).
uint32_t latencyOf(const ptx::Instr& in) {
  switch (in.op) {
    case Op::Ld: case Op::Ldu:
      switch (in.space) {
        case Space::Shared: return 30;
        case Space::Param: case Space::Const: return 12;
        default: return 300;  // global, local, generic
      }
    case Op::Div: case Op::Rem: case Op::Rcp: case Op::Sqrt: case Op::Rsqrt: case Op::Ex2: case Op::Lg2:
    case Op::Sin: case Op::Cos: case Op::Tanh:
      return ptx::typeBits(in.type) == 64 ? 60 : 20;
    default: break;
  }
  if (ptx::isFloat(in.type) && ptx::typeBits(in.type) == 64) return 8;
  return 5;
}

bool readsClock(const ptx::Instr& in) {
  for (unsigned k = 0; k < in.nsrc; ++k) {
    const ptx::SReg s = in.src[k].sreg;
    if (in.src[k].kind == OperandKind::SReg &&
        (s == ptx::SReg::Clock || s == ptx::SReg::Clock64 || s == ptx::SReg::GlobalTimer))
      return true;
  }
  return false;
}

bool orderPoint(const ptx::Instr& in) {
  switch (in.op) {
    case Op::Bar: case Op::Membar: case Op::Fence: case Op::Atom: case Op::Red: case Op::Call: case Op::Ret:
    case Op::Exit: case Op::Trap: case Op::Brkpt: case Op::Bra: case Op::Shfl: case Op::Vote:
    case Op::Activemask: case Op::Match: case Op::Nanosleep: case Op::Ext: case Op::Prefetch:
      return true;
    default:
      return readsClock(in);
  }
}

struct MemRef {
  bool is = false, store = false, never_aliased = false, ordered = false;
  Space space = Space::None;
  uint32_t base = ptx::kNoReg;  // base register value id, or kNoReg (a symbol or absolute address)
  uint32_t sym = ptx::kNoSym;
  int64_t lo = 0, hi = 0;       // [lo, hi) bytes from the base
};

MemRef memRef(const ptx::Instr& in) {
  MemRef r;
  if (in.op != Op::Ld && in.op != Op::Ldu && in.op != Op::St) return r;
  r.is = true;
  r.store = in.op == Op::St;
  r.space = in.space == Space::None ? Space::Generic : in.space;
  r.never_aliased = !r.store && (r.space == Space::Param || r.space == Space::Const || in.mods.nc ||
                                 in.op == Op::Ldu);
  r.ordered = in.mods.volatile_ || in.mods.relaxed_or_stronger;
  const ptx::Operand& a = in.src[0];
  if (a.kind == OperandKind::Addr && !in.mods.uaddr) {
    r.base = a.regs[0];
    r.sym = a.regs[0] == ptx::kNoReg ? a.sym : ptx::kNoSym;
    r.lo = a.imm;
    r.hi = a.imm + int64_t{ptx::typeBits(in.type) / 8} * std::max<uint8_t>(1, in.mods.vec);
  } else {
    // Unknown (an address addend too: two accesses from one base may add
    // different offsets): aliases everything of its space.
    r.base = ptx::kNoReg - 1;
  }
  return r;
}

bool mayAlias(const MemRef& a, const MemRef& b) {
  if (!a.store && !b.store) return a.ordered && b.ordered;
  if (a.never_aliased || b.never_aliased) return false;
  const bool gen = a.space == Space::Generic || b.space == Space::Generic;
  if (!gen && a.space != b.space) return false;
  if (a.ordered && b.ordered) return true;
  // Same base register (same value: the dependence graph orders its
  // redefinitions) or same symbol, disjoint byte ranges: no overlap.
  const bool same_base = a.base != ptx::kNoReg - 1 && a.base == b.base &&
                         (a.base != ptx::kNoReg || a.sym == b.sym);
  if (same_base && (a.hi <= b.lo || b.hi <= a.lo)) return false;
  return true;
}

constexpr uint64_t kMemIssueInterval = 2;  // cycles between two memory instructions in the issue estimate

struct Node {
  std::vector<std::pair<uint32_t, uint32_t>> succ;  // (node, latency)
  uint32_t npred = 0;
  uint64_t height = 0;
};

}  // namespace

ScheduleStats scheduleBlocks(MFunction& mf, uint32_t reg_target, bool stores_early) {
  ScheduleStats st;
  ra::ValueSpace vs;
  vs.nv = static_cast<uint32_t>(mf.vbits.size());
  const ra::BlockLive live = ra::solveLiveness(mf, vs);
  auto units = [&](uint32_t idx) -> uint32_t {
    if (idx >= vs.nv) return 0;  // physical registers are the convention's, not the allocator's
    return mf.vbits[idx] == 1 ? 0 : mf.vbits[idx] == 64 ? 2 : 1;
  };
  const uint32_t cc = vs.size();  // the carry flag, as one more value
  // Per value, reset after each block (only the entries a block touched).
  std::vector<int32_t> last_def(vs.size() + 1, -1);
  std::vector<std::vector<uint32_t>> readers(vs.size() + 1);
  std::vector<uint32_t> remaining(vs.size() + 1, 0);
  std::vector<uint32_t> touched;
  for (uint32_t b = 0; b < mf.fn.blocks.size(); ++b) {
    for (uint32_t v : touched) {
      last_def[v] = -1;
      readers[v].clear();
      remaining[v] = 0;
    }
    touched.clear();
    std::vector<ptx::Instr>& code = mf.fn.blocks[b].instrs;
    const uint32_t n = static_cast<uint32_t>(code.size());
    if (n < 3) continue;
    std::vector<ra::InstrEffects> eff(n);
    std::vector<MemRef> mem(n);
    std::vector<Node> g(n);
    std::vector<bool> loaded(n, false);  // reads a value a load in this block produced
    auto edge = [&](uint32_t from, uint32_t to, uint32_t lat) {
      if (from == to) return;
      if (lat > 1 && mem[from].is && !mem[from].store) loaded[to] = true;
      g[from].succ.push_back({to, lat});
      ++g[to].npred;
    };
    // Register dependences through the last writer and the readers since.
    int32_t last_order = -1;
    std::vector<uint32_t> since_order;  // instructions after the last order point
    std::vector<uint32_t> mem_ops;
    for (uint32_t i = 0; i < n; ++i) {
      ptx::Instr& in = code[i];
      ra::instrEffects(mf, in, vs, eff[i]);
      std::vector<uint32_t> uses = eff[i].uses;
      std::vector<uint32_t> defs;
      for (const ra::Def& d : eff[i].defs) {
        defs.push_back(d.idx);
        if (d.guarded) uses.push_back(d.idx);
      }
      if (in.mods.carry_in) uses.push_back(cc);
      if (in.mods.cc) defs.push_back(cc);
      touched.insert(touched.end(), uses.begin(), uses.end());
      touched.insert(touched.end(), defs.begin(), defs.end());
      for (uint32_t u : uses)
        if (last_def[u] >= 0) edge(static_cast<uint32_t>(last_def[u]), i, latencyOf(code[last_def[u]]));
      for (uint32_t d : defs) {
        if (last_def[d] >= 0) edge(static_cast<uint32_t>(last_def[d]), i, 1);
        for (uint32_t r : readers[d]) edge(r, i, 0);
      }
      for (uint32_t u : uses) readers[u].push_back(i);
      for (uint32_t d : defs) {
        last_def[d] = static_cast<int32_t>(i);
        readers[d].clear();
      }
      // Order points (the block's branch, ret or exit among them, so it stays last).
      if (orderPoint(in) || eff[i].is_call || eff[i].ends_path) {
        for (uint32_t j : since_order) edge(j, i, 0);
        if (last_order >= 0) edge(static_cast<uint32_t>(last_order), i, 0);
        last_order = static_cast<int32_t>(i);
        since_order.clear();
      } else {
        if (last_order >= 0) edge(static_cast<uint32_t>(last_order), i, 0);
        since_order.push_back(i);
      }
      mem[i] = memRef(in);
      if (mem[i].is) {
        for (uint32_t j : mem_ops)
          if (mayAlias(mem[j], mem[i])) edge(j, i, 0);
        mem_ops.push_back(i);
      }
    }
    // Heights, bottom-up (edges go forward in program order).
    for (uint32_t i = n; i-- > 0;) {
      uint64_t h = 0;
      for (auto [s, lat] : g[i].succ) h = std::max(h, g[s].height + lat);
      g[i].height = h + (g[i].succ.empty() ? latencyOf(code[i]) : 0);
    }

    // Live values: those live out of the block, and the block's own until
    // their last read here.
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t u : eff[i].uses) ++remaining[u];
    const ra::BitSet& out = live.out[b];
    ra::BitSet cur = live.in[b];
    uint32_t pressure = 0;
    cur.forEach([&](uint32_t v) { pressure += units(v); });

    std::vector<uint32_t> ready, seq;
    seq.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
      if (g[i].npred == 0) ready.push_back(i);
    // The change in live values scheduling `i` now makes.
    auto delta = [&](uint32_t i) -> int32_t {
      int32_t d = 0;
      for (const ra::Def& df : eff[i].defs)
        if (!cur.test(df.idx) && (remaining[df.idx] > 0 || out.test(df.idx))) d += static_cast<int32_t>(units(df.idx));
      for (uint32_t u : eff[i].uses)
        if (remaining[u] == 1 && !out.test(u) && cur.test(u)) d -= static_cast<int32_t>(units(u));
      return d;
    };
    // The in-order issue estimate: the cycle the next instruction could
    // issue, the earliest each instruction's operands are ready, and the
    // next free memory issue slot.
    std::vector<uint64_t> earliest(n, 0);
    uint64_t cycle = 0, mem_free = 0;
    auto issueAt = [&](uint32_t i) { return std::max(earliest[i], mem[i].is ? mem_free : 0); };
    auto storeFirst = [&](uint32_t i) {
      if (!mem[i].store || loaded[i] || earliest[i] > cycle || delta(i) >= 0) return false;
      for (auto [s, lat] : g[i].succ)
        if (mem[s].is && !mem[s].store) return false;
      return true;
    };
    while (!ready.empty()) {
      const bool tight = reg_target && pressure + 2 >= reg_target;
      size_t best = 0;
      int32_t best_d = tight ? delta(ready[0]) : 0;
      bool early = false;
      if (!tight && stores_early)
        for (size_t k = 0; k < ready.size() && !early; ++k)
          if (storeFirst(ready[k])) best = k, early = true;
      for (size_t k = 1; k < ready.size() && !early; ++k) {
        const uint32_t i = ready[k], j = ready[best];
        if (tight) {
          const int32_t d = delta(i);
          if (d < best_d || (d == best_d && i < j)) {
            best = k;
            best_d = d;
          }
        } else if (g[i].height > g[j].height || (g[i].height == g[j].height && i < j)) {
          best = k;
        }
      }
      const uint32_t i = ready[best];
      const uint64_t at = std::max(cycle, issueAt(i));
      if (mem[i].is) mem_free = at + kMemIssueInterval;
      cycle = at + 1;
      for (auto [s, lat] : g[i].succ) earliest[s] = std::max(earliest[s], at + lat);
      ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
      seq.push_back(i);
      for (uint32_t u : eff[i].uses)
        if (remaining[u] && --remaining[u] == 0 && !out.test(u) && cur.test(u)) {
          cur.reset(u);
          pressure -= units(u);
        }
      for (const ra::Def& df : eff[i].defs)
        if (!cur.test(df.idx) && (remaining[df.idx] > 0 || out.test(df.idx))) {
          cur.set(df.idx);
          pressure += units(df.idx);
        }
      for (auto [s, lat] : g[i].succ)
        if (--g[s].npred == 0) ready.push_back(s);
    }
    if (seq.size() != n) continue;  // cannot happen: the graph is acyclic (edges go forward)
    bool changed = false;
    std::vector<ptx::Instr> re;
    re.reserve(n);
    for (uint32_t k = 0; k < n; ++k) {
      if (seq[k] != k) ++st.moved, changed = true;
      re.push_back(std::move(code[seq[k]]));
    }
    code = std::move(re);
    st.blocks += changed;
  }
  return st;
}

}  // namespace rfsim::backend
