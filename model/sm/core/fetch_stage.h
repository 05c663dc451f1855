// The fetch stage: each warp's instruction buffer and the arbitration that
// starts I-buffer fills, through the SM's instruction memory (ifetch_path.h:
// an L0 I-cache per sub-core, the L1I, the prefetcher). An I-buffer is a
// count of valid entries of the warp's straight-line stream plus one fill in
// flight; it is flushed after a non-sequential pc change. Its latch to
// issue: hasInstr / pop.
//
// Fetch bandwidth is per sub-core: the Volta whitepaper gives each of the
// SM's processing blocks its own L0 I-cache, scheduler and dispatch unit, so
// each has its own fetch unit; pipeline.fetch_width (per SM, Accel-Sim's
// gpgpu_inst_fetch_throughput) splits evenly over sm.sub_cores, and each
// sub-core starts up to fetch_width / sub_cores fills a cycle for its own
// warps (warp slot s belongs to sub-core s % sub_cores).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "config/gpu_config.h"
#include "func/stepper.h"
#include "sm/core/ifetch_path.h"
#include "sm/core/sm_stats.h"

namespace rfsim::sm {

class FetchStage {
 public:
  // `func_instrs`: the instructions of each of the program's functions.
  FetchStage(const config::GpuConfig& cfg, FetchStats& stats, const std::vector<uint32_t>& func_instrs);

  // A warp enters or leaves slot `slot`: its I-buffer is empty.
  void reset(uint32_t slot) {
    ib_[slot] = IBuffer{};
    mark(slot);
  }
  // Whether warp `slot`'s I-buffer holds an instruction at `now`. A fill is
  // written into the I-buffer in the cycle it arrives (ready_at), whoever
  // asks: cycle() takes every fill that has arrived, and because the issue
  // stage reads the buffers before the fetch stage's turn in Sm::tick, a
  // fill arriving this very cycle is taken here, so issue sees it at its
  // arrival. A warp the issue stage finds with an empty buffer and its fill
  // in flight stalls on fetch from then until the fill arrives
  // (stall_cycles).
  bool hasInstr(uint32_t slot, uint64_t now) {
    IBuffer& b = ib_[slot];
    if (b.pending) {
      if (now >= b.ready_at) {
        take(slot);
      } else if (b.valid == 0 && b.empty_since == kNever) {
        b.empty_since = now;
      }
    }
    return b.valid != 0;
  }
  // An instruction left the buffer (issued, or elided).
  void pop(uint32_t slot) {
    --ib_[slot].valid;
    mark(slot);
  }
  // After warp `local` of `st` in slot `slot` issued `info`: the buffer
  // holds the straight-line stream after the issued pc; any other next pc
  // (taken branch, call, return, divergence) flushes it.
  // A call or a return also holds the next fill back until `now` +
  // pipeline.call_ret_cycles.
  void afterIssue(uint32_t slot, const func::BlockStepper& st, uint32_t local, const func::StepInfo& info,
                  uint64_t now);

  // One cycle: in each sub-core up to fetch_width / sub_cores of its warps
  // (round robin from the one after the last fetched) top their I-buffer up
  // to ibuffer_depth. `warps` gives, per slot, `func::BlockStepper*
  // stepper(uint32_t slot, uint32_t& local)` (null: a free slot) and `void
  // finished(uint32_t slot)`, called for a warp whose every lane exited
  // (the SM frees its slot when nothing of it is in flight).
  template <class Warps>
  void cycle(uint64_t now, Warps& warps);

  // Whether warp `slot` has nothing to issue at `now` because its fill
  // waits on a line from the L2 (an L1I miss, or a line already on its way
  // from the L2): a memory-hierarchy wait, which the two-level scheduler
  // treats as a long-latency one (IssueStage::cycle).
  bool waitsOnL2(uint32_t slot, uint64_t now) const {
    const IBuffer& b = ib_[slot];
    return b.valid == 0 && b.pending && b.from_l2 && now < b.ready_at;
  }
  // The cycle the fill in flight of slot `slot` arrives; UINT64_MAX: none.
  // After cycle(now) every fill that has arrived was taken, so it is later
  // than `now`: the SM's idle-cycle skipping stops there.
  uint64_t fillAt(uint32_t slot) const { return ib_[slot].pending ? ib_[slot].ready_at : UINT64_MAX; }
  uint32_t valid(uint32_t slot) const { return ib_[slot].valid; }
  uint32_t pending(uint32_t slot) const { return ib_[slot].pending; }
  // Fills started so far (what makes a tick not quiet).
  uint64_t fills() const { return stats_.fills.get(); }

 private:
  static constexpr uint64_t kNever = UINT64_MAX;
  struct IBuffer {
    uint32_t valid = 0, pending = 0;
    uint64_t ready_at = 0;
    uint64_t empty_since = kNever;  // first cycle seen empty while the fill is in flight
    bool from_l2 = false;           // the fill in flight takes longer than an L1I hit: it waits on the L2
    uint64_t not_before = 0;        // a call or return's redirect: no fill arrives before this cycle
  };
  // The fill in flight of slot `s` arrived: its entries are valid.
  void take(uint32_t s) {
    IBuffer& b = ib_[s];
    if (b.empty_since != kNever) stats_.stall_cycles += b.ready_at - b.empty_since;
    b.empty_since = kNever;
    b.valid += b.pending;
    b.pending = 0;
    in_flight_[s / 64] &= ~(uint64_t{1} << (s % 64));
    mark(s);
  }
  // The slots cycle() visits (want_): a slot is marked whenever its buffer
  // may have room and no fill in flight (it was reset or emptied, an entry
  // left, a fill arrived), and unmarked when fetchSlot() finds its buffer
  // full or filling, or no warp in it. A slot that stays unmarked would
  // have been passed over anyway, so visiting only the marked ones in the
  // same order starts the same fills; a scan of every slot each cycle was
  // about 30 % of the host instructions on titanx's 64 warps per SM (qtc).
  void mark(uint32_t s) { want_[pos_[s] >> 6] |= uint64_t{1} << (pos_[s] & 63); }
  void unmark(uint32_t s) { want_[pos_[s] >> 6] &= ~(uint64_t{1} << (pos_[s] & 63)); }
  // Takes every fill that has arrived by `now` (cycle()).
  void takeArrived(uint64_t now);
  // Starts a fill for the warp in slot `s` if it needs one; whether it did.
  template <class Warps>
  bool fetchSlot(uint32_t s, uint64_t now, Warps& warps);

  uint32_t depth_, per_sub_;
  uint64_t l1i_hit_;  // l1i.latency: the longest a fill served by the L1I takes
  uint64_t call_ret_;  // pipeline.call_ret_cycles
  std::vector<IBuffer> ib_;  // per warp slot
  IFetchPath path_;
  std::vector<uint32_t> rr_;  // per sub-core: the index, among its slots, to look at first
  // No fill in flight arrives before this cycle (takeArrived() looks only
  // from then; a fill flushed or taken by hasInstr() may leave it early,
  // never late).
  uint64_t next_arrival_ = kNever;
  // One bit per slot with a fill in flight (a flushed fill's bit is
  // cleared by the next takeArrived()), so that takeArrived() visits the
  // fills in flight, not every slot (a scan of every slot each cycle cost
  // 3.5 % more host instructions on lt_hotspot).
  std::vector<uint64_t> in_flight_;
  // Per sub-core, `words_` words of bits, one per index among its slots
  // (slot k + idx * sub_cores is sub-core k's idx): the marked slots.
  std::vector<uint64_t> want_;
  std::vector<uint32_t> pos_;  // per slot: its bit in want_ (word << 6 | bit)
  uint32_t words_ = 1;
  FetchStats& stats_;
};

template <class Warps>
bool FetchStage::fetchSlot(uint32_t s, uint64_t now, Warps& warps) {
  // A full buffer, or one with a fill in flight, needs no fill until an
  // entry leaves or the fill arrives (mark). A warp that is Done has
  // neither (afterIssue empties its buffer as it exits), so this test
  // comes first.
  IBuffer& b = ib_[s];
  if (b.pending || b.valid >= depth_) {
    unmark(s);
    return false;
  }
  uint32_t local = 0;
  func::BlockStepper* st = warps.stepper(s, local);
  if (!st) {  // a free slot: marked again when a warp comes (reset)
    unmark(s);
    return false;
  }
  const func::WarpStatus fs = st->status(local);
  // Warps whose last instruction issued free their slot here too (a warp
  // that exits with nothing in flight); it stays marked until freed.
  if (fs == func::WarpStatus::Done) {
    warps.finished(s);
    return false;
  }
  if (fs != func::WarpStatus::Ready) return false;  // at a barrier: asked again each cycle
  unmark(s);  // its fill starts
  const uint32_t n = depth_ - b.valid;
  const uint64_t ready = path_.fetch(s % path_.subCores(), st->peekFunc(local), st->peekPc(local) + b.valid, n, now);
  b.pending = n;
  b.ready_at = std::max(ready, b.not_before);
  b.from_l2 = ready > now + l1i_hit_;
  next_arrival_ = std::min(next_arrival_, b.ready_at);
  in_flight_[s / 64] |= uint64_t{1} << (s % 64);
  return true;
}

template <class Warps>
void FetchStage::cycle(uint64_t now, Warps& warps) {
  // Fills that arrived are written into their I-buffers before any new fill
  // starts, also for warps the issue stage did not ask this cycle (a warp
  // waiting on the scoreboard, at a barrier, behind a trap, outside the
  // warp limit): a warp's next fill, and the SM's idle-cycle skipping
  // (Sm::nextActiveCycle waits for fillAt()), must not depend on whether,
  // or how often, the issue stage looked at its buffer. The fetch stage
  // does it, not the issue stage asking hasInstr() of every warp every
  // cycle, because in hardware the fill writes the buffer when it arrives;
  // a fill left pending until someone asks held the warp's next fill back
  // and stopped the SM's skipping, differently with and without a
  // mechanism's hooks (their scoreboard-wait path asked, the baseline's
  // did not).
  if (now >= next_arrival_) takeArrived(now);
  const uint32_t nslots = static_cast<uint32_t>(ib_.size());
  const uint32_t subs = path_.subCores();
  for (uint32_t k = 0; k < subs && k < nslots; ++k) {
    const uint32_t m = (nslots - k + subs - 1) / subs;  // slots k, k + subs, ...
    // From the slot after the last one fetched, each marked slot once, in
    // the order of their indices; the next cycle starts after the last
    // slot this one fetched.
    const uint32_t start = rr_[k];
    uint32_t fetched = 0, rr = start;
    uint64_t* want = &want_[size_t(k) * words_];
    // The marked indices among `bits` (word `base` / 64), ascending; false
    // once enough fetched.
    auto visitBits = [&](uint64_t bits, uint32_t base) {
      while (bits) {
        const uint32_t idx = base + static_cast<uint32_t>(__builtin_ctzll(bits));
        bits &= bits - 1;
        if (!fetchSlot(k + idx * subs, now, warps)) continue;
        rr = idx + 1 == m ? 0 : idx + 1;
        if (++fetched >= per_sub_) return false;
      }
      return true;
    };
    if (words_ == 1) {
      // Up to 64 slots a sub-core (every configuration): the indices from
      // `start` on, then those before it, from the one word. A sub-core
      // with none marked costs a test (the general loop below took some 50
      // host instructions a sub-core a cycle on sgemm).
      const uint64_t bits = want[0];
      if (bits && visitBits(bits & (~uint64_t{0} << start), 0))
        visitBits(bits & ((uint64_t{1} << start) - 1), 0);
      rr_[k] = rr;
      continue;
    }
    // The marked indices in [lo, hi), ascending; false once enough fetched.
    auto visit = [&](uint32_t lo, uint32_t hi) {
      for (uint32_t wi = lo / 64; wi * 64 < hi; ++wi) {
        const uint32_t base = wi * 64;
        uint64_t bits = want[wi];
        if (lo > base) bits &= ~uint64_t{0} << (lo - base);
        if (hi < base + 64) bits &= ~uint64_t{0} >> (64 - (hi - base));
        if (!visitBits(bits, base)) return false;
      }
      return true;
    };
    if (visit(start, m)) visit(0, start);
    rr_[k] = rr;
  }
}

}  // namespace rfsim::sm
