#include "sm/opcoll/operand_collector.h"

#include <string>

#include "common/error.h"

namespace rfsim::sm {

namespace {

inline unsigned ctz(uint64_t m) { return static_cast<unsigned>(__builtin_ctzll(m)); }
inline uint64_t bit(unsigned i) { return uint64_t{1} << i; }

constexpr unsigned kGeneralPool = kNumUnitTypes;

void check(bool ok, const std::string& what) {
  if (!ok) throw Error("operand collector: " + what);
}

}  // namespace


uint64_t OperandCollectorStats::totalReads() const {
  uint64_t s = 0;
  for (uint64_t v : bank_reads) s += v;
  return s;
}

uint64_t OperandCollectorStats::totalWrites() const {
  uint64_t s = 0;
  for (uint64_t v : bank_writes) s += v;
  return s;
}

OperandCollector::OperandCollector(const OperandCollectorConfig& cfg) : cfg_(cfg) {
  check(cfg_.num_banks >= 1 && cfg_.num_banks <= kMaxBanks,
        "num_banks " + std::to_string(cfg_.num_banks) + " is outside [1, " + std::to_string(kMaxBanks) + "]");
  check(cfg_.read_ports_per_bank >= 1 && cfg_.read_ports_per_bank <= 255, "read_ports_per_bank must be in [1, 255]");
  check(cfg_.write_ports_per_bank >= 1 && cfg_.write_ports_per_bank <= 255, "write_ports_per_bank must be in [1, 255]");
  check(cfg_.bank_latency >= 1 && cfg_.bank_latency <= 64, "bank_latency must be in [1, 64]");
  check(cfg_.num_warps >= 1, "num_warps must be at least 1");
  unsigned total = cfg_.general_collectors;
  for (uint32_t n : cfg_.unit_collectors) total += n;
  check(total >= 1 && total <= kMaxCollectors,
        std::to_string(total) + " collector units; must be in [1, " + std::to_string(kMaxCollectors) + "]");
  num_collectors_ = total;

  check(cfg_.collector_groups >= 1 && cfg_.collector_groups <= kMaxCollectors, "collector_groups must be in [1, 64]");
  check(cfg_.reuse_caches <= 64, "reuse_caches must be in [0, 64]");
  group_.assign(cfg_.collector_groups, 0);
  reuse_.resize(cfg_.reuse_caches);

  // Pools are contiguous ranges of collector IDs: the per-type ones, then the
  // general ones; within a pool, collector i belongs to group i % groups.
  unsigned next = 0;
  for (unsigned p = 0; p <= kNumUnitTypes; ++p) {
    uint32_t n = p < kNumUnitTypes ? cfg_.unit_collectors[p] : cfg_.general_collectors;
    check(n % cfg_.collector_groups == 0, std::to_string(n) + " collectors of a pool do not split evenly into " +
                                              std::to_string(cfg_.collector_groups) + " groups");
    for (uint32_t i = 0; i < n; ++i, ++next) {
      free_[p] |= bit(next);
      col_[next].pool = static_cast<uint8_t>(p);
      group_[i % cfg_.collector_groups] |= bit(next);
    }
  }

  base_translator_ = std::make_unique<BaseIndexTranslator>(cfg_.num_warps);
  translator_ = base_translator_.get();
  level_ = &main_rf_;
  map_ = std::make_unique<BankMap>(BankMapParams{cfg_.num_banks, cfg_.bank_swizzle, cfg_.sub_cores});
}

OperandCollector::~OperandCollector() = default;

void OperandCollector::setTranslator(RegTranslator* t) {
  if (t && translator_ != base_translator_.get() && translator_ != t)
    throw Error("the register translator is already installed by another mechanism");
  translator_ = t ? t : base_translator_.get();
}

void OperandCollector::setLevel(RegFileLevel* level) {
  if (level && level_ != &main_rf_ && level_ != level)
    throw Error("the register-file level in front of the main register file is already installed by another "
                "mechanism");
  level_ = level ? level : &main_rf_;
}

void OperandCollector::setBankMap(const BankMap& map) {
  check(map.numBanks() == cfg_.num_banks, "bank map has " + std::to_string(map.numBanks()) + " banks, the register file " +
                                              std::to_string(cfg_.num_banks));
  map_ = std::make_unique<BankMap>(map);
}

uint32_t OperandCollector::indexFor(uint32_t warp, uint32_t reg, uint32_t& row) {
  row = translator_->translate(warp, reg);
  return bankFor(warp, reg, row);
}

uint32_t OperandCollector::bankOf(uint32_t warp, uint16_t reg) {
  uint32_t row = 0;
  return indexFor(warp, reg, row);
}

bool OperandCollector::allocate(uint32_t warp, UnitType unit, const uint16_t* regs, unsigned n, uint64_t tag,
                                 const uint32_t* rows, uint8_t reuse) {
  // Tested before the message is built: this is on the issue path.
  if (n > kMaxSrcOperands)
    check(false, std::to_string(n) + " source operands; at most " + std::to_string(kMaxSrcOperands));
  if (unit >= UnitType::Count_) check(false, "bad unit type");
  const uint64_t mine = group_[groupOf(warp)];
  unsigned pool = static_cast<unsigned>(unit);
  if ((free_[pool] & mine) == 0) pool = kGeneralPool;
  if ((free_[pool] & mine) == 0) {
    ++stats_.alloc_failures;
    return false;
  }
  unsigned c = ctz(free_[pool] & mine);
  free_[pool] &= ~bit(c);
  ++stats_.allocations;

  Collector& k = col_[c];
  k.tag = tag;
  k.warp = warp;
  k.unit = unit;
  // Added stages: the operands are in hand no earlier than stage_delay_
  // cycles after the first cycle they could be.
  k.ready_at = stage_delay_ ? next_cycle_ + stage_delay_ : 0;
  k.pending = 0;
  unsigned ops = 0;
  std::array<ReuseEntry, kMaxSrcOperands>* rc = reuse_.empty() ? nullptr : &reuse_[warp % reuse_.size()];
  std::array<uint32_t, kMaxSrcOperands> slot_row{};
  for (unsigned i = 0; i < n; ++i) {
    unsigned dup = i;
    for (unsigned j = 0; j < i && dup == i; ++j)
      if (regs[j] == regs[i]) dup = j;
    if (dup != i) {
      ++stats_.duplicate_reads;
      slot_row[i] = slot_row[dup];
      continue;
    }
    uint32_t row = 0;
    uint32_t b = 0;
    if (rows) {
      row = rows[i];
      b = bankFor(warp, regs[i], row);
    } else {
      b = indexFor(warp, regs[i], row);
    }
    slot_row[i] = row;
    if (rc) {
      const ReuseEntry& e = (*rc)[i];
      if (e.valid && e.warp == warp && e.row == row) {
        ++stats_.reuse_hits;  // in the collector already: no bank, no level
        continue;
      }
    }
    ReadReply r = level_->read(warp, regs[i], row, next_cycle_);
    if (r.kind == ReadReply::Kind::kBank) {
      k.bank[ops] = static_cast<uint8_t>(b);
      k.pending |= static_cast<uint8_t>(1u << ops);
      ++ops;
    } else {
      ++stats_.level_reads;
      if (r.at > k.ready_at) k.ready_at = r.at;
    }
  }
  k.num_ops = static_cast<uint8_t>(ops);
  if (rc)
    for (unsigned i = 0; i < n; ++i) {  // slots without an operand keep what they hold
      ReuseEntry& e = (*rc)[i];
      e.valid = reuse >> i & 1u;
      e.warp = warp;
      e.row = slot_row[i];
    }

  busy_mask_ |= bit(c);
  ++busy_count_;
  order_[order_len_++] = static_cast<uint8_t>(c);
  if (k.pending)
    pending_mask_ |= bit(c);
  else
    waiting_mask_ |= bit(c);  // nothing for the banks: ready in the next cycle() that reaches ready_at
  return true;
}

void OperandCollector::makeReady(unsigned c) {
  ready_mask_ |= bit(c);
  ready_by_unit_[static_cast<unsigned>(col_[c].unit)] |= bit(c);
}

void OperandCollector::cycle(uint64_t now) {
  next_cycle_ = now + 1;
  ++stats_.cycles;
  stats_.occupancy_sum += busy_count_;
  if ((pending_mask_ | waiting_mask_ | write_banks_) == 0) return;

  if (pending_mask_) {
    // Reads granted per bank this cycle; only the banks in `touched` are
    // non-zero, and only they are cleared again.
    std::array<uint8_t, kMaxBanks> granted;
    uint64_t touched = 0;
    const unsigned ports = cfg_.read_ports_per_bank;
    const unsigned limit = cfg_.reads_per_collector ? cfg_.reads_per_collector : kMaxSrcOperands;
    const bool shared = cfg_.shared_read_write_ports;
    const uint64_t extra = cfg_.bank_latency - 1;  // a slower bank's value arrives later
    // Oldest instruction first; within one, operand order (GPGPU-Sim's
    // per-bank FIFO queues).
    for (unsigned i = 0; i < order_len_; ++i) {
      unsigned c = order_[i];
      if (!(pending_mask_ & bit(c))) continue;
      Collector& k = col_[c];
      unsigned taken = 0;
      for (unsigned m = k.pending; m; m &= m - 1) {
        unsigned j = ctz(m);
        if (taken >= limit) {
          ++stats_.collector_port_stalls;
          continue;
        }
        unsigned b = k.bank[j];
        if (!(touched & bit(b))) {
          touched |= bit(b);
          // A write booked in this bank takes a port first (shared ports).
          granted[b] = shared ? static_cast<uint8_t>(writes_[b] < ports ? writes_[b] : ports) : 0;
        }
        if (granted[b] < ports) {
          ++granted[b];
          ++stats_.bank_reads[b];
          k.pending &= static_cast<uint8_t>(~(1u << j));
          ++taken;
          if (extra && now + extra > k.ready_at) k.ready_at = now + extra;
        } else {
          ++stats_.bank_conflicts;
        }
      }
      if (!k.pending) {
        pending_mask_ &= ~bit(c);
        if (k.ready_at <= now)
          makeReady(c);
        else
          waiting_mask_ |= bit(c);
      }
    }
  }

  for (uint64_t m = waiting_mask_; m; m &= m - 1) {
    unsigned c = ctz(m);
    if (col_[c].ready_at <= now) {
      waiting_mask_ &= ~bit(c);
      makeReady(c);
    }
  }

  for (uint64_t m = write_banks_; m; m &= m - 1) writes_[ctz(m)] = 0;
  write_banks_ = 0;
}

int OperandCollector::oldestIn(uint64_t mask) const {
  for (unsigned i = 0; i < order_len_; ++i)
    if (mask & bit(order_[i])) return order_[i];
  return -1;
}

bool OperandCollector::peekReady(UnitType unit, uint64_t& tag, unsigned group) const {
  int c = oldestIn(ready_by_unit_[static_cast<unsigned>(unit)] & (group == kAnyGroup ? ~uint64_t{0} : group_[group]));
  if (c < 0) return false;
  tag = col_[c].tag;
  return true;
}

bool OperandCollector::popReady(UnitType unit, uint64_t& tag, unsigned group) {
  int c = oldestIn(ready_by_unit_[static_cast<unsigned>(unit)] & (group == kAnyGroup ? ~uint64_t{0} : group_[group]));
  if (c < 0) return false;
  tag = col_[c].tag;
  release(static_cast<unsigned>(c));
  return true;
}

void OperandCollector::release(unsigned c) {
  uint64_t b = bit(c);
  busy_mask_ &= ~b;
  --busy_count_;
  ready_mask_ &= ~b;
  ready_by_unit_[static_cast<unsigned>(col_[c].unit)] &= ~b;
  free_[col_[c].pool] |= b;
  unsigned i = 0;
  while (order_[i] != c) ++i;
  for (; i + 1 < order_len_; ++i) order_[i] = order_[i + 1];
  --order_len_;
}

unsigned OperandCollector::busyCollectors() const { return busy_count_; }

bool OperandCollector::requestWrite(uint32_t warp, uint16_t reg) { return requestWrites(warp, &reg, 1) == 1; }

unsigned OperandCollector::requestWrites(uint32_t warp, const uint16_t* regs, unsigned n, const uint32_t* rows) {
  if (n > kMaxSrcOperands)
    check(false, std::to_string(n) + " destination registers; at most " + std::to_string(kMaxSrcOperands));
  std::array<uint32_t, kMaxSrcOperands> row{};
  std::array<uint8_t, kMaxSrcOperands> bank{};
  std::array<bool, kMaxSrcOperands> dup{};
  std::array<uint8_t, kMaxBanks> need{};
  bool fits = true, own_excess = false;
  for (unsigned i = 0; i < n; ++i) {
    for (unsigned j = 0; j < i && !dup[i]; ++j) dup[i] = regs[j] == regs[i];
    if (dup[i]) continue;
    uint32_t b = 0;
    if (rows) {
      row[i] = rows[i];
      b = bankFor(warp, regs[i], row[i]);
    } else {
      b = indexFor(warp, regs[i], row[i]);
    }
    bank[i] = static_cast<uint8_t>(b);
    if (++need[b] > cfg_.write_ports_per_bank) own_excess = true;
    if (writes_[b] + need[b] > cfg_.write_ports_per_bank) fits = false;
  }
  // All or none; but an instruction that alone needs more writes in one bank
  // than it has ports (a 64-bit pair in one bank with one write port) could
  // never be written whole: it writes its registers in order, as many per
  // cycle as the ports allow, and the caller retries the rest.
  if (!fits && !own_excess) {
    ++stats_.write_port_conflicts;
    return 0;
  }
  unsigned done = 0;
  for (; done < n; ++done) {
    if (dup[done]) continue;
    const unsigned b = bank[done];
    if (writes_[b] >= cfg_.write_ports_per_bank) break;
    ++writes_[b];
    write_banks_ |= bit(b);
    if (level_->takesWrites()) ++stats_.level_writes;
    else ++stats_.bank_writes[b];
    level_->write(warp, regs[done], row[done], next_cycle_);
  }
  if (done < n) ++stats_.write_port_conflicts;
  return done;
}

}  // namespace rfsim::sm
