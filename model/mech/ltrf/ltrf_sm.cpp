#include "mech/ltrf/ltrf_sm.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "common/error.h"
#include "func/decode.h"
#include "func/stepper.h"
#include "ptx/isa_ext.h"
#include "ptx/machine.h"
#include "sm/core/sm.h"

namespace rfsim::mech::ltrf {

namespace mach = ptx::mach;

void LtrfCounters::add(const LtrfCounters& o) {
  const uint64_t* src = reinterpret_cast<const uint64_t*>(&o);
  uint64_t* dst = reinterpret_cast<uint64_t*>(this);
  for (size_t i = 0; i < sizeof(LtrfCounters) / sizeof(uint64_t); ++i) dst[i] += src[i];
}

RegBits prefetchSet(const ptx::Instr& in) {
  // Immediate k holds registers 64k..64k+63, the last one on top.
  RegBits s;
  for (unsigned k = std::min(4u, unsigned{in.nsrc}); k-- > 0;) {
    s <<= 64;
    s |= RegBits(static_cast<uint64_t>(in.src[k].imm));
  }
  return s;
}

LtrfSm::LtrfSm(sm::Sm& sm, const config::GpuConfig& cfg, const LtrfConfig& c)
    : sm_(sm),
      c_(c),
      n_regs_(c.regs_per_interval),
      rf_rows_(cfg.warpRegisters()),
      mrf_lat_(c.mrfLatency()),
      mrf_banks_(c.mrfBanks()),
      groups_(std::max(1u, c.mrfBanks() / kBaseRfBanks)),
      w_(cfg.sm.max_warps),
      wake_(cfg.sm.max_warps, 0),
      offsets_(cfg.sm.active_warps),
      bank_busy_(c.mrfBanks(), 0),
      link_busy_(c.mrfBanks(), 0),
      // A ring of 256 cycles, as the WCB's ports below: over the LTRF suite
      // on Maxwell (every mode, latencies 1x to 8x) no request came more than
      // 15 cycles behind its bank's latest booking (BankedArray's limit). The
      // default 4 096 cycles put 512 KB a SM in the host's caches.
      rfc_(c.regs_per_interval, 1, c.rfc_latency, 256) {
  dirty_only_ = c.writeback == Writeback::Dirty;
  whole_set_ = c.boundary == Boundary::WholeSet;
  prefetching_ = c.prefetching();
  fault_skip_fetch_ = c.fault == LtrfFault::SkipFetch;
  fault_dead_all_ = c.fault == LtrfFault::DeadAll;
  mode_ = c.mode;
  if (c_.prefetching() && !ptx::findExtOp("ltrf.prefetch", &prefetch_op_))
    throw Error("ltrf: the instruction ltrf.prefetch is not registered");
  entry_field_ = ptx::registerControlField("ltrf.entry", 16);
  for (Warp& w : w_) w.aau.reset(n_regs_);
  if (c_.rtl) {
    const WcbRtlParams b = WcbRtl::built();
    const WcbRtlParams want{cfg.sm.max_warps, kMaxRegs, n_regs_, cfg.sm.active_warps};
    if (!(b == want))
      throw Error(fmt::format("mechanisms.ltrf.rtl: the Verilated unit is built for {} warps, {} cache banks and {} "
                              "warp offsets; the configuration has sm.max_warps {}, "
                              "mechanisms.ltrf.regs_per_interval {}, sm.active_warps {} (rebuild with "
                              "-DRFSIM_LTRF_NUM_WARPS/_NUM_BANKS/_NUM_OFFSETS, or rtl: false)",
                              b.num_warps, b.num_banks, b.num_offsets, want.num_warps, want.num_banks,
                              want.num_offsets));
    rtl_ = std::make_unique<WcbRtl>();
  }
  if (c_.wcb_cycles) wcb_ports_ = std::make_unique<sm::BankedArray>(cfg.sm.max_warps, c_.wcb_ports, c_.wcb_cycles, 256);
}

LtrfSm::~LtrfSm() = default;

void LtrfSm::attach() {
  // The general registers, over another mechanism's register classes when
  // one installed a translator (stacked), at the baseline's rows.
  sm::SmHooks h;
  h.translator = this;
  h.registers = sm::SmHooks::Registers::kGeneral;
  h.physical_rows = rf_rows_ + (c_.cached() ? offsets_.size() * n_regs_ : 0);
  h.launch = this;
  h.level = this;
  if (c_.cached()) h.activation = this;
  if (c_.prefetching()) h.gates.push_back(this);
  const sm::SmInstalled in = sm_.install(h);
  stacked_ = in.stacked;
  under_level_ = in.level_under;
}

// Another mechanism's register (stacked): its row is one of the MRF's, read
// through that bank (the row's: rows are shared by warps) and through the
// mechanism's level (R2D2's adder), whichever finishes last.
sm::ReadReply LtrfSm::classRead(uint32_t warp, uint32_t reg, uint32_t row, uint64_t cycle) {
  ++n_.operand_reads, ++n_.operand_mrf_reads, ++n_.mrf_reads;
  const uint64_t t = mrfAccess(row % mrf_banks_, cycle);
  const sm::ReadReply r = under_level_ ? under_level_->read(warp, reg, row, cycle) : sm::ReadReply::hit();
  return sm::ReadReply::availableAt(r.kind == sm::ReadReply::Kind::kAt ? std::max(t, r.at) : t);
}

uint32_t LtrfSm::mrfBank(uint32_t warp, uint32_t reg) const {
  if (mrf_banks_ < kBaseRfBanks) return (reg + warp) % mrf_banks_;
  return (reg + warp) % kBaseRfBanks + kBaseRfBanks * (warp % groups_);
}

uint32_t LtrfSm::mrfRow(uint32_t warp, uint32_t reg) const {
  return sm_.warpBase(warp) + reg;
}

uint32_t LtrfSm::rfcRow(const Warp& w, uint32_t reg) const {
  return rf_rows_ + uint32_t{w.wcb.offset} * n_regs_ + w.wcb.bank[reg];
}

void LtrfSm::copyRow(uint32_t from, uint32_t to) {
  std::copy_n(sm_.registerRows().row(from), 32, sm_.registerRows().row(to));
}

void LtrfSm::rtlOp(WcbRtl::Op op, uint32_t warp, uint32_t reg, uint32_t want_bank, uint32_t want_offset) {
  rtl_->setCycle(sm_.currentCycle());
  const WcbRtl::Result r = rtl_->op(op, warp, reg);
  ++n_.rtl_ops;
  const bool bank_op = op == WcbRtl::Op::Alloc || op == WcbRtl::Op::Free;
  const bool off_op = op == WcbRtl::Op::Act || op == WcbRtl::Op::Deact;
  if (!r.ok || (bank_op && r.bank != want_bank) || (off_op && r.offset != want_offset))
    throw Error(fmt::format("ltrf: rtl/ltrf_wcb.sv and the reference differ at operation {} ({} warp slot {} R{}, "
                            "cycle {}): reference bank {} offset {}, RTL ok {} bank {} offset {}",
                            n_.rtl_ops, static_cast<int>(op), warp, reg, sm_.currentCycle(), want_bank, want_offset,
                            r.ok, r.bank, r.offset));
}

void LtrfSm::rtlLookup(uint32_t warp, uint32_t reg) {
  const Warp& w = w_[warp];
  const bool hit = w.wcb.valid.test(reg) && w.wcb.offset != Wcb::kNone;
  const WcbRtl::Lookup l = rtl_->lookup(warp, reg, n_.rtl_lookups & 1);  // the two read ports in turn
  ++n_.rtl_lookups;
  if (l.hit != hit || (hit && (l.bank != w.wcb.bank[reg] || l.offset != w.wcb.offset ||
                               l.index != uint32_t{w.wcb.offset} * n_regs_ + w.wcb.bank[reg])))
    throw Error(fmt::format("ltrf: rtl/ltrf_wcb.sv's lookup and the reference differ (warp slot {} R{}, cycle {}): "
                            "reference hit {} bank {} offset {}, RTL hit {} bank {} offset {} index {}",
                            warp, reg, sm_.currentCycle(), hit, hit ? int(w.wcb.bank[reg]) : -1,
                            hit ? int(w.wcb.offset) : -1, l.hit, l.bank, l.offset, l.index));
}

// ---------------------------------------------------------------- translation

uint32_t LtrfSm::translate(uint32_t warp, uint32_t reg) {
  if (reg < kMaxRegs && !rtl_ && mode_ != Mode::Rfc) {
    const Warp& w = w_[warp];
    if (w.wcb.valid[reg]) return rfcRow(w, reg);  // a cache hit (every access in ltrf)
  }
  return translateSlow(warp, reg);
}

uint32_t LtrfSm::translateSlow(uint32_t warp, uint32_t reg) {
  if (reg >= kMaxRegs) throw Error(fmt::format("ltrf: warp slot {} names register {} outside R0..R255", warp, reg));
  if (rtl_) rtlLookup(warp, reg);
  Warp& w = w_[warp];
  if (w.wcb.valid.test(reg)) {
    if (mode_ == Mode::Rfc) {
      auto it = std::find(w.lru.begin(), w.lru.end(), static_cast<uint16_t>(reg));
      if (it != w.lru.end()) std::rotate(it, it + 1, w.lru.end());
    }
    return rfcRow(w, reg);
  }
  if (mode_ == Mode::Rfc && w.wcb.offset != Wcb::kNone) {
    // A demand fill (the level times the MRF read when the operand is read).
    if (w.lru.size() >= n_regs_) {
      const uint16_t victim = w.lru.front();
      ++n_.rfc_evictions;
      if (w.dirty.test(victim)) writeBackReg(warp, victim, sm_.currentCycle());
      else copyRow(rfcRow(w, victim), mrfRow(warp, victim));  // clean: the same value, or one whose write is in flight
      freeSlot(warp, victim);
    }
    allocSlot(warp, reg);
    copyRow(mrfRow(warp, reg), rfcRow(w, reg));
    w.miss.set(reg);
    return rfcRow(w, reg);
  }
  // R1 is written into its row before the warp's first instruction.
  if (reg == mach::kSP && !w.issued_any) return mrfRow(warp, reg);
  if (prefetching_) {
    // LTRF's collectors read only the cache (section 5, Fig. 11): a register
    // outside the interval's working set is a compiler fault.
    ++n_.uncached_accesses;
    auto list = [](const RegBits& b) {
      std::string t;
      for (uint32_t r = 0; r < kMaxRegs; ++r)
        if (b.test(r)) t += (t.empty() ? "R" : " R") + std::to_string(r);
      return t;
    };
    throw Error(fmt::format("ltrf: {} is not in the warp's register-interval working set (cached: {}; interval: {}{})",
                            mach::regName(reg), list(w.wcb.valid), list(w.set), w.active ? "" : "; the warp inactive"));
  }
  return mrfRow(warp, reg);
}

// ---------------------------------------------------------------- the MRF

uint64_t LtrfSm::mrfAccess(uint32_t bank, uint64_t earliest) {
  const uint64_t start = std::max(earliest, bank_busy_[bank]);
  n_.mrf_wait_cycles += start - earliest;
  bank_busy_[bank] = start + mrf_lat_;
  return start + mrf_lat_;
}

uint64_t LtrfSm::fetchReg(uint32_t warp, uint32_t reg, uint64_t earliest) {
  Warp& w = w_[warp];
  const uint32_t b = mrfBank(warp, reg);
  const uint64_t data = mrfAccess(b, earliest);
  const uint64_t start = std::max(data, link_busy_[b]);
  link_busy_[b] = start + c_.xbar_cycles;
  ++n_.mrf_reads, ++n_.xbar_transfers, ++n_.fetched, ++n_.rfc_writes;
  if (!fault_skip_fetch_) copyRow(mrfRow(warp, reg), rfcRow(w, reg));
  return start + c_.xbar_cycles;
}

uint64_t LtrfSm::writeBackReg(uint32_t warp, uint32_t reg, uint64_t earliest) {
  Warp& w = w_[warp];
  const uint32_t b = mrfBank(warp, reg);
  const uint64_t start = std::max(earliest, link_busy_[b]);
  link_busy_[b] = start + c_.xbar_cycles;
  ++n_.rfc_reads, ++n_.xbar_transfers, ++n_.mrf_writes, ++n_.written_back;
  copyRow(rfcRow(w, reg), mrfRow(warp, reg));
  return mrfAccess(b, start + c_.xbar_cycles);
}

void LtrfSm::allocSlot(uint32_t warp, uint32_t reg) {
  Warp& w = w_[warp];
  if (w.wcb.offset == Wcb::kNone)
    throw Error(fmt::format("ltrf: warp slot {} fetches R{} without a warp offset (not active)", warp, reg));
  uint8_t bank = 0;
  if (!w.aau.allocate(bank))
    throw Error(fmt::format("ltrf: warp slot {}: no free cache bank for R{} (all {} taken)", warp, reg, n_regs_));
  w.wcb.bank[reg] = bank;
  w.wcb.valid.set(reg);
  if (rtl_) rtlOp(WcbRtl::Op::Alloc, warp, reg, bank, 0);
  if (mode_ == Mode::Rfc) w.lru.push_back(static_cast<uint16_t>(reg));
}

void LtrfSm::freeSlot(uint32_t warp, uint32_t reg) {
  Warp& w = w_[warp];
  if (rtl_) rtlOp(WcbRtl::Op::Free, warp, reg, w.wcb.bank[reg], 0);
  w.aau.free(w.wcb.bank[reg]);
  w.wcb.bank[reg] = Wcb::kNone;
  w.wcb.valid.reset(reg);
  w.dirty.reset(reg);
  w.miss.reset(reg);
  if (!w.lru.empty()) w.lru.erase(std::remove(w.lru.begin(), w.lru.end(), static_cast<uint16_t>(reg)), w.lru.end());
}

uint64_t LtrfSm::moveTo(uint32_t warp, const RegBits& next, uint64_t start) {
  Warp& w = w_[warp];
  const RegBits leave = w.wcb.valid & ~next;
  uint64_t wb = w.wb_done;
  forEachReg(leave, [&](uint32_t r) {
    if (liveOnly() && !w.wcb.live.test(r)) ++n_.dropped_dead;
    else if (dirty_only_ && !w.dirty.test(r)) ++n_.clean_kept;  // the MRF holds its value
    else wb = std::max(wb, writeBackReg(warp, r, start));
    freeSlot(warp, r);
  });
  w.wb_done = wb;
  const RegBits enter = next & ~w.wcb.valid;
  // A bank this fetch already used: marked with this fetch's number.
  ++fetch_stamp_;
  uint64_t last = start;
  uint32_t fetched = 0, conflicts = 0;
  forEachReg(enter, [&](uint32_t r) {
    allocSlot(warp, r);
    if (liveOnly() && !w.wcb.live.test(r)) {
      ++n_.skipped_dead;
      return;
    }
    uint64_t& seen = bank_seen_[mrfBank(warp, r) % bank_seen_.size()];
    if (seen == fetch_stamp_) ++conflicts;
    seen = fetch_stamp_;
    last = std::max(last, fetchReg(warp, r, start));
    ++fetched;
  });
  w.set = next;
  if (fetched) {
    ++n_.fetch_sets;
    if (!conflicts) ++n_.fetch_sets_conflict_free;
    n_.fetch_bank_conflicts += conflicts;
    n_.fetch_cycles += last - start;
  }
  if (fetched || leave.any()) ++n_.transitions;
  return last;
}

uint64_t LtrfSm::flush(uint32_t warp, uint64_t start, bool keep_values) {
  Warp& w = w_[warp];
  uint64_t done = std::max(start, w.wb_done);
  // freeSlot clears each register's valid bit: the loop walks a copy.
  forEachReg(RegBits(w.wcb.valid), [&](uint32_t r) {
    if (keep_values) {
      bool wb = true;
      if (mode_ == Mode::LtrfPlus) wb = w.wcb.live.test(r) && (!dirty_only_ || w.dirty.test(r));
      if (mode_ == Mode::LtrfPlus && w.wcb.live.test(r) && !wb) {
        ++n_.clean_kept;
        freeSlot(warp, r);
        return;
      }
      if (mode_ == Mode::Rfc) wb = w.dirty.test(r);
      if (wb) done = std::max(done, writeBackReg(warp, r, start));
      else if (mode_ == Mode::Rfc) copyRow(rfcRow(w, r), mrfRow(warp, r));  // clean: the MRF holds it
      else ++n_.dropped_dead;
    }
    freeSlot(warp, r);
  });
  return done;
}

// ---------------------------------------------------------------- operand reads

sm::ReadReply LtrfSm::read(uint32_t warp, uint32_t reg, uint32_t row, uint64_t cycle) {
  if (stacked_ && !mach::isGpr(reg)) return classRead(warp, reg, row, cycle);
  ++n_.operand_reads;
  if (row < rf_rows_) {
    ++n_.operand_mrf_reads, ++n_.mrf_reads;
    return sm::ReadReply::availableAt(mrfAccess(mrfBank(warp, reg), cycle));
  }
  uint64_t t = cycle;
  if (wcb_ports_) {
    t = wcb_ports_->access(warp, t);
    ++n_.wcb_lookups;
  }
  Warp& w = w_[warp];
  if (mode_ == Mode::Rfc && reg < kMaxRegs) {
    if (w.miss.test(reg)) {
      w.miss.reset(reg);
      ++n_.rfc_misses, ++n_.operand_mrf_reads, ++n_.mrf_reads, ++n_.rfc_writes;
      // Gebhart's cache: the miss reads the MRF over the baseline crossbar
      // (one cycle) and fills the cache beside the collector.
      return sm::ReadReply::availableAt(mrfAccess(mrfBank(warp, reg), t) + 1);
    }
    ++n_.rfc_hits;
  }
  const uint64_t before = rfc_.conflictCycles();
  t = rfc_.access((row - rf_rows_) % n_regs_, t);
  n_.rfc_conflict_cycles += rfc_.conflictCycles() - before;
  ++n_.rfc_reads;
  return sm::ReadReply::availableAt(t);
}

void LtrfSm::write(uint32_t warp, uint32_t reg, uint32_t row, uint64_t cycle) {
  if (stacked_ && !mach::isGpr(reg)) {
    ++n_.mrf_writes;
    mrfAccess(row % mrf_banks_, cycle);
    if (under_level_) under_level_->write(warp, reg, row, cycle);
    return;
  }
  if (row < rf_rows_) {
    ++n_.mrf_writes;
    mrfAccess(mrfBank(warp, reg), cycle);
    return;
  }
  ++n_.rfc_writes;
  rfc_.access((row - rf_rows_) % n_regs_, cycle);
  if (mode_ == Mode::Rfc && reg < kMaxRegs && w_[warp].wcb.valid.test(reg)) w_[warp].dirty.set(reg);
}

// ---------------------------------------------------------------- the two-level scheduler

uint64_t LtrfSm::onActivate(uint32_t warp, uint64_t now) {
  Warp& w = w_[warp];
  ++n_.activations;
  w.active = true;
  syncWake(warp);
  if (!offsets_.allocate(w.wcb.offset))
    throw Error(fmt::format("ltrf: warp slot {} activated with all {} warp offsets taken (sm.active_warps)", warp,
                            offsets_.size()));
  if (rtl_) rtlOp(WcbRtl::Op::Act, warp, 0, 0, w.wcb.offset);
  if (!prefetching_) return now;
  // The current interval's working set again (docs/ltrf.md), after the
  // warp's own write-backs reached the MRF.
  const uint64_t before = n_.fetched;
  w.ready = moveTo(warp, w.set, std::max(now, w.wb_done));
  syncWake(warp);
  n_.activation_fetched += n_.fetched - before;
  return w.ready;
}

void LtrfSm::onDeactivate(uint32_t warp, uint64_t now) {
  Warp& w = w_[warp];
  ++n_.deactivations;
  w.active = false;
  syncWake(warp);
  const uint64_t before = n_.written_back;
  w.wb_done = flush(warp, now, !sm_.warpDone(warp));
  n_.deactivation_written += n_.written_back - before;
  if (w.wcb.offset != Wcb::kNone) {
    if (rtl_) rtlOp(WcbRtl::Op::Deact, warp, 0, 0, w.wcb.offset);
    offsets_.free(w.wcb.offset);
  }
  w.wcb.offset = Wcb::kNone;
}

// ---------------------------------------------------------------- the prefetch gate

const func::DInstr* LtrfSm::entryOf(const func::DInstr& d) const {
  if (isPrefetch(d)) return &d;
  const uint32_t v = entry_field_.get(*d.in);
  if (!v) return nullptr;
  const func::DInstr* e = &d + (static_cast<int64_t>(v) - 32768);
  if (!isPrefetch(*e))
    throw Error(fmt::format("ltrf: ltrf.entry of an instruction points {} instructions away, at no prefetch",
                            static_cast<int64_t>(v) - 32768));
  return e;
}

bool LtrfSm::flags(const func::DInstr& d) const {
  if (mode_ == Mode::LtrfPlus) return true;  // every instruction's dead-operand bits
  return isPrefetch(d) || entry_field_.get(*d.in) != 0;
}

// Only an instruction whose interval entry moved registers ends the cycle's
// issue (issued() records it just before the SM asks).
bool LtrfSm::holdsPair(const func::DInstr& d) const {
  return last_moved_ && (isPrefetch(d) || entry_field_.get(*d.in) != 0);
}

const func::DInstr* LtrfSm::entryOf(Warp& w, const func::DInstr& d) const {
  if (w.entry_of != &d) {
    w.entry_of = &d;
    w.entry = entryOf(d);
  }
  return w.entry;
}

bool LtrfSm::mayIssue(uint32_t warp, const func::DInstr& d, uint64_t now) {
  Warp& w = w_[warp];
  const func::DInstr* e = entryOf(w, d);
  if (!e) return true;
  // In the interval already: a loop's prefetch again, or a block inside it.
  if (e == w.cur_entry && !w.waiting) return true;
  if (!w.active) return false;
  if (!w.waiting || w.pending != e) {
    w.waiting = true;
    w.moved = true;
    w.pending = e;
    if (e != &d) ++n_.path_refetches;  // resumed inside another interval than the one it ran
    if (whole_set_) moveTo(warp, RegBits{}, now);  // boundary whole_set: the old set leaves entirely
    w.ready = moveTo(warp, prefetchSet(*e->in), now);
    syncWake(warp);
  }
  return now >= w.ready;
}

void LtrfSm::syncWake(uint32_t warp) {
  const Warp& w = w_[warp];
  const uint64_t t = w.active && w.waiting ? w.ready : 0;
  if (wake_[warp] != t) next_wake_.known = false;
  wake_[warp] = t;
}

// Asked several times a tick (translator, level, gate; the idle-cycle
// skipping): the earliest wake after `now` found at an earlier `at` still
// holds while no wake changed and it lies after `now` (the wakes after
// `now` are among those after `at`).
uint64_t LtrfSm::nextEventCycle(uint64_t now) const {
  if (next_wake_.known && now >= next_wake_.at && next_wake_.next > now) return next_wake_.next;
  uint64_t n = UINT64_MAX;
  for (const uint64_t t : wake_)
    if (t > now) n = std::min(n, t);
  next_wake_ = NextWake{true, now, n};
  return n;
}

RegBits LtrfSm::killed(const func::DInstr& d) {
  RegBits k;
  const ptx::Instr& in = *d.in;
  if (!in.dead) return k;
  auto add = [&](uint32_t r, unsigned bits) {
    if (r >= mach::kRZ) return;
    k.set(r);
    if (bits == 64 && r + 1 < mach::kRZ) k.set(r + 1);
  };
  for (unsigned s = 0; s < in.nsrc && s < 5; ++s) {
    if (!((in.dead >> s) & 1)) continue;
    const ptx::Operand& o = in.src[s];
    if (o.kind == ptx::OperandKind::Reg || o.kind == ptx::OperandKind::Addr) add(o.regs[0], o.mbits);
    else if (o.kind == ptx::OperandKind::Vec)
      for (unsigned i = 0; i < o.vec_n && i < o.regs.size(); ++i) add(o.regs[i], o.mbits);
  }
  return k;
}

void LtrfSm::issued(uint32_t warp, const func::DInstr& d, const func::StepInfo& info, uint64_t) {
  Warp& w = w_[warp];
  w.issued_any = true;
  last_moved_ = w.moved;
  w.moved = false;
  if (mode_ != Mode::Rfc && mode_ != Mode::Bl)
    if (const func::DInstr* e = entryOf(w, d)) {
      w.cur_entry = e;
      w.waiting = false;
      syncWake(warp);
      w.pending = nullptr;
      if (e == &d) ++n_.prefetch_instrs;
    }
  if (mode_ != Mode::LtrfPlus) return;
  // Table 4's "optimal" interval length: the warp's dynamic instructions cut
  // greedily into the longest runs that name at most N registers (greedy
  // gives the fewest runs).
  if (!isPrefetch(d)) {
    ++n_.dyn_instrs;
    // regs: the instruction's registers; `fresh` of them not in the run
    // (the run then holds run_count + fresh).
    RegBits regs;
    uint32_t distinct = 0, fresh = 0;
    auto add = [&](uint32_t r) {
      if (r >= mach::kRZ || regs[r]) return;
      regs[r] = true;
      ++distinct;
      if (!w.run[r]) ++fresh;
    };
    for (unsigned i = 0; i < d.nreads; ++i) add(d.reads[i]);
    for (unsigned i = 0; i < d.nwrites; ++i) add(d.writes[i]);
    if (!w.run_started || w.run_count + fresh > n_regs_) {
      ++n_.optimal_runs;
      w.run = regs;
      w.run_count = distinct;
      w.run_started = true;
    } else {
      w.run |= regs;
      w.run_count += fresh;
    }
  }
  // The liveness vector (LTRF+): a register whose value a source reads for
  // the last time is dead -- but only while the warp runs converged (one
  // SIMT entry per call frame): a path still pending may read it.
  if (info.simt_depth == 2 * info.call_depth - 1) {
    if (fault_dead_all_)
      for (unsigned i = 0; i < d.nreads; ++i)
        if (d.reads[i] < mach::kRZ) w.wcb.live.reset(d.reads[i]);
    const RegBits k = killed(d);
    if (k.any()) {
      w.wcb.live &= ~k;
      ++n_.live_updates;
    }
  }
  for (unsigned i = 0; i < d.nwrites; ++i)
    if (d.writes[i] < mach::kRZ) {
      w.wcb.live[d.writes[i]] = true;
      w.dirty[d.writes[i]] = true;  // dirty_only: written since it was fetched (freeSlot clears it)
    }
}

uint32_t LtrfSm::onWarpLaunch(uint32_t warp, rt::Dim3, uint32_t) {
  Warp& w = w_[warp];
  if (w.wcb.offset != Wcb::kNone) offsets_.free(w.wcb.offset);
  w = Warp{};
  syncWake(warp);
  w.aau.reset(n_regs_);
  if (rtl_) rtlOp(WcbRtl::Op::Launch, warp, 0, 0, 0);
  w.wcb.live.set(mach::kSP);
  return 0;
}

std::string LtrfSm::describe() const {
  std::string s;
  for (size_t i = 0; i < w_.size(); ++i) {
    const Warp& w = w_[i];
    if (!w.active && !w.waiting && w.wcb.valid.none()) continue;
    s += fmt::format("  ltrf warp slot {}: {} offset {} cached {} set {} live {}{}\n", i,
                     w.active ? "active" : "inactive", w.wcb.offset == Wcb::kNone ? -1 : int(w.wcb.offset),
                     w.wcb.valid.count(), w.set.count(), w.wcb.live.count(),
                     w.waiting ? fmt::format(", waiting for its prefetch until cycle {}", w.ready) : "");
  }
  return s;
}

}  // namespace rfsim::mech::ltrf
