// The operand collector and its banked register file (GPGPU-Sim/Accel-Sim's
// opndcoll_rfu_t): collector units that hold an issued instruction until all
// its source operands are read, an arbiter that grants each bank at most
// read_ports_per_bank reads per cycle (oldest instruction first), and the
// write-back ports of the banks.
//
// Plain C++: the SM's clocked process calls cycle(now) once per cycle. Nothing
// is allocated after construction; per-cycle state is bitmasks and small
// fixed arrays, and a cycle with nothing pending costs O(1).
//
// Order within one SM cycle `now` (the SM ticks its stages in reverse pipeline
// order, as GPGPU-Sim's shader_core_ctx::cycle does):
//   1. write-back: requestWrite() books write ports for cycle `now`;
//   2. dispatch: popReady() takes instructions made ready by cycle(now - 1);
//   3. cycle(now): arbitration, reads, readiness; the write bookings end here;
//   4. issue: allocate() puts a new instruction in a collector; its reads
//      compete from cycle(now + 1) on.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "config/gpu_config.h"
#include "sm/opcoll/bank_map.h"
#include "sm/opcoll/regfile_level.h"
#include "sm/unit_type.h"

namespace rfsim::sm {


// regfile.num_banks' upper end; bank sets are uint64_t masks.
inline constexpr unsigned kMaxBanks = static_cast<unsigned>(config::RegFileConfig::kNumBanks.hi);
static_assert(kMaxBanks <= 64, "bank sets are uint64_t masks");
inline constexpr unsigned kMaxCollectors = 64;    // collector sets are uint64_t masks
inline constexpr unsigned kMaxSrcOperands = 8;    // GPGPU-Sim's MAX_REG_OPERANDS

// Which index the bank map is applied to.
enum class BankIndex : uint8_t {
  kArchitectural,  // the register the warp names (GPGPU-Sim: reg + warp swizzle)
  kTranslated,     // the physical row the RegTranslator gives
};

struct OperandCollectorConfig {
  // regfile.* of config/gpu_config.h, with its defaults. bank_latency: cycles
  // from a read's grant to its value in the collector (1: the next cycle).
  uint32_t num_banks = config::RegFileConfig{}.num_banks;
  uint32_t read_ports_per_bank = config::RegFileConfig{}.read_ports_per_bank;
  uint32_t write_ports_per_bank = config::RegFileConfig{}.write_ports_per_bank;
  uint32_t bank_latency = config::RegFileConfig{}.bank_latency;
  // Bank map (see BankMapParams).
  uint32_t bank_swizzle = 1;
  uint32_t sub_cores = config::RegFileConfig{}.sub_cores;
  BankIndex bank_index = BankIndex::kArchitectural;
  // false: reads and writes use separate ports. true: a write booked in a bank
  // takes one of that bank's read ports in that cycle, writes first — what
  // GPGPU-Sim's arbiter does (a bank allocated for write is skipped by
  // allocate_reads()).
  bool shared_read_write_ports = false;
  // Collector units: general ones take any instruction; a per-type count
  // reserves units for that type (tried first, then the general ones), as
  // Accel-Sim's operand_collector_num_units_{sp,sfu,...,gen}.
  uint32_t general_collectors = 8;
  std::array<uint32_t, kNumUnitTypes> unit_collectors{};
  // Reads one collector may receive per cycle; 0 = no limit. GPGPU-Sim's
  // wavefront allocator matches banks to collectors one to one: 1.
  uint32_t reads_per_collector = 0;
  // Warps whose base the default BaseIndexTranslator holds.
  uint32_t num_warps = 64;
  // Sub-cores (sm.sub_cores): each pool's collectors are split evenly over
  // this many groups, collector i of a pool in group i % collector_groups;
  // warp w allocates only in group w % collector_groups, and dispatch takes
  // ready instructions per group (peekReady/popReady's `group`).
  uint32_t collector_groups = 1;
  // Operand reuse caches (regfile.operand_reuse): this many, warp w using
  // cache w % reuse_caches (one per scheduler), each with one entry per
  // source-operand slot (kMaxSrcOperands). 0: none.
  uint32_t reuse_caches = 0;
};

// Plain counters; the SM exports them to the stats registry.
struct OperandCollectorStats {
  std::array<uint64_t, kMaxBanks> bank_reads{};   // reads granted, per bank
  std::array<uint64_t, kMaxBanks> bank_writes{};  // writes accepted, per bank
  uint64_t bank_conflicts = 0;         // pending reads that wanted a bank in a cycle and were not granted
  uint64_t collector_port_stalls = 0;  // pending reads held back by reads_per_collector
  uint64_t write_port_conflicts = 0;   // requestWrite() refused: the bank's write ports were taken
  uint64_t level_reads = 0;            // reads the RegFileLevel served itself (ReadReply::kAt)
  uint64_t level_writes = 0;           // write-backs a level that takes writes holds (RegFileLevel::takesWrites)
  uint64_t duplicate_reads = 0;        // source operands that repeated a register of the same instruction
  uint64_t reuse_hits = 0;             // source operands read from an operand reuse cache, not a bank
  uint64_t allocations = 0;
  uint64_t alloc_failures = 0;         // allocate() found no free collector ("collector full")
  uint64_t occupancy_sum = 0;          // busy collectors, summed over cycles
  uint64_t cycles = 0;                 // cycle() calls

  uint64_t totalReads() const;
  uint64_t totalWrites() const;
};

class OperandCollector {
 public:
  // Throws rfsim::Error for a configuration out of range (banks, ports,
  // collectors). The translator and the level are the baseline ones until
  // replaced.
  explicit OperandCollector(const OperandCollectorConfig& cfg);
  ~OperandCollector();
  OperandCollector(const OperandCollector&) = delete;
  OperandCollector& operator=(const OperandCollector&) = delete;

  // Extension points; not owned, must outlive the collector. nullptr restores
  // the baseline. Change them only between kernels.
  void setTranslator(RegTranslator* t);
  void setLevel(RegFileLevel* level);
  void setBankMap(const BankMap& map);  // must have cfg.num_banks banks
  // Extra pipeline cycles between issue and dispatch for every instruction
  // (a mechanism's added stages in issue and operand collection: a rename
  // stage in the collector, a free-register check at issue). 0: none.
  void setStageDelay(uint32_t cycles) { stage_delay_ = cycles; }
  uint32_t stageDelay() const { return stage_delay_; }
  // The baseline translator, to set each warp's base at launch.
  BaseIndexTranslator& baseTranslator() { return *base_translator_; }

  // Issue: puts the instruction in a free collector for `unit` (of the
  // warp's group) and queues the reads of its `n` source registers (a
  // register named twice is read once). False when no collector for `unit`
  // is free: the issue stage records a "collector full" stall. Throws
  // rfsim::Error when n > kMaxSrcOperands. `rows`: the physical rows of the
  // registers, translated by the caller at issue (translate()); nullptr:
  // translated here.
  // Operand reuse (cfg.reuse_caches): register i is the operand in slot i.
  // One whose slot of the warp's reuse cache holds the same warp and row is
  // read from there, without a bank or level read; then each slot i < n
  // keeps this instruction's operand when bit i of `reuse` (the compiler's
  // reuse flags, func::DInstr::reuse) is set, and is emptied otherwise;
  // slots i >= n keep what they hold. An entry names its warp: an
  // instruction of another warp of the scheduler with an operand in that
  // slot replaces it.
  bool allocate(uint32_t warp, UnitType unit, const uint16_t* regs, unsigned n, uint64_t tag,
                const uint32_t* rows = nullptr, uint8_t reuse = 0);
  bool canAllocate(UnitType unit, uint32_t warp = 0) const {  // inline: asked of many warps each cycle
    return ((free_[static_cast<unsigned>(unit)] | free_[kNumUnitTypes]) & group_[groupOf(warp)]) != 0;
  }

  // One cycle of the arbiter and the banks.
  void cycle(uint64_t now);
  // The end of SM cycle `now`: clocks an installed translator
  // (RegTranslator::endCycle); nothing for the baseline.
  void endCycle(uint64_t now) {
    if (translator_ != base_translator_.get()) translator_->endCycle(now);
  }
  // With the baseline translator, and the baseline register file or a
  // level that can tell when it next changes by itself
  // (RegFileLevel::nextEventCycle): cycles in which the collector holds
  // nothing may be skipped (the SM's idle-cycle skipping); skipCycles
  // accounts for `k` of them before the cycle `next` is simulated.
  bool skippable(uint64_t now) const {
    return (translator_ == base_translator_.get() || translator_->nextEventCycle(now) > now) &&
           (level_ == &main_rf_ || level_->nextEventCycle(now) > now);
  }
  // The level's next event after `now` (UINT64_MAX for the baseline's).
  uint64_t levelNextEvent(uint64_t now) const { return level_ == &main_rf_ ? UINT64_MAX : level_->nextEventCycle(now); }
  void skipCycles(uint64_t k, uint64_t next) {
    stats_.cycles += k;
    stats_.occupancy_sum += uint64_t(busy_count_) * k;
    next_cycle_ = next;
  }

  // Dispatch: the oldest instruction for `unit` in collector group `group`
  // whose operands are all read. peekReady() leaves it in its collector (the
  // unit may be busy); popReady() hands it over and frees the collector.
  // kAnyGroup: the oldest of every group (a unit the sub-cores share).
  static constexpr unsigned kAnyGroup = kMaxCollectors;
  bool peekReady(UnitType unit, uint64_t& tag, unsigned group = kAnyGroup) const;
  bool popReady(UnitType unit, uint64_t& tag, unsigned group = kAnyGroup);
  unsigned numGroups() const { return cfg_.collector_groups; }
  bool hasReady() const { return ready_mask_ != 0; }
  bool hasReady(UnitType unit) const { return ready_by_unit_[static_cast<unsigned>(unit)] != 0; }

  // Write-back of one register in the coming cycle (see the order above).
  // False when the bank's write ports are all booked this cycle: the
  // write-back stage retries next cycle.
  bool requestWrite(uint32_t warp, uint16_t reg);
  // An instruction's destination registers: returns how many of them, in
  // order, were booked. All (n) or none (0: some bank's write ports are
  // taken this cycle), except when the instruction alone needs more writes
  // in one bank than it has ports: then the leading registers that fit this
  // cycle (the caller retries the rest next cycle).
  // `rows`: the registers' physical rows, translated at issue (nullptr:
  // translated now).
  unsigned requestWrites(uint32_t warp, const uint16_t* regs, unsigned n, const uint32_t* rows = nullptr);

  // The physical row of a warp's register under the installed translator
  // (a rename port of a translating unit is used for it).
  uint32_t translate(uint32_t warp, uint32_t reg) { return translator_->translate(warp, reg); }
  RegTranslator& translator() { return *translator_; }
  // True when a translator other than the baseline's is installed.
  bool translating() const { return translator_ != base_translator_.get(); }
  // The level a mechanism installed (nullptr: the main register file's).
  RegFileLevel* mechanismLevel() const { return level_ == &main_rf_ ? nullptr : level_; }

  // Bank of a register of a warp under the current translator and map.
  uint32_t bankOf(uint32_t warp, uint16_t reg);

  unsigned busyCollectors() const;
  unsigned numCollectors() const { return num_collectors_; }
  bool idle() const { return busy_mask_ == 0 && write_banks_ == 0; }
  const OperandCollectorStats& stats() const { return stats_; }
  const OperandCollectorConfig& config() const { return cfg_; }

 private:
  struct Collector {
    uint64_t tag = 0;
    uint64_t ready_at = 0;  // latest cycle a RegFileLevel promised an operand for
    uint32_t warp = 0;
    UnitType unit = UnitType::SP;
    uint8_t pool = 0;       // index into free_ (a unit type, or kNumUnitTypes = general)
    uint8_t num_ops = 0;
    uint8_t pending = 0;    // operands still waiting for a bank grant (bit per operand)
    std::array<uint8_t, kMaxSrcOperands> bank{};
  };

  // One slot of an operand reuse cache.
  struct ReuseEntry {
    uint32_t warp = 0, row = 0;
    bool valid = false;
  };

  unsigned groupOf(uint32_t warp) const { return cfg_.collector_groups == 1 ? 0 : warp % cfg_.collector_groups; }
  uint32_t indexFor(uint32_t warp, uint32_t reg, uint32_t& row);
  uint32_t bankFor(uint32_t warp, uint32_t reg, uint32_t row) const {
    return map_->bank(cfg_.bank_index == BankIndex::kTranslated ? row : reg, warp);
  }
  void makeReady(unsigned c);
  void release(unsigned c);
  int oldestIn(uint64_t mask) const;

  OperandCollectorConfig cfg_;
  uint32_t stage_delay_ = 0;
  std::unique_ptr<BaseIndexTranslator> base_translator_;
  MainRegFile main_rf_;
  RegTranslator* translator_;
  RegFileLevel* level_;
  std::unique_ptr<BankMap> map_;

  unsigned num_collectors_ = 0;
  std::array<Collector, kMaxCollectors> col_{};
  // Collectors in allocation order (oldest first): the arbiter's priority.
  std::array<uint8_t, kMaxCollectors> order_{};
  unsigned order_len_ = 0;
  std::array<uint64_t, kNumUnitTypes + 1> free_{};  // free collectors per pool
  std::vector<uint64_t> group_{};                   // collectors per group (cfg.collector_groups)
  std::vector<std::array<ReuseEntry, kMaxSrcOperands>> reuse_;  // per reuse cache, per slot
  uint64_t busy_mask_ = 0;
  unsigned busy_count_ = 0;     // popcount(busy_mask_), kept: no popcnt instruction in the baseline ISA
  uint64_t pending_mask_ = 0;   // collectors with reads waiting for a bank
  uint64_t waiting_mask_ = 0;   // all bank reads done, waiting for a level's cycle
  uint64_t ready_mask_ = 0;
  std::array<uint64_t, kNumUnitTypes> ready_by_unit_{};
  uint64_t next_cycle_ = 0;     // the cycle the next cycle() call simulates (at least)

  // Write ports booked for the coming cycle.
  std::array<uint8_t, kMaxBanks> writes_{};
  uint64_t write_banks_ = 0;

  OperandCollectorStats stats_;
};

}  // namespace rfsim::sm
