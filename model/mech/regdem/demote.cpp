#include "mech/regdem/demote.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "backend/backend.h"
#include "backend/mfunction.h"
#include "common/error.h"
#include "config/occupancy.h"
#include "ptx/analysis/loops.h"
#include "ptx/machine.h"

namespace rfsim::regdem {

namespace mach = ptx::mach;
using backend::Slot;

namespace {

// Registers the pass gives RDV (a pair) and RDA while it rewrites the code;
// compaction then moves them into the gaps the demoted registers left.
constexpr uint32_t kTmpRdv = 250;
constexpr uint32_t kTmpRda = 252;

void eachSlot(const ptx::Instr& in, const ptx::Function& fn, const std::function<void(const Slot&)>& f) {
  backend::forEachSlot(const_cast<ptx::Instr&>(in), const_cast<ptx::Function&>(fn), f);
}

// The general registers of `fn` grouped into units (R1 and RZ left out).
struct Units {
  std::vector<Unit> list;
  std::vector<int32_t> of = std::vector<int32_t>(mach::kNumGpr, -1);  // register -> unit
};

Units unitsOf(const ptx::Function& fn) {
  std::vector<bool> used(mach::kNumGpr, false), pair(mach::kNumGpr, false);
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs)
      eachSlot(in, fn, [&](const Slot& s) {
        const uint32_t r = *s.reg;
        if (r >= mach::kRZ) return;
        used[r] = true;
        if (s.mbits == 64 && r + 1 < mach::kRZ) {
          pair[r & ~1u] = true;
          used[r | 1u] = true;
        }
      });
  Units u;
  for (uint32_t r = 0; r < mach::kRZ; ++r) {
    if (r == mach::kSP || !used[r]) continue;
    if ((r & 1u) == 0 && pair[r] && r + 1 != mach::kSP) {
      u.of[r] = u.of[r + 1] = static_cast<int32_t>(u.list.size());
      u.list.push_back({r, 2});
      ++r;
    } else {
      u.of[r] = static_cast<int32_t>(u.list.size());
      u.list.push_back({r, 1});
    }
  }
  return u;
}

// The units an instruction touches (each once).
std::vector<int32_t> touched(const ptx::Instr& in, const ptx::Function& fn, const Units& u) {
  std::vector<int32_t> t;
  eachSlot(in, fn, [&](const Slot& s) {
    if (*s.reg >= mach::kRZ) return;
    const int32_t k = u.of[*s.reg];
    if (k >= 0 && std::find(t.begin(), t.end(), k) == t.end()) t.push_back(k);
  });
  return t;
}

// Section 3.3's relocation: units in order, each shifted into the lowest
// free slot (a pair into the lowest free aligned pair: the swap). R1 stays.
// Returns the new first register of each unit and sets `top` to the count.
std::vector<uint32_t> pack(const std::vector<Unit>& units, uint32_t* top) {
  std::vector<bool> taken(mach::kRZ, false);
  taken[mach::kSP] = true;
  std::vector<uint32_t> at(units.size(), 0);
  uint32_t hi = mach::kSP + 1;
  for (size_t i = 0; i < units.size(); ++i) {
    uint32_t r = 0;
    if (units[i].size == 2) {
      while (r + 1 < mach::kRZ && (taken[r] || taken[r + 1])) r += 2;
    } else {
      while (r < mach::kRZ && taken[r]) ++r;
    }
    if (r + units[i].size > mach::kRZ) throw Error("regdem: compaction ran out of registers");
    for (uint32_t k = 0; k < units[i].size; ++k) taken[r + k] = true;
    at[i] = r;
    hi = std::max(hi, r + units[i].size);
  }
  *top = hi;
  return at;
}

// The bank-aware variant (sections 3.3 and 3.4.2): each register slot in
// turn takes, of the next `banks` units still to place, the first in the
// slot's bank (register % banks), else the first that fits there (a pair
// needs an even slot); a slot nothing fits stays empty.
std::vector<uint32_t> packBanked(const std::vector<Unit>& units, uint32_t* top, uint32_t banks) {
  std::vector<uint32_t> at(units.size(), 0);
  std::vector<size_t> left(units.size());
  for (size_t i = 0; i < units.size(); ++i) left[i] = i;
  std::vector<bool> taken(mach::kRZ, false);
  taken[mach::kSP] = true;
  uint32_t hi = mach::kSP + 1;
  for (uint32_t slot = 0; slot < mach::kRZ && !left.empty(); ++slot) {
    if (taken[slot]) continue;
    auto fits = [&](const Unit& u) {
      return u.size == 1 || (slot % 2 == 0 && slot + 1 < mach::kRZ && !taken[slot + 1]);
    };
    size_t pick = left.size();
    const size_t window = std::min<size_t>(banks, left.size());
    for (size_t k = 0; k < window && pick == left.size(); ++k)
      if (units[left[k]].first % banks == slot % banks && fits(units[left[k]])) pick = k;
    for (size_t k = 0; k < window && pick == left.size(); ++k)
      if (fits(units[left[k]])) pick = k;
    if (pick == left.size()) continue;
    const Unit& u = units[left[pick]];
    at[left[pick]] = slot;
    for (uint32_t k = 0; k < u.size; ++k) taken[slot + k] = true;
    hi = std::max(hi, slot + u.size);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  if (!left.empty()) throw Error("regdem: compaction ran out of registers");
  *top = hi;
  return at;
}

bool contains(const std::vector<Unit>& v, const Unit& u) {
  return std::any_of(v.begin(), v.end(), [&](const Unit& x) { return x.first == u.first; });
}

// Rewrites `fn`: every unit of `demoted` through RDV and its shared slots.
void rewrite(ptx::Function& fn, backend::SlotValues& values, const std::vector<Unit>& demoted, uint32_t threads,
             uint32_t area_sym, Decision& d) {
  std::vector<int32_t> word_of(mach::kNumGpr, -1);  // register -> its shared slot ordinal
  std::vector<int32_t> rdv_of(mach::kNumGpr, -1);   // register -> RDV word
  uint32_t words = 0;
  for (const Unit& u : demoted)
    for (uint32_t k = 0; k < u.size; ++k) {
      word_of[u.first + k] = static_cast<int32_t>(words++);
      rdv_of[u.first + k] = static_cast<int32_t>(kTmpRdv + k);
    }
  const int64_t stride = int64_t{threads} * 4;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    auto& code = fn.blocks[b].instrs;
    auto& vals = values[b];
    std::vector<ptx::Instr> out;
    std::vector<std::vector<uint32_t>> out_vals;
    out.reserve(code.size());
    for (size_t i = 0; i < code.size(); ++i) {
      ptx::Instr& in = code[i];
      uint32_t reads = 0, writes = 0;  // bit k: the slot of word ordinal first+k
      int32_t first = -1;
      bool guarded = false, writes_guard = false;
      backend::forEachSlot(in, fn, [&](const Slot& s) {
        const uint32_t r = *s.reg;
        if (s.def && in.guard.kind == ptx::OperandKind::Reg && r == in.guard.regs[0]) writes_guard = true;
        if (r >= mach::kRZ) return;
        const unsigned n = s.mbits == 64 ? 2 : 1;
        for (unsigned k = 0; k < n; ++k) {
          const int32_t w = word_of[r + k];
          if (w < 0) continue;
          const int32_t base = word_of[r + k] - static_cast<int32_t>(rdv_of[r + k] - kTmpRdv);
          first = base;
          const uint32_t bit = 1u << (rdv_of[r + k] - kTmpRdv);
          if (!s.def) reads |= bit;
          else if (s.operand != 11) writes |= bit, guarded = guarded || s.guarded;  // 11: expansion scratch
        }
        if (word_of[r] >= 0) *s.reg = static_cast<uint32_t>(rdv_of[r]);
      });
      if (first < 0) {
        out.push_back(in);
        out_vals.push_back(vals[i]);
        continue;
      }
      // A guarded write whose guard the instruction itself changes cannot
      // guard its store: the old value is loaded first instead.
      if (guarded && writes_guard) reads |= writes;
      for (uint32_t k = 0; k < 2; ++k)
        if (reads & (1u << k)) {
          out.push_back(sharedAccess(false, kTmpRdv + k, kTmpRda, (first + int64_t{k}) * stride));
          out.back().loc = in.loc;
          out_vals.push_back(noValues(out.back(), fn));
          ++d.loads;
        }
      out.push_back(in);
      out_vals.push_back(vals[i]);
      for (uint32_t k = 0; k < 2; ++k)
        if (writes & (1u << k)) {
          ptx::Instr st = sharedAccess(true, kTmpRdv + k, kTmpRda, (first + int64_t{k}) * stride);
          st.loc = in.loc;
          if (guarded && !writes_guard) st.guard = in.guard;
          out_vals.push_back(noValues(st, fn));
          out.push_back(st);
          ++d.stores;
        }
    }
    code = std::move(out);
    vals = std::move(out_vals);
  }
  // RDA's one-time setup at the kernel's entry.
  std::vector<ptx::Instr> setup = rdaSetup(fn, kTmpRda, kTmpRdv, area_sym);
  auto& entry = fn.blocks[0];
  std::vector<std::vector<uint32_t>> setup_vals;
  for (auto& in : setup) {
    in.loc = entry.instrs.empty() ? fn.loc : entry.instrs.front().loc;
    setup_vals.push_back(noValues(in, fn));
  }
  entry.instrs.insert(entry.instrs.begin(), setup.begin(), setup.end());
  values[0].insert(values[0].begin(), setup_vals.begin(), setup_vals.end());
  d.words = words;
}

// Post-pass (section 3.4.2, "redundant code elimination", loads): within a
// block, a demoted load into an RDV word that already holds that slot's
// value (an earlier load of it, or an unguarded store of it, with no write
// of the word between) is dropped. Returns how many were.
uint32_t dropRedundantLoads(ptx::Function& fn, backend::SlotValues& values) {
  uint32_t dropped = 0;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    auto& code = fn.blocks[b].instrs;
    auto& vals = values[b];
    int64_t held[2] = {-1, -1};  // per RDV word: the slot offset it holds, or -1
    for (size_t i = 0; i < code.size();) {
      ptx::Instr& in = code[i];
      if (in.role == ptx::MRole::DemLoad) {
        const uint32_t k = in.dst[0].regs[0] - kTmpRdv;
        if (held[k] == in.src[0].imm) {
          code.erase(code.begin() + static_cast<std::ptrdiff_t>(i));
          vals.erase(vals.begin() + static_cast<std::ptrdiff_t>(i));
          ++dropped;
          continue;
        }
        held[k] = in.src[0].imm;
      } else if (in.role == ptx::MRole::DemStore) {
        const uint32_t k = in.src[1].regs[0] - kTmpRdv;
        // A guarded store may not run: the slot keeps its old value.
        held[k] = in.guard.kind == ptx::OperandKind::Reg ? -1 : in.src[0].imm;
      } else {
        backend::forEachSlot(in, fn, [&](const Slot& s) {
          if (!s.def) return;
          const unsigned n = s.mbits == 64 ? 2 : 1;
          for (unsigned w = 0; w < n; ++w)
            if (*s.reg + w == kTmpRdv || *s.reg + w == kTmpRdv + 1) held[*s.reg + w - kTmpRdv] = -1;
        });
      }
      ++i;
    }
  }
  return dropped;
}

// Section 3.3: every register moved down into the gaps, in order; with
// `banks` > 1 bank-aware, unless that costs a register (the register count
// has priority: the plain order is used then).
void compact(ptx::Function& fn, uint32_t banks) {
  const Units u = unitsOf(fn);
  uint32_t top = 0, plain_top = 0;
  std::vector<uint32_t> at = pack(u.list, &plain_top);
  if (banks > 1) {
    std::vector<uint32_t> banked = packBanked(u.list, &top, banks);
    if (top <= plain_top) at = std::move(banked);
  }
  std::vector<uint32_t> map(mach::kNumGpr);
  for (uint32_t r = 0; r < mach::kNumGpr; ++r) map[r] = r;
  for (size_t i = 0; i < u.list.size(); ++i)
    for (uint32_t k = 0; k < u.list[i].size; ++k) map[u.list[i].first + k] = at[i] + k;
  for (auto& bb : fn.blocks)
    for (auto& in : bb.instrs)
      backend::forEachSlot(in, fn, [&](const Slot& s) {
        if (*s.reg < mach::kRZ) *s.reg = map[*s.reg];
      });
}

std::string unitName(const Unit& u) {
  return u.size == 2 ? fmt::format("R{}:R{}", u.first, u.first + 1) : fmt::format("R{}", u.first);
}

}  // namespace

uint32_t autoTarget(const config::GpuConfig& gpu, uint32_t regs, uint32_t threads, uint32_t shared, uint32_t steps,
                    uint32_t floor) {
  const uint32_t base = blocksAt(gpu, regs, threads, shared);
  uint32_t level = base, crossed = 0;
  for (uint32_t t = regs; t-- > floor && t > 0;) {
    const uint32_t b = blocksAt(gpu, t, threads, shared);
    if (b <= level) continue;
    level = b;
    if (++crossed == steps) return t;
  }
  return 0;
}

std::vector<Unit> candidates(const ptx::Function& fn, Strategy strategy, uint32_t loop_weight) {
  const Units u = unitsOf(fn);
  const ptx::LoopInfo loops = ptx::findLoops(fn);
  const size_t n = u.list.size();
  std::vector<double> stat(n, 0), cfg(n, 0);
  std::vector<std::vector<bool>> conflict(n, std::vector<bool>(n, false));
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    const double weight = std::pow(double(loop_weight), double(b < loops.depth.size() ? loops.depth[b] : 0));
    for (const auto& in : fn.blocks[b].instrs) {
      eachSlot(in, fn, [&](const Slot& s) {
        if (*s.reg >= mach::kRZ || u.of[*s.reg] < 0) return;
        stat[u.of[*s.reg]] += 1;
        cfg[u.of[*s.reg]] += weight;
      });
      const std::vector<int32_t> t = touched(in, fn, u);
      for (int32_t a : t)
        for (int32_t c : t)
          if (a != c) conflict[a][c] = true;
    }
  }
  std::vector<double> key(n);
  for (size_t i = 0; i < n; ++i) {
    if (strategy == Strategy::Static) key[i] = stat[i];
    else if (strategy == Strategy::Cfg) key[i] = cfg[i];
    else key[i] = double(std::count(conflict[i].begin(), conflict[i].end(), true));
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  // Ascending cost; among equals the higher register first (it is the one
  // compaction would otherwise have to move furthest).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (key[a] != key[b]) return key[a] < key[b];
    return u.list[a].first > u.list[b].first;
  });
  std::vector<Unit> out;
  for (size_t i : order) out.push_back(u.list[i]);
  return out;
}

uint32_t compactedCount(const ptx::Function& fn, const std::vector<Unit>& demoted, bool wide) {
  const Units u = unitsOf(fn);
  std::vector<Unit> keep;
  for (const Unit& x : u.list)
    if (!contains(demoted, x)) keep.push_back(x);
  keep.push_back({kTmpRdv, wide ? 2u : 1u});
  keep.push_back({kTmpRda, 1});
  uint32_t top = 0;
  pack(keep, &top);
  return top;
}

backend::FunctionPass demotePass(const config::GpuConfig& gpu_in, const RegDemConfig& cfg) {
  auto gpu = std::make_shared<const config::GpuConfig>(gpu_in);
  return {"regdem.demote", [gpu, cfg](ptx::Function& fn, backend::SlotValues& values,
                                      const backend::MachinePassContext& ctx) {
            if (!fn.is_entry) return;
            Decision d;
            const uint32_t reserved = ctx.options.reserved_registers;
            d.regs_before = fn.machine_regs + reserved;
            d.threads = threadsOf(fn);
            auto note = [&](const std::string& text) { ctx.report.notes.push_back("regdem: " + text); };
            bool calls = false;
            for (const auto& bb : fn.blocks)
              for (const auto& in : bb.instrs) calls = calls || in.op == ptx::Op::Call;
            if (calls) return note("not applied: the kernel makes calls (its registers cannot be renumbered)");
            if (!d.threads)
              return note("not applied: the block size is not known at compile time (eq. 1 needs it: give the "
                          "kernel __launch_bounds__ or .reqntid)");
            if (fn.machine_regs > kTmpRdv) return note("not applied: the kernel uses more than 250 registers");
            const uint32_t shared = staticShared(ctx.module);
            const uint32_t named = kernelTarget(cfg, fn.name);
            d.target = named            ? named
                       : cfg.target     ? cfg.target
                                        : autoTarget(*gpu, d.regs_before, d.threads, shared, cfg.steps, cfg.min_regs);
            if (!d.target)
              return note(fmt::format("not applied: no register count down to {} gives blocks of {} threads more "
                                      "occupancy steps on {}",
                                      cfg.min_regs, d.threads, gpu->name));
            if (d.regs_before <= d.target)
              return note(fmt::format("not applied: {} registers, at or below the target {}", d.regs_before, d.target));
            // Fig. 3: demote candidates until the count reaches the target
            // (or min_regs), dropping every candidate that shares an
            // instruction with a demoted one (RemoveOperandConflict).
            const std::vector<Unit> cands = candidates(fn, cfg.strategy, cfg.loop_weight);
            const Units units = unitsOf(fn);
            std::vector<bool> dropped(units.list.size(), false);
            std::vector<std::vector<int32_t>> touch;
            for (const auto& bb : fn.blocks)
              for (const auto& in : bb.instrs) touch.push_back(touched(in, fn, units));
            bool wide = false;
            uint32_t count = compactedCount(fn, {}, false) + reserved;
            for (const Unit& c : cands) {
              if (count <= d.target || count <= cfg.min_regs) break;
              const int32_t ci = units.of[c.first];
              if (dropped[ci]) continue;
              d.demoted.push_back(c);
              wide = wide || c.size == 2;
              dropped[ci] = true;
              for (const auto& t : touch)
                if (std::find(t.begin(), t.end(), ci) != t.end())
                  for (int32_t o : t) dropped[o] = true;
              count = compactedCount(fn, d.demoted, wide) + reserved;
            }
            if (d.demoted.empty())
              return note(fmt::format("not applied: the code's registers compact to {} without demoting any "
                                      "(the allocation left gaps)",
                                      count));
            if (count > d.target)
              return note(fmt::format("not applied: the candidates without operand conflicts reach {} registers, "
                                      "not the target {}",
                                      count, d.target));
            uint32_t words = 0;
            for (const Unit& u : d.demoted) words += u.size;
            d.area_bytes = words * d.threads * 4;
            const uint32_t per_block =
                gpu->shared.max_per_block_kb ? gpu->shared.max_per_block_kb * 1024u : gpu->shared.size_kb * 1024u;
            if (shared + d.area_bytes > per_block)
              return note(fmt::format("not applied: the demoted area ({} B) and the kernel's {} B of shared memory "
                                      "exceed the {} B a block may use",
                                      d.area_bytes, shared, per_block));
            if (blocksAt(*gpu, count, d.threads, shared + d.area_bytes) <=
                blocksAt(*gpu, d.regs_before, d.threads, shared))
              return note(fmt::format("not applied: {} registers with {} B more shared memory give no more resident "
                                      "blocks of {} threads",
                                      count, d.area_bytes, d.threads));
            if (!ctx.edit) throw Error("regdem.demote: the pass needs to add its shared area to the module");
            const uint32_t area = areaSymbol(*ctx.edit, d.area_bytes);
            rewrite(fn, values, d.demoted, d.threads, area, d);
            // Section 3.4.2's post-passes, each an option, then the
            // barriers of what is left where they end up.
            const uint32_t redundant = cfg.redundant_code ? dropRedundantLoads(fn, values) : 0;
            const uint32_t dead_stores = cfg.redundant_code ? dropRedundantStores(fn, values) : 0;
            d.loads -= redundant;
            d.stores -= dead_stores;
            std::vector<uint32_t> rdv_words{kTmpRdv};
            if (wide) rdv_words.push_back(kTmpRdv + 1);
            const uint32_t moved_values = cfg.rdv_substitution ? substituteRdv(fn, rdv_words, kTmpRda) : 0;
            const uint32_t hoisted = cfg.schedule_update ? hoistLoads(fn, values, kTmpRda) : 0;
            const uint32_t barriers = ctx.options.dep_timing
                                          ? assignDemotionBarriers(fn, ctx.options.dep_timing, cfg.schedule_update)
                                          : 0;
            compact(fn, cfg.bank_aware ? cfg.banks : 1);
            d.regs_after = backend::usedRegisters(fn) + reserved;
            d.applied = true;
            std::string list;
            for (const Unit& u : d.demoted) list += (list.empty() ? "" : " ") + unitName(u);
            note(fmt::format("{} -> {} registers (target {}): demoted {} ({} words, {} B of shared memory per block "
                             "of {} threads), {} ld.shared + {} st.shared added ({} redundant loads and {} stores "
                             "dropped, {} values moved off RDV, {} loads hoisted){}",
                             d.regs_before, d.regs_after, d.target, list, words, d.area_bytes, d.threads, d.loads,
                             d.stores, redundant, dead_stores, moved_values, hoisted,
                             ctx.options.dep_timing ? fmt::format(", {} dependency barriers set", barriers) : ""));
          }};
}

}  // namespace rfsim::regdem
