// RegDem's performance post-passes (demote.h; the paper's section 3.4.2):
// redundant demoted stores, RDV substitution by dead registers, and the
// schedule update that hoists demoted loads. Each works inside a basic
// block on the rewritten code, before compaction.
#include <algorithm>
#include <bitset>

#include "backend/depctl.h"
#include "backend/mfunction.h"
#include "mech/regdem/demote.h"
#include "ptx/machine.h"

namespace rfsim::regdem {

namespace mach = ptx::mach;

namespace {

using Regs = std::bitset<mach::kNumGpr>;

void regsOf(const ptx::Instr& in, const ptx::Function& fn, Regs& uses, Regs& defs, bool& guarded_def) {
  uses.reset();
  defs.reset();
  guarded_def = false;
  backend::forEachSlot(const_cast<ptx::Instr&>(in), const_cast<ptx::Function&>(fn), [&](const backend::Slot& s) {
    const uint32_t r = *s.reg;
    if (r >= mach::kRZ) return;
    Regs& into = s.def ? defs : uses;
    into.set(r);
    if (s.mbits == 64 && r + 1 < mach::kRZ) into.set(r + 1);
    guarded_def = guarded_def || (s.def && s.guarded);
  });
}

bool touches(const ptx::Instr& in, const ptx::Function& fn, uint32_t reg) {
  Regs u, d;
  bool g = false;
  regsOf(in, fn, u, d, g);
  return u.test(reg) || d.test(reg);
}

bool writes(const ptx::Instr& in, const ptx::Function& fn, uint32_t reg) {
  Regs u, d;
  bool g = false;
  regsOf(in, fn, u, d, g);
  return d.test(reg);
}

// Registers live out of each block (general registers; a guarded write
// does not end a value's life).
std::vector<Regs> liveOut(const ptx::Function& fn) {
  const size_t nb = fn.blocks.size();
  std::vector<Regs> use(nb), def(nb), in(nb), out(nb);
  for (size_t b = 0; b < nb; ++b)
    for (auto it = fn.blocks[b].instrs.rbegin(); it != fn.blocks[b].instrs.rend(); ++it) {
      Regs u, d;
      bool g = false;
      regsOf(*it, fn, u, d, g);
      if (!g) {
        use[b] &= ~d;
        def[b] |= d;
      }
      use[b] |= u;
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      Regs o;
      for (uint32_t s : fn.blocks[b].succs) o |= in[s];
      const Regs i = use[b] | (o & ~def[b]);
      if (o != out[b] || i != in[b]) changed = true;
      out[b] = o;
      in[b] = i;
    }
  }
  return out;
}

}  // namespace

uint32_t dropRedundantStores(ptx::Function& fn, backend::SlotValues& values) {
  uint32_t dropped = 0;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    auto& code = fn.blocks[b].instrs;
    auto& vals = values[b];
    for (size_t i = 0; i < code.size();) {
      const ptx::Instr& st = code[i];
      bool dead = false;
      if (st.role == ptx::MRole::DemStore) {
        // Dead when the same slot is stored again, unguarded, before any
        // load of it, within the block (the thread's slots are its own).
        for (size_t j = i + 1; j < code.size(); ++j) {
          const ptx::Instr& in = code[j];
          if (in.role == ptx::MRole::DemLoad && in.src[0].imm == st.src[0].imm) break;
          if (in.role == ptx::MRole::DemStore && in.src[0].imm == st.src[0].imm) {
            dead = in.guard.kind != ptx::OperandKind::Reg;
            break;
          }
        }
      }
      if (dead) {
        code.erase(code.begin() + static_cast<std::ptrdiff_t>(i));
        vals.erase(vals.begin() + static_cast<std::ptrdiff_t>(i));
        ++dropped;
      } else {
        ++i;
      }
    }
  }
  return dropped;
}

uint32_t substituteRdv(ptx::Function& fn, const std::vector<uint32_t>& rdv_words, uint32_t rda) {
  uint32_t substituted = 0;
  const std::vector<Regs> out = liveOut(fn);
  Regs used;  // registers the function has (no new one is introduced)
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs) {
      Regs u, d;
      bool g = false;
      regsOf(in, fn, u, d, g);
      used |= u | d;
    }
  for (uint32_t w : rdv_words) used.reset(w);
  used.reset(rda);
  used.reset(mach::kSP);
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    auto& code = fn.blocks[b].instrs;
    const size_t n = code.size();
    // live[i]: registers live before instruction i.
    std::vector<Regs> live(n + 1);
    live[n] = out[b];
    std::vector<Regs> uses(n), defs(n);
    std::vector<bool> wide(n, false), gdef(n, false);
    for (size_t i = n; i-- > 0;) {
      bool g = false;
      regsOf(code[i], fn, uses[i], defs[i], g);
      gdef[i] = g;
      backend::forEachSlot(code[i], fn, [&](const backend::Slot& s) {
        if (s.mbits == 64 && *s.reg < mach::kRZ &&
            std::find(rdv_words.begin(), rdv_words.end(), *s.reg) != rdv_words.end())
          wide[i] = true;
      });
      live[i] = (g ? live[i + 1] : live[i + 1] & ~defs[i]) | uses[i];
    }
    for (uint32_t w : rdv_words) {
      // Each value RDV word w holds in the block: from the instruction that
      // writes it to its last reader before the next write.
      for (size_t a = 0; a < n; ++a) {
        // (An instruction that reads w and writes it again belongs to both
        // values: neither moves.)
        if (!defs[a].test(w) || uses[a].test(w) || wide[a] || gdef[a]) continue;
        size_t last = a;
        bool ok = true;
        for (size_t k = a + 1; k < n; ++k) {
          if (wide[k] && (uses[k].test(w) || defs[k].test(w))) ok = false;
          if (uses[k].test(w)) last = k;
          if (defs[k].test(w)) {
            // A guarded write keeps the old value where it does not run.
            ok = ok && !gdef[k] && !uses[k].test(w);
            break;
          }
        }
        if (!ok || live[last + 1].test(w)) continue;  // only values that die in the block
        // A register of the function dead over [a, last] and not named there.
        for (uint32_t x = 0; x < mach::kNumGpr; ++x) {
          if (!used.test(x)) continue;
          bool free = true;
          for (size_t k = a; k <= last + 1 && free; ++k) free = !live[k].test(x) || k == a;
          for (size_t k = a; k <= last && free; ++k) free = !uses[k].test(x) && !defs[k].test(x);
          if (!free || live[a + 1].test(x)) continue;
          for (size_t k = a; k <= last; ++k)
            backend::forEachSlot(code[k], fn, [&](const backend::Slot& s) {
              if (*s.reg == w) *s.reg = x;
            });
          for (size_t k = a; k <= last; ++k) {
            if (uses[k].test(w)) uses[k].reset(w), uses[k].set(x);
            if (defs[k].test(w)) defs[k].reset(w), defs[k].set(x);
          }
          for (size_t k = a + 1; k <= last; ++k) live[k].reset(w), live[k].set(x);
          ++substituted;
          break;
        }
      }
    }
  }
  return substituted;
}

uint32_t hoistLoads(ptx::Function& fn, backend::SlotValues& values, uint32_t rda) {
  uint32_t moved = 0;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    auto& code = fn.blocks[b].instrs;
    auto& vals = values[b];
    for (size_t i = 0; i < code.size(); ++i) {
      if (code[i].role != ptx::MRole::DemLoad) continue;
      const uint32_t dst = code[i].dst[0].regs[0];
      const int64_t slot = code[i].src[0].imm;
      // Up past every instruction that does not name its register, write
      // RDA, store the same slot or jump: as early as the block allows.
      size_t p = i;
      while (p > 0) {
        const ptx::Instr& prev = code[p - 1];
        if (backend::isJump(prev) || touches(prev, fn, dst) || writes(prev, fn, rda)) break;
        if (prev.role == ptx::MRole::DemStore && prev.src[0].imm == slot) break;
        if (prev.role == ptx::MRole::DemLoad && prev.src[0].imm == slot) break;
        --p;
      }
      if (p == i) continue;
      ptx::Instr ld = code[i];
      std::vector<uint32_t> v = vals[i];
      code.erase(code.begin() + static_cast<std::ptrdiff_t>(i));
      vals.erase(vals.begin() + static_cast<std::ptrdiff_t>(i));
      code.insert(code.begin() + static_cast<std::ptrdiff_t>(p), ld);
      vals.insert(vals.begin() + static_cast<std::ptrdiff_t>(p), v);
      ++moved;
    }
  }
  return moved;
}

}  // namespace rfsim::regdem
