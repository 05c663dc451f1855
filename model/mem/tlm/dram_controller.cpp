#include "mem/tlm/dram_controller.h"

#include <algorithm>
#include <cmath>

namespace rfsim::mem {

namespace {
constexpr uint64_t kNever = UINT64_MAX;
constexpr int kMaxScanned = 64;  // windows or bus gaps one search tries before going after the last
}  // namespace

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
  // Idle bus time shorter than a line's transfer is not kept: a search for
  // room then ends at the first gap far enough along (but for turnarounds).
  gaps_.min_gap_ps = occupancy(burst(cfg.l2.cache.line_bytes));
  // The clock to 1 kHz: cycle <-> ps conversions are exact integer ones.
  khz_ = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(cfg_.clock_mhz * 1000.0)));
  latency_ps_ = uint64_t{cfg_.latency} * period_ps_;
  reset();
}

void DramController::reset() {
  banks_.assign(cfg_.banks, Windows{});
  bus_.clear();
  gaps_.gaps.clear();
  bus_free_ = 0;
  fcfs_cols_.clear();
  acts_.clear();
  arrivals_ = {};
  cols_ = {};
  waiting_at_now_ = 0;
  now_ = 0;
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
  const uint64_t b = cfg_.banks, first = stripe % b;
  if (cfg_.bank_map == config::DramBankMap::Rotate || b == 1) {
    p.bank = static_cast<uint32_t>((first + p.row) % b);
  } else {
    // Every bank-sized digit of the row folded in, so that rows a multiple
    // of `banks` apart (strides of banks x banks x row_bytes) still spread
    // over the banks: XOR for a power of two, the digits' sum otherwise.
    // GPUs hash as many bits (V100: each bank bit the XOR of 5 to 10
    // address bits up to bit 33; Jain et al., RTAS 2019); docs/memory.md.
    const bool pow2 = (b & (b - 1)) == 0;
    uint64_t mix = 0;
    for (uint64_t r = p.row; r != 0; r /= b) mix = pow2 ? mix ^ (r % b) : mix + r % b;
    p.bank = static_cast<uint32_t>(pow2 ? first ^ mix : (first + mix) % b);
  }
  p.group = p.bank % cfg_.bank_groups;
  return p;
}

DramController::Counters DramController::counters() const {
  Counters c = c_;
  c.busy_ps = busy_base_ps_ + static_cast<uint64_t>(static_cast<unsigned __int128>(busy_cycles_) * kPsPerKhzClock / khz_);
  c.queue_ps =
      queue_base_ps_ + static_cast<uint64_t>(static_cast<unsigned __int128>(queue_cycles_) * kPsPerKhzClock / khz_);
  return c;
}

void DramController::SortedTimes::insert(uint64_t t) {
  auto it = v.end();
  const auto first = v.begin() + static_cast<std::ptrdiff_t>(head);
  while (it != first && *(it - 1) > t) --it;  // usually at or near the end
  v.insert(it, t);
}

size_t DramController::SortedTimes::dropUpTo(uint64_t t) {
  const size_t from = head;
  while (head < v.size() && v[head] <= t) ++head;
  const size_t n = head - from;
  if (head >= 256 && 2 * head >= v.size()) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(head));
    head = 0;
  }
  return n;
}

size_t DramController::SortedTimes::countUpTo(uint64_t t) const {
  return static_cast<size_t>(std::upper_bound(v.begin() + static_cast<std::ptrdiff_t>(head), v.end(), t) - v.begin()) -
         head;
}

// What lies wholly before `now` constrains nothing later: every later call
// arrives at or after it.
void DramController::forget(uint64_t now) {
  if (now <= now_) return;
  now_ = now;
  const size_t arrived = arrivals_.dropUpTo(now), left = cols_.dropUpTo(now);
  waiting_at_now_ = waiting_at_now_ + arrived - left;
  while (bus_.size() >= 2 && std::next(bus_.begin())->first <= now) bus_.erase(bus_.begin());
  gaps_.forget(now);
  while (fcfs_cols_.size() >= 2 && std::next(fcfs_cols_.begin())->first <= now) fcfs_cols_.erase(fcfs_cols_.begin());
  // ACTs a t_faw window before `now` no longer constrain later ones.
  const uint64_t keep_from = now > cfg_.t_faw + cfg_.t_rrd ? now - cfg_.t_faw - cfg_.t_rrd : 0;
  size_t drop = 0;
  while (drop < acts_.size() && acts_[drop] < keep_from && acts_.size() - drop > 4) ++drop;
  if (drop) acts_.erase(acts_.begin(), acts_.begin() + static_cast<std::ptrdiff_t>(drop));
}

// The controller's queue at `arrival`: requests arrived by then whose column
// command is still to come, in the queue or waiting to enter it. Full: this
// one enters when as many more leave as wait beyond the depth.
uint64_t DramController::admit(uint64_t arrival) {
  const uint64_t waiting = waiting_at_now_ + arrivals_.countUpTo(arrival) - cols_.countUpTo(arrival);
  if (waiting < cfg_.queue_depth) return arrival;
  const size_t after = cols_.head + cols_.countUpTo(arrival);  // the first to leave after `arrival`
  const size_t k = after + static_cast<size_t>(waiting - cfg_.queue_depth);
  return k < cols_.v.size() ? cols_.v[k] : cols_.v.back();
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

uint64_t DramController::fcfsFloor(uint64_t arrival) const {
  auto it = fcfs_cols_.upper_bound(arrival);
  return it == fcfs_cols_.begin() ? 0 : std::prev(it)->second;
}

void DramController::noteFcfs(uint64_t arrival, uint64_t col) {
  const uint64_t v = std::max(col, fcfsFloor(arrival));
  auto it = fcfs_cols_.insert_or_assign(arrival, v).first;
  // Later arrivals whose latest is no later are covered by this one.
  for (auto nx = std::next(it); nx != fcfs_cols_.end() && nx->second <= v;) nx = fcfs_cols_.erase(nx);
}

void DramController::noteAct(uint64_t t) { acts_.insert(std::upper_bound(acts_.begin(), acts_.end(), t), t); }

// Data at or after `earliest`, at or before `latest`: in the first idle gap
// of the bus where the transfers on both sides allow it (the bus, t_ccd_s /
// t_ccd_l between column commands, t_wtr and t_rtw), else after the last.
uint64_t DramController::findSlot(const Request& req, uint64_t earliest, uint64_t latest) const {
  if (earliest > latest) return kNever;
  const int64_t lat = static_cast<int64_t>(colToData(req.read)), occ = static_cast<int64_t>(occupancy(req.n));
  // The earliest data in [lo, hi - occ] that the neighbours prev and next allow.
  const auto fit = [&](int64_t lo, int64_t hi, const Transfer* prev, const std::pair<const uint64_t, Transfer>* next) {
    int64_t d = lo;
    if (prev) {
      const int64_t pend = static_cast<int64_t>(prev->end), pcol = static_cast<int64_t>(prev->col);
      d = std::max(d, pend);
      d = std::max(d, pcol + (prev->group == req.group ? cfg_.t_ccd_l : cfg_.t_ccd_s) + lat);
      if (!prev->read && req.read) d = std::max(d, pend + cfg_.t_wtr + lat);
      if (prev->read && !req.read) d = std::max(d, pend + cfg_.t_rtw);
    }
    int64_t top = hi - occ;
    if (next) {
      const int64_t qstart = static_cast<int64_t>(next->first), qcol = static_cast<int64_t>(next->second.col);
      top = std::min(top, qstart - occ);
      top = std::min(top, qcol - (next->second.group == req.group ? cfg_.t_ccd_l : cfg_.t_ccd_s) + lat);
      if (!req.read && next->second.read) top = std::min(top, qcol - cfg_.t_wtr - occ);
      if (req.read && !next->second.read) top = std::min(top, qstart - occ - cfg_.t_rtw);
    }
    return d <= top ? static_cast<uint64_t>(d) : kNever;
  };
  const auto& gaps = gaps_.gaps;
  if (earliest < bus_free_ && !gaps.empty()) {
    auto g = gaps.upper_bound(earliest);
    if (g != gaps.begin()) --g;
    for (int tried = 0; g != gaps.end() && g->first <= latest && tried < kMaxScanned; ++g, ++tried) {
      if (g->second <= earliest) continue;
      const auto q = bus_.lower_bound(g->first);  // the transfer after the gap
      const Transfer* prev = q == bus_.begin() ? nullptr : &std::prev(q)->second;
      const auto* next = q == bus_.end() ? nullptr : &*q;
      const uint64_t d = fit(static_cast<int64_t>(std::max(g->first, earliest)), static_cast<int64_t>(g->second), prev, next);
      if (d != kNever && d <= latest) return d;
    }
  }
  const Transfer* last = bus_.empty() ? nullptr : &std::prev(bus_.end())->second;
  const uint64_t d = fit(static_cast<int64_t>(std::max(earliest, bus_free_)), INT64_MAX / 4, last, nullptr);
  return d <= latest ? d : kNever;
}

void DramController::placeTransfer(const Request& req, uint64_t data) {
  const uint64_t end = data + occupancy(req.n);
  if (data >= bus_free_) {
    gaps_.keep(bus_free_, data);
    bus_free_ = end;
  } else {
    auto g = gaps_.gaps.upper_bound(data);
    --g;  // findSlot took it from this gap
    const uint64_t s = g->first, e = g->second;
    gaps_.gaps.erase(g);
    gaps_.keep(s, data);
    gaps_.keep(end, e);
  }
  bus_.emplace(data, Transfer{end, data - colToData(req.read), req.group, req.read});
}

// A row hit in window w: its column command after the ACT's t_rcd, and
// before the PRE that the next window's ACT needs (the PRE moves later up
// to there).
uint64_t DramController::tryHit(const Request& req, Windows::iterator w, Windows::iterator next,
                                 Windows& bank) const {
  const uint64_t col_lo = std::max(req.col_floor, w->first + cfg_.t_rcd);
  uint64_t latest = kNever;
  if (next != bank.end()) {
    const uint64_t latest_pre = next->first - cfg_.t_rp;  // an ACT is at least t_rp after the PRE before it
    const uint64_t need = req.read ? cfg_.t_rtp : req.n + cfg_.t_wr;  // COL (read) / data (write) to PRE
    const uint64_t base = req.read ? colToData(true) : 0;
    if (latest_pre < need) return kNever;
    latest = latest_pre - need + base;
  }
  return findSlot(req, col_lo + colToData(req.read), latest);
}

// A window of its own, in the first idle time of the bank from the request's
// arrival where it fits: after the window before it (precharged at the
// arrival at the earliest) and closed before the next window's ACT.
DramController::NewWindow DramController::tryNew(const Request& req, uint64_t a, Windows& bank) const {
  auto next = bank.upper_bound(a);
  auto prev = next == bank.begin() ? bank.end() : std::prev(next);
  for (int tried = 0;; ++tried) {
    if (tried == kMaxScanned && next != bank.end()) {  // after the last window
      prev = std::prev(bank.end());
      next = bank.end();
    }
    NewWindow nw;
    nw.prev = prev;
    uint64_t act0 = a;
    if (prev != bank.end()) {
      const Window& p = prev->second;
      if (p.pre != kOpen && p.pre <= a) {
        act0 = std::max(a, p.pre + cfg_.t_rp);  // closed before the arrival
      } else {
        act0 = std::max(p.min_pre, a) + cfg_.t_rp;  // PRE at the arrival at the earliest
        nw.precharged = false;
      }
    }
    if (req.col_floor > cfg_.t_rcd) act0 = std::max(act0, req.col_floor - cfg_.t_rcd);
    nw.act = actAfter(act0);
    uint64_t latest = kNever;
    bool fits = true;
    if (next != bank.end()) {
      fits = nw.act + cfg_.t_ras + cfg_.t_rp <= next->first;
      const uint64_t latest_pre = next->first - cfg_.t_rp;
      const uint64_t need = req.read ? cfg_.t_rtp : req.n + cfg_.t_wr;
      if (latest_pre < need) fits = false;
      else latest = latest_pre - need + (req.read ? colToData(true) : 0);
    }
    if (fits) {
      nw.data = findSlot(req, nw.act + cfg_.t_rcd + colToData(req.read), latest);
      if (nw.data != kNever) return nw;
    }
    prev = next;
    ++next;
  }
}

uint64_t DramController::access(uint64_t line_addr, uint64_t bytes, bool read, uint64_t arrival_ps, uint64_t now_ps) {
  const uint64_t now = toCycle(now_ps);
  const uint64_t arrival = toCycle(arrival_ps);
  forget(now);
  const uint64_t a = admit(arrival);

  const bool frfcfs = cfg_.scheduler == config::DramScheduler::FrFcfs;
  const Place p = place(line_addr);
  Windows& bank = banks_[p.bank];
  while (bank.size() >= 2 && std::next(bank.begin())->first <= now) bank.erase(bank.begin());
  Request req{a, frfcfs ? a : std::max(a, fcfsFloor(arrival)), burst(bytes), p.group, read};
  const uint64_t lat = colToData(read);

  // A row hit: in a window of its row from the one open at the arrival on
  // (FR-FCFS), or in the bank's last window (FCFS).
  uint64_t hit_data = kNever;
  auto hit = bank.end();
  if (!bank.empty()) {
    auto w = frfcfs ? bank.upper_bound(a) : bank.end();
    if (w != bank.begin()) --w;
    for (int tried = 0; w != bank.end() && tried < kMaxScanned; ++w, ++tried) {
      if (w->second.row != p.row) continue;
      hit_data = tryHit(req, w, std::next(w), bank);
      if (hit_data != kNever) {
        hit = w;
        break;
      }
    }
  }
  NewWindow nw;
  if (hit == bank.end() || hit->second.opened_for > arrival) nw = tryNew(req, a, bank);
  uint64_t data = 0, floor = arrival;
  if (hit != bank.end() && (hit->second.opened_for <= arrival || hit_data <= nw.data)) {
    ++c_.row_hits;
    data = hit_data;
    Window& w = hit->second;
    w.min_pre = std::max(w.min_pre, preAfter(read, data, req.n));
    if (w.pre != kOpen) w.pre = std::max(w.pre, w.min_pre);
  } else {
    data = nw.data;
    if (nw.precharged) {
      ++c_.row_misses;
      floor = arrival + cfg_.t_rcd;
    } else {
      ++c_.row_conflicts;
      floor = arrival + cfg_.t_rp + cfg_.t_rcd;
      Window& before = nw.prev->second;
      before.pre = std::max(before.min_pre, a);
    }
    Window w{p.row, arrival, std::max(nw.act + cfg_.t_ras, preAfter(read, data, req.n))};
    const auto it = bank.emplace(nw.act, w).first;
    if (std::next(it) != bank.end()) it->second.pre = it->second.min_pre;
    noteAct(nw.act);
  }
  placeTransfer(req, data);

  const uint64_t col = data - lat;
  const uint64_t end = data + req.n;
  if (!frfcfs) noteFcfs(arrival, col);
  // The queue counts it from its arrival: waiting to enter is waiting too.
  if (col > now) {
    if (arrival > now) arrivals_.insert(arrival);
    else ++waiting_at_now_;
    cols_.insert(col);
  }
  busy_cycles_ += req.n;
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
