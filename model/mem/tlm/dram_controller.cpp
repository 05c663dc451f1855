#include "mem/tlm/dram_controller.h"

#include <algorithm>
#include <cmath>

namespace rfsim::mem {

namespace {
constexpr uint64_t kNever = UINT64_MAX;
constexpr int kMaxGapsTried = 16;
}

DramController::DramController(const config::GpuConfig& cfg)
    : period_ps_(corePeriodPs(cfg)), map_(cfg.l2.num_slices, cfg.l2.cache.line_bytes) {
  configure(cfg);
}

void DramController::configure(const config::GpuConfig& cfg) {
  // Counters survive a new clock: fold what was counted in the old one.
  const Counters before = counters();
  busy_base_ps_ = before.busy_ps;
  queue_base_ps_ = before.queue_ps;
  busy_cycles_ = queue_cycles_ = 0;
  cfg_ = cfg.dram;
  map_ = AddressMap(cfg.l2.num_slices, cfg.l2.cache.line_bytes);
  slices_per_channel_ = std::max(1u, cfg.l2.num_slices / cfg_.num_channels);
  lines_per_row_ = std::max(1u, cfg_.row_bytes / cfg.l2.cache.line_bytes);
  line_burst_ = burst(cfg.l2.cache.line_bytes);
  // The clock to 1 kHz: cycle <-> ps conversions are exact integer ones.
  khz_ = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(cfg_.clock_mhz * 1000.0)));
  latency_ps_ = uint64_t{cfg_.latency} * period_ps_;
  quantum_ = toCycle(uint64_t{cfg.sim.quantum_cycles} * period_ps_);
  reset();
}

void DramController::reset() {
  banks_.assign(cfg_.banks, Bank{});
  group_col_.assign(cfg_.bank_groups, 0);
  last_col_ = bus_free_ = 0;
  rd_ok_ = wr_ok_ = rd_ok_from_ = wr_ok_from_ = 0;
  acts_.clear();
  // Idle bus slots too short for a line are not kept: every kept slot holds
  // any request, so the search ends at the first one reaching far enough.
  bus_gaps_ = IdleGaps{std::max<uint64_t>({1, cfg_.t_ccd_s, line_burst_}), {}};
  pending_.clear();
  head_ = 0;
  admitted_.clear();
  ahead_head_ = 0;
}

uint64_t DramController::toCycle(uint64_t ps) const {
  const unsigned __int128 x = static_cast<unsigned __int128>(ps) * khz_;
  return static_cast<uint64_t>((x + kPsPerKhzClock - 1) / kPsPerKhzClock);
}

uint64_t DramController::toPsCeil(uint64_t cycles) const {
  const unsigned __int128 x = static_cast<unsigned __int128>(cycles) * kPsPerKhzClock;
  return static_cast<uint64_t>((x + khz_ - 1) / khz_);
}

DramController::Place DramController::place(uint64_t line_addr) const {
  const uint64_t line = map_.localLine(line_addr) * slices_per_channel_ + map_.sliceOf(line_addr) % slices_per_channel_;
  const uint64_t stripe = line / lines_per_row_;
  Place p;
  p.column = line % lines_per_row_;
  p.row = stripe / cfg_.banks;
  p.bank = static_cast<uint32_t>((stripe % cfg_.banks + p.row % cfg_.banks) % cfg_.banks);
  p.group = p.bank % cfg_.bank_groups;
  return p;
}

// The controller's queue: column commands still to come at `arrival`
// (those at or before `now` have left).
uint64_t DramController::admit(uint64_t arrival, uint64_t now) {
  while (head_ < pending_.size() && pending_[head_] <= now) ++head_;
  while (ahead_head_ < admitted_.size() && admitted_[ahead_head_] <= now) ++ahead_head_;
  if (head_ >= 256 && 2 * head_ >= pending_.size()) {  // drop what has left, now and then
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  if (ahead_head_ >= 256 && 2 * ahead_head_ >= admitted_.size()) {
    admitted_.erase(admitted_.begin(), admitted_.begin() + static_cast<std::ptrdiff_t>(ahead_head_));
    ahead_head_ = 0;
  }
  // Waiting at `arrival`: column commands after it, less those of requests
  // that arrive more than a quantum after it (stamped ahead; a column
  // command is never before its request's arrival).
  const auto first = pending_.begin() + static_cast<std::ptrdiff_t>(head_);
  const auto after = std::upper_bound(first, pending_.end(), arrival);
  const auto later = admitted_.end() - std::upper_bound(admitted_.begin() + static_cast<std::ptrdiff_t>(ahead_head_),
                                                         admitted_.end(), arrival + quantum_);
  const auto waiting = (pending_.end() - after) - later;
  if (waiting < static_cast<std::ptrdiff_t>(cfg_.queue_depth)) return arrival;
  return *(after + (waiting - cfg_.queue_depth));  // one leaves: room for this one
}

DramController::Counters DramController::counters() const {
  Counters c = c_;
  c.busy_ps = busy_base_ps_ + static_cast<uint64_t>(static_cast<unsigned __int128>(busy_cycles_) * kPsPerKhzClock / khz_);
  c.queue_ps =
      queue_base_ps_ + static_cast<uint64_t>(static_cast<unsigned __int128>(queue_cycles_) * kPsPerKhzClock / khz_);
  return c;
}

// The earliest ACT at or after `t` that tRRD and tFAW allow against the
// ACTs placed so far (before or after t): none closer than t_rrd, and any
// five consecutive ones at least t_faw apart.
uint64_t DramController::actAfter(uint64_t t) const {
  const uint64_t rrd = cfg_.t_rrd, faw = cfg_.t_faw;
  const auto begin = acts_.begin(), end = acts_.end();
  for (;;) {
    // A placed ACT closer than t_rrd: step past it.
    const auto near = std::lower_bound(begin, end, t >= rrd ? t - rrd + 1 : 0);
    if (rrd > 0 && near != end && *near < t + rrd) {
      t = *near + rrd;
      continue;
    }
    if (faw == 0) return t;
    // t would sit before acts_[p]; check each window of five holding it.
    const auto p = static_cast<size_t>(std::lower_bound(begin, end, t) - begin);
    const auto at = [&](size_t i) { return i < p ? acts_[i] : i == p ? t : acts_[i - 1]; };  // with t inserted
    const size_t n = acts_.size() + 1;
    bool moved = false;
    for (size_t s0 = p >= 4 ? p - 4 : 0; s0 <= p && s0 + 4 < n; ++s0) {
      if (at(s0 + 4) - at(s0) >= faw) continue;
      // Too many in t_faw: after this window's last ACT (t itself when last).
      t = s0 + 4 == p ? at(s0) + faw : std::max(t + 1, at(s0 + 4) + rrd);
      moved = true;
      break;
    }
    if (!moved) return t;
  }
}

void DramController::noteAct(uint64_t t, uint64_t now) {
  acts_.insert(std::upper_bound(acts_.begin(), acts_.end(), t), t);
  // ACTs a t_faw window before `now` no longer constrain later ones (every
  // later ACT is at or after now).
  const uint64_t keep_from = now > cfg_.t_faw + cfg_.t_rrd ? now - cfg_.t_faw - cfg_.t_rrd : 0;
  size_t drop = 0;
  while (drop < acts_.size() && acts_[drop] < keep_from && acts_.size() - drop > 4) ++drop;
  if (drop) acts_.erase(acts_.begin(), acts_.begin() + static_cast<std::ptrdiff_t>(drop));
}

// A data-bus slot of `occupancy` starting at or after `earliest` and at or
// before `latest`: an idle slot an older request left (when `may_fill`), or
// after the last placed transfer. kNever when none fits.
uint64_t DramController::busSlot(uint64_t earliest, uint64_t occupancy, uint64_t latest, bool may_fill) {
  if (may_fill && earliest < bus_free_ && !bus_gaps_.gaps.empty()) {
    auto it = bus_gaps_.gaps.upper_bound(earliest);
    if (it != bus_gaps_.gaps.begin()) --it;
    // The first kMaxGapsTried slots from `earliest` (a bound on the search;
    // under a backlog the bus has many slots too short for a line).
    for (int tried = 0; it != bus_gaps_.gaps.end() && it->first <= latest && tried < kMaxGapsTried; ++it, ++tried) {
      const uint64_t s = std::max(it->first, earliest), e = it->second, g0 = it->first;
      if (s + occupancy > e || s > latest) continue;
      bus_gaps_.gaps.erase(it);
      bus_gaps_.keep(g0, s);
      bus_gaps_.keep(s + occupancy, e);
      return s;
    }
  }
  const uint64_t s = std::max(earliest, bus_free_);
  if (s > latest) return kNever;
  bus_gaps_.keep(bus_free_, s);
  bus_free_ = s + occupancy;
  return s;
}

uint64_t DramController::access(uint64_t line_addr, uint64_t bytes, bool read, uint64_t arrival_ps, uint64_t now_ps) {
  const uint64_t now = toCycle(now_ps);
  const uint64_t arrival = toCycle(arrival_ps);
  bus_gaps_.forget(now);
  const uint64_t a = admit(arrival, now);

  const bool frfcfs = cfg_.scheduler == config::DramScheduler::FrFcfs;
  const Place p = place(line_addr);
  Bank& b = banks_[p.bank];
  const uint64_t n = burst(bytes);
  const uint64_t occupancy = std::max<uint64_t>(n, cfg_.t_ccd_s);
  const uint64_t lat = read ? cfg_.t_cl : cfg_.t_cwl;
  const int64_t row = static_cast<int64_t>(p.row);
  // The column command's floor from the row state alone (for queue_ps).
  uint64_t floor = arrival;
  uint64_t data = kNever;

  if (b.idle_from <= a && a + quantum_ < b.idle_to) {
    // Stamped long before its bank's last command: beside it, as a conflict.
    ++c_.row_conflicts;
    floor = arrival + cfg_.t_rp + cfg_.t_rcd;
    data = busSlot(a + cfg_.t_rp + cfg_.t_rcd + lat, occupancy, kNever, true);
  } else if (frfcfs && b.prev_row == row && b.row != row) {
    // FR-FCFS: a row hit in the window the placed precharge closes.
    // Its neighbours in time are its own bank's commands in that window
    // (prev_col_ok: t_ccd_l after the last of them); the group's later
    // commands are not checked.
    const uint64_t col0 = std::max({a, b.prev_col_ok, read && rd_ok_from_ <= a + quantum_ ? rd_ok_ : 0});
    const uint64_t need = read ? cfg_.t_rtp : lat + n + cfg_.t_wr;  // COL to the PRE
    if (b.prev_pre >= col0 + need) {
      const uint64_t d0 = std::max(col0 + lat, !read && wr_ok_from_ <= a + quantum_ ? wr_ok_ : 0);
      data = busSlot(d0, occupancy, b.prev_pre - need + lat, true);
    }
    if (data != kNever) {
      ++c_.row_hits;
      b.prev_col_ok = data - lat + cfg_.t_ccd_l;
    }
  }
  if (data == kNever) {
    if (a > b.last + quantum_) {  // the bank idle since its last command: a later call may use that time
      b.idle_from = b.last;
      b.idle_to = a;
    }
    uint64_t col_min = 0;
    if (b.row == row) {
      ++c_.row_hits;
      col_min = std::max(a, b.col_ok);
    } else {
      uint64_t act = 0;
      if (b.row < 0) {
        ++c_.row_misses;
        floor = arrival + cfg_.t_rcd;
        act = actAfter(std::max(a, b.act_ok));
      } else {
        ++c_.row_conflicts;
        floor = arrival + cfg_.t_rp + cfg_.t_rcd;
        const uint64_t pre = std::max(a, b.pre_ok);
        b.prev_row = b.row;
        b.prev_col_ok = b.col_ok;
        b.prev_pre = pre;
        b.act_ok = pre + cfg_.t_rp;
        act = actAfter(b.act_ok);
      }
      noteAct(act, now);
      b.row = row;
      b.pre_ok = act + cfg_.t_ras;
      col_min = act + cfg_.t_rcd;
    }
    // t_ccd_l against the group's latest column command, when this one
    // would come within t_ccd_l before it or after it.
    if (col_min + 2 * uint64_t{cfg_.t_ccd_l} > group_col_[p.group]) col_min = std::max(col_min, group_col_[p.group]);
    if (!frfcfs) col_min = std::max(col_min, last_col_);  // in order
    // Turnarounds against the latest data, unless that belongs to a request
    // stamped more than a quantum ahead (this one goes before it).
    if (read && rd_ok_from_ <= a + quantum_) col_min = std::max(col_min, rd_ok_);
    const uint64_t d0 = std::max(col_min + lat, !read && wr_ok_from_ <= a + quantum_ ? wr_ok_ : 0);
    data = busSlot(d0, occupancy, kNever, frfcfs);
    const uint64_t col = data - lat;
    b.col_ok = col + cfg_.t_ccd_l;
    b.pre_ok = std::max(b.pre_ok, read ? col + cfg_.t_rtp : data + n + cfg_.t_wr);
    b.last = std::max(b.last, col);
  }

  const uint64_t col = data - lat;
  const uint64_t end = data + n;
  group_col_[p.group] = std::max(group_col_[p.group], col + cfg_.t_ccd_l);
  last_col_ = std::max(last_col_, col);
  if (read && end + cfg_.t_rtw > wr_ok_) {
    wr_ok_ = end + cfg_.t_rtw;
    wr_ok_from_ = a;
  } else if (!read && end + cfg_.t_wtr > rd_ok_) {
    rd_ok_ = end + cfg_.t_wtr;
    rd_ok_from_ = a;
  }
  // Into the queue, in order (usually at or near its end).
  auto it = pending_.end();
  const auto first = pending_.begin() + static_cast<std::ptrdiff_t>(head_);
  while (it != first && *(it - 1) > col) --it;
  pending_.insert(it, col);
  auto jt = admitted_.end();
  const auto afirst = admitted_.begin() + static_cast<std::ptrdiff_t>(ahead_head_);
  while (jt != afirst && *(jt - 1) > arrival) --jt;
  admitted_.insert(jt, arrival);

  busy_cycles_ += n;
  queue_cycles_ += col > floor ? col - floor : 0;
  if (read) {
    ++c_.reads;
    c_.read_bytes += bytes;
  } else {
    ++c_.writes;
    c_.write_bytes += bytes;
  }
  return toPsCeil(end) + latency_ps_;
}

}  // namespace rfsim::mem
