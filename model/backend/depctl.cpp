// Maxwell-style dependency control (depctl.h).
#include "backend/depctl.h"

#include <algorithm>
#include <bitset>

#include <fmt/format.h>

#include "backend/mfunction.h"
#include "common/error.h"
#include "ptx/machine.h"

namespace rfsim::backend {

void BarrierTracker::update(const ptx::Instr& in, DepTiming::Kind kind, uint32_t latency) {
  for (uint32_t b = 0; b < kDepBarriers; ++b)
    if (in.wait >> b & 1) e_[b] = Entry{};
  if (in.rbar) e_[in.rbar - 1u] = Entry{true, DepTiming::Other, kReadStall, 0};
  if (in.wbar) e_[in.wbar - 1u] = Entry{true, kind, latency, 0};
  for (Entry& e : e_)
    if (e.set) e.stall += in.stall;
}

uint32_t BarrierTracker::get(uint32_t avoid) const {
  for (uint32_t b = 0; b < kDepBarriers; ++b)
    if (!e_[b].set && b != avoid) return b;
  uint32_t best = avoid == 0 ? 1 : 0;
  int64_t best_wait = kGlMemStall + 1;  // Fig. 3: the initial minimum
  for (uint32_t b = 0; b < kDepBarriers; ++b) {
    const Entry& e = e_[b];
    if (b == avoid) continue;
    const int64_t full = e.kind == DepTiming::Global ? kGlMemStall : e.kind == DepTiming::Shared ? kShMemStall : e.latency;
    const int64_t wait = full - static_cast<int64_t>(e.stall);
    if (wait < best_wait) best = b, best_wait = wait;
  }
  return best;
}

bool isJump(const ptx::Instr& in) {
  switch (in.op) {
    case ptx::Op::Bra: case ptx::Op::Call: case ptx::Op::Ret: case ptx::Op::Exit: case ptx::Op::Trap:
      return true;
    default:
      return false;
  }
}

void instrRegs(const ptx::Instr& in, const ptx::Function& fn, std::vector<uint32_t>& uses,
               std::vector<uint32_t>& defs) {
  uses.clear();
  defs.clear();
  // forEachSlot hands out references for rewriting; nothing is written here.
  forEachSlot(const_cast<ptx::Instr&>(in), const_cast<ptx::Function&>(fn), [&](const Slot& s) {
    const uint32_t r = *s.reg;
    if (r == ptx::kNoReg || r == ptx::mach::kRZ || r >= ptx::mach::kNumRegIds) return;
    auto& into = s.def ? defs : uses;
    into.push_back(r);
    if (s.mbits == 64 && r + 1 < ptx::mach::kRZ) into.push_back(r + 1);
  });
}

namespace {

using RegSet = std::bitset<ptx::mach::kNumRegIds>;

struct Walker {
  const ptx::Function& fn;
  const DepTimingFn& timing;
  DepMode mode;
  DepResult out;
  std::array<RegSet, kDepBarriers> wregs{}, rregs{};  // registers each barrier guards (written / read)
  std::vector<std::pair<uint32_t, uint64_t>> ready;    // fixed-latency results: register, cycle it is ready
  BarrierTracker tracker;
  uint64_t t = 0;              // issue cycle of the instruction at hand (stalls only)
  ptx::Instr* prev = nullptr;  // the instruction issued before it
  std::vector<uint32_t> uses, defs;

  std::string where(uint32_t bi, uint32_t ii, const ptx::Instr& in) const {
    return fmt::format("{} block {} instruction {} ({})", fn.name, bi, ii, ptx::opName(in.op));
  }

  uint8_t newBarrier(uint8_t have, const char* what, uint32_t bi, uint32_t ii, const ptx::Instr& in, uint8_t not_this) {
    if (have && mode != DepMode::Assign) return have;
    if (mode == DepMode::Check) {
      out.errors.push_back(fmt::format("{}: variable-latency instruction sets no {} barrier", where(bi, ii, in), what));
      return 0;
    }
    if (mode == DepMode::Repair) ++out.added;
    return static_cast<uint8_t>(tracker.get(not_this ? not_this - 1 : kDepBarriers) + 1);
  }

  void step(ptx::Instr& in, uint32_t bi, uint32_t ii) {
    instrRegs(in, fn, uses, defs);
    const bool jump = isJump(in);
    // 1. The barriers it must wait on: a pending write of a register it
    // reads or writes (RAW, WAW), a pending read of one it writes (WAR);
    // before a jump, every barrier still set.
    uint8_t need = 0;
    for (uint32_t b = 0; b < kDepBarriers; ++b) {
      bool hit = jump && (wregs[b].any() || rregs[b].any());
      for (uint32_t r : uses) hit = hit || wregs[b].test(r);
      for (uint32_t r : defs) hit = hit || wregs[b].test(r) || rregs[b].test(r);
      if (hit) need |= static_cast<uint8_t>(1u << b);
    }
    if (mode == DepMode::Assign) {
      in.wait = need;
    } else if (need & ~in.wait) {
      if (mode == DepMode::Repair) {
        ++out.added;
        in.wait |= need;
      } else {
        for (uint32_t b = 0; b < kDepBarriers; ++b)
          if ((need & ~in.wait) >> b & 1)
            out.errors.push_back(fmt::format("{}: does not wait on barrier {}, which guards one of its registers{}",
                                             where(bi, ii, in), b, jump ? " or precedes a jump" : ""));
      }
    }
    for (uint32_t b = 0; b < kDepBarriers; ++b)
      if (in.wait >> b & 1) wregs[b].reset(), rregs[b].reset();
    // 2. Fixed-latency results it reads or overwrites: the stalls before it
    // must cover their latency.
    uint64_t due = t;
    for (const auto& [r, at] : ready)
      if (at > due && (std::find(uses.begin(), uses.end(), r) != uses.end() ||
                       std::find(defs.begin(), defs.end(), r) != defs.end()))
        due = at;
    if (due > t) {
      if (mode == DepMode::Check || !prev) {
        out.errors.push_back(fmt::format("{}: issues {} cycles before a fixed-latency result it uses is ready",
                                         where(bi, ii, in), due - t));
      } else {
        if (mode == DepMode::Repair) ++out.added;
        raiseStall(*prev, static_cast<uint32_t>(prev->stall + (due - t)), bi, ii, in);
        t = due;
      }
    }
    ready.erase(std::remove_if(ready.begin(), ready.end(), [&](const auto& p) { return p.second <= t; }), ready.end());
    // 3. What it sets.
    const DepTiming dt = timing(in);
    if (mode == DepMode::Assign) in.wbar = in.rbar = 0;
    // A variable-latency instruction that writes registers sets a write
    // barrier; one that reads registers a read barrier (the paper's section
    // 3.2: a load needs both, a store only the read one), another than its
    // write barrier where the tracker has one -- here only where a later
    // instruction before the next jump overwrites one of its sources (a
    // load's address register reused by the next address computation, a
    // store's data): without such a write there is no hazard to guard, and
    // the barrier stays free for another setter.
    if (dt.variable && !defs.empty()) in.wbar = newBarrier(in.wbar, "write", bi, ii, in, 0);
    if (dt.variable && !uses.empty() && in.op != ptx::Op::Bar && overwrittenAhead(bi, ii))
      in.rbar = newBarrier(in.rbar, "read", bi, ii, in, in.wbar);
    if (in.wbar)
      for (uint32_t r : defs) wregs[in.wbar - 1u].set(r);
    if (in.rbar)
      for (uint32_t r : uses) rregs[in.rbar - 1u].set(r);
    if (!dt.variable)
      for (uint32_t r : defs) ready.emplace_back(r, t + dt.latency);
    // 4. Its stall: 1, or before a jump the cycles until every fixed-latency
    // result is ready (nothing is pending across a jump).
    if (mode == DepMode::Assign) in.stall = 1;
    else if (in.stall == 0) {
      if (mode == DepMode::Check) out.errors.push_back(fmt::format("{}: has no stall count", where(bi, ii, in)));
      else in.stall = 1;
    }
    if (jump) {
      uint64_t last = t + 1;
      for (const auto& p : ready) last = std::max(last, p.second);
      if (last > t + std::max<uint32_t>(in.stall, 1)) {
        if (mode == DepMode::Check)
          out.errors.push_back(fmt::format("{}: a jump with fixed-latency results pending", where(bi, ii, in)));
        else
          raiseStall(in, static_cast<uint32_t>(last - t), bi, ii, in);
      }
      ready.clear();
    }
    tracker.update(in, dt.kind, dt.latency);
    if (jump) tracker.reset();
    t += std::max<uint32_t>(in.stall, 1);
    prev = &in;
  }

  // Whether an instruction after fn.blocks[bi].instrs[ii], up to and with
  // the next jump (the code that runs before the barriers are cleared),
  // writes one of the registers in `uses`.
  bool overwrittenAhead(uint32_t bi, uint32_t ii) {
    const std::vector<uint32_t> mine = uses;
    std::vector<uint32_t> u2, d2;
    for (uint32_t b = bi, i = ii + 1; b < fn.blocks.size(); ++b, i = 0)
      for (; i < fn.blocks[b].instrs.size(); ++i) {
        const ptx::Instr& next = fn.blocks[b].instrs[i];
        instrRegs(next, fn, u2, d2);
        for (uint32_t r : d2)
          if (std::find(mine.begin(), mine.end(), r) != mine.end()) return true;
        if (isJump(next)) return false;
      }
    return false;
  }

  void raiseStall(ptx::Instr& at, uint32_t stall, uint32_t bi, uint32_t ii, const ptx::Instr& in) {
    if (stall > kMaxStall)
      throw Error(fmt::format("{}: needs a stall of {} cycles, more than the field's {}", where(bi, ii, in), stall,
                              kMaxStall));
    at.stall = static_cast<uint8_t>(std::max<uint32_t>(at.stall, stall));
  }
};

}  // namespace

DepResult assignDependencies(ptx::Function& fn, const DepTimingFn& timing, DepMode mode) {
  Walker w{fn, timing, mode, {}, {}, {}, {}, {}, 0, nullptr, {}, {}};
  // Blocks in layout order: the state flows into the next block by fall-
  // through; a block entered only by jumps starts with nothing pending
  // (every jump waited on all barriers and drained the fixed latencies).
  for (uint32_t bi = 0; bi < fn.blocks.size(); ++bi)
    for (uint32_t ii = 0; ii < fn.blocks[bi].instrs.size(); ++ii) w.step(fn.blocks[bi].instrs[ii], bi, ii);
  // The function's end (a ret or exit is a jump): nothing may be pending.
  return std::move(w.out);
}

}  // namespace rfsim::backend
