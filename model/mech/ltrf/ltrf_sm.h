// LTRF in one SM (Sadrosadati et al., sections 5 and 6; docs/ltrf.md): the
// main register file's banks, the register-file cache with its warp control
// blocks and address allocation units, and the two-level scheduler's
// activation and deactivation, through the SM's extension points:
//
// - RegTranslator: a register with a cache entry lives in the cache's rows
//   (after the MRF's: row = cache base + warp offset x N + bank), every
//   other one in the MRF at the warp's baseline row. The values move with
//   the hardware: a prefetch copies the MRF rows into the cache's, a
//   write-back copies them back, and a value the mechanism drops (LTRF+
//   drops dead registers) is gone, so a wrong working set or a wrong
//   liveness bit breaks the kernel's output;
// - RegFileLevel: operand reads from the cache (a WCB lookup, +wcb_cycles on
//   the warp's two WCB read ports, then the cache bank) or, uncached, from
//   the MRF's banks (bl mode; rfc misses);
// - ActivationHook: a warp entering the active pool takes a warp offset and
//   prefetches its current interval's working set (LTRF+: its live part);
//   it issues when all of it arrived. A warp leaving it writes back its set
//   (LTRF+: the live registers; rfc: the dirty ones) and frees its slots;
// - IssueGate: a prefetch instruction (ltrf.prefetch) at an interval's
//   entry moves the warp to the new set -- the registers it leaves written
//   back, the overlap kept, the new ones fetched (docs/ltrf.md's choice) --
//   and issues when they arrived. In ltrf_plus every instruction updates the
//   liveness vector from its dead-operand bits (only while the warp runs
//   converged: a pending SIMT path may still read a register one path's
//   static liveness calls dead);
// - WarpLaunchHook: a new warp starts with an empty WCB and R1 live.
//
// MRF timing (section 6): a bank is not pipelined; an access holds it for
// its latency. A register crosses the MRF <-> cache crossbar in xbar_cycles
// on its bank's link, so a prefetch takes the bank latency times the
// serialisation of its same-bank registers plus the transfer, and contends
// with other warps' prefetches and write-backs. Bank of register r of warp
// w: (r + w) mod 16 within the 16-bank group w mod (banks / 16).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "config/gpu_config.h"
#include "mech/ltrf/ltrf_config.h"
#include "mech/ltrf/wcb.h"
#include "mech/ltrf/wcb_rtl.h"
#include "sm/core/hooks.h"
#include "sm/issue/scheduler.h"
#include "sm/opcoll/banked_array.h"
#include "sm/opcoll/bank_map.h"
#include "sm/opcoll/regfile_level.h"
#include "ptx/isa_ext.h"

namespace rfsim::sm {
class Sm;
}

namespace rfsim::mech::ltrf {

struct LtrfCounters {
  uint64_t prefetch_instrs = 0;     // ltrf.prefetch instructions issued
  uint64_t transitions = 0;         // prefetches that changed the cached set (interval entries + activations)
  uint64_t fetched = 0;             // registers read from the MRF into the cache
  uint64_t written_back = 0;        // registers written from the cache to the MRF
  uint64_t dropped_dead = 0;        // cached registers freed without a write-back (dead, LTRF+)
  uint64_t clean_kept = 0;          // live registers freed without a write-back, unchanged since fetched (writeback: dirty)
  uint64_t skipped_dead = 0;        // working-set registers given a slot but not fetched (dead, LTRF+)
  uint64_t fetch_sets = 0;          // non-empty fetches (a prefetch or an activation)
  uint64_t fetch_sets_conflict_free = 0;  // ... whose registers are all in different MRF banks
  uint64_t fetch_bank_conflicts = 0;      // registers that waited behind another of the same fetch in its bank
  uint64_t fetch_cycles = 0;        // cycles from a fetch's start to its last register, summed
  uint64_t activations = 0, deactivations = 0;
  uint64_t activation_fetched = 0;    // registers fetched when a warp entered the active pool
  uint64_t deactivation_written = 0;  // registers written back when one left it
  uint64_t rfc_reads = 0, rfc_writes = 0, rfc_conflict_cycles = 0;
  uint64_t rfc_hits = 0, rfc_misses = 0, rfc_evictions = 0;  // rfc mode
  uint64_t mrf_reads = 0, mrf_writes = 0, mrf_wait_cycles = 0;
  uint64_t operand_mrf_reads = 0;   // operand reads served by the MRF (bl mode, rfc misses)
  uint64_t operand_reads = 0;       // operand reads the unit served (to the collectors over their crossbar)
  uint64_t uncached_accesses = 0;   // registers an instruction named that were not cached (ltrf: 0)
  uint64_t wcb_lookups = 0;
  uint64_t xbar_transfers = 0;
  uint64_t live_updates = 0;        // instructions whose dead-operand bits cleared liveness
  uint64_t path_refetches = 0;      // working sets fetched again where a warp resumed a divergent path
  uint64_t dyn_instrs = 0;          // instructions other than prefetches issued (ltrf_plus)
  uint64_t optimal_runs = 0;        // the fewest runs of them naming at most N registers each (ltrf_plus)
  uint64_t rtl_ops = 0;             // operations of the Verilated unit (rtl: true), each result compared
  uint64_t rtl_lookups = 0;         // its lookups compared
  void add(const LtrfCounters& o);
};

class LtrfSm final : public sm::RegTranslator,
                     public sm::RegFileLevel,
                     public sm::ActivationHook,
                     public sm::IssueGate,
                     public sm::WarpLaunchHook {
 public:
  // Throws rfsim::Error when the cache's entries do not match the active
  // warps or ltrf.prefetch is not registered.
  LtrfSm(sm::Sm& sm, const config::GpuConfig& cfg, const LtrfConfig& c);
  ~LtrfSm() override;
  // Installs itself into the SM (translator, physical registers, level,
  // activation hook, gate, launch hook as the mode needs). Over another
  // mechanism's register classes (composition: R2D2's, whose rows are the
  // MRF's top rows) it takes the general registers: the other registers
  // keep their translator and launch hook, and their reads go to their
  // level and to the MRF's bank of their row (class rows are MRF rows,
  // never cached).
  void attach();

  // RegTranslator
  uint32_t translate(uint32_t warp, uint32_t reg) override;
  // The translator, the level and the gate change by themselves only when a
  // waiting warp's prefetch completes.
  uint64_t nextEventCycle(uint64_t now) const override;
  // RegFileLevel
  sm::ReadReply read(uint32_t warp, uint32_t reg, uint32_t row, uint64_t cycle) override;
  void write(uint32_t warp, uint32_t reg, uint32_t row, uint64_t cycle) override;
  // Every result goes to the cache or the MRF model, whose energy the
  // mechanism's own lines account.
  bool takesWrites() const override { return true; }
  // ActivationHook
  uint64_t onActivate(uint32_t warp, uint64_t now) override;
  void onDeactivate(uint32_t warp, uint64_t now) override;
  // IssueGate
  bool flags(const func::DInstr& next) const override;
  // Only an interval's entry (its prefetch, or where a path resumes) holds
  // a warp; LTRF+ flags every instruction for its dead-operand bits.
  bool mayRefuse(const func::DInstr& next) const override {
    return isPrefetch(next) || entry_field_.get(*next.in) != 0;  // entryOf(next) != nullptr
  }
  bool mayIssue(uint32_t warp, const func::DInstr& next, uint64_t now) override;
  // Only a prefetch (or a resumption) that moved registers ends the cycle's
  // issue; the liveness updates of LTRF+ leave dual issue as it is.
  bool holdsPair(const func::DInstr& d) const override;
  void issued(uint32_t warp, const func::DInstr& instr, const func::StepInfo& info, uint64_t now) override;
  // WarpLaunchHook
  uint32_t onWarpLaunch(uint32_t warp, rt::Dim3 ctaid, uint32_t local_warp) override;

  const LtrfCounters& counters() const { return n_; }
  // The Verilated unit in lockstep (rtl: true), or null.
  WcbRtl* rtl() { return rtl_.get(); }
  // The WCB and AAU of a warp slot (tests, the deadlock report).
  const Wcb& wcb(uint32_t warp) const { return w_.at(warp).wcb; }
  const Aau& aau(uint32_t warp) const { return w_.at(warp).aau; }
  // The WCBs of the warps that hold or wait for something (the deadlock report).
  std::string describe() const override;
  uint32_t mrfBank(uint32_t warp, uint32_t reg) const;

 private:
  struct Warp {
    Wcb wcb;
    Aau aau;
    bool active = false;
    bool waiting = false;     // at a prefetch it started, until `ready`
    bool moved = false;       // its next entry instruction's prefetch moved registers
    const func::DInstr* cur_entry = nullptr;  // the prefetch of the interval it runs
    const func::DInstr* pending = nullptr;    // the prefetch it waits for
    bool issued_any = false;
    uint64_t ready = 0;       // the cycle its last prefetch's registers are all in
    uint64_t wb_done = 0;     // the cycle its last write-backs are in the MRF
    RegBits set;              // the current interval's working set
    RegBits dirty;            // written since fetched (rfc mode; writeback: dirty in ltrf_plus)
    RegBits run;              // the registers of its current greedy run (optimal_runs)
    uint32_t run_count = 0;   // run.count()
    bool run_started = false;
    RegBits miss;             // rfc mode: allocated by translate, not yet read by the level
    std::vector<uint16_t> lru;  // rfc mode: cached registers, least recently used first
    // entryOf(entry_of) = entry: the instruction the gate was asked about
    // last (it asks every cycle the warp waits).
    const func::DInstr* entry_of = nullptr;
    const func::DInstr* entry = nullptr;
  };

  // translate() of a register without a cache entry, in rfc mode or with
  // the RTL in lockstep.
  uint32_t translateSlow(uint32_t warp, uint32_t reg);
  uint32_t mrfRow(uint32_t warp, uint32_t reg) const;
  uint32_t rfcRow(const Warp& w, uint32_t reg) const;
  using Mode = LtrfMode;  // mechanisms.ltrf.mode
  bool liveOnly() const { return mode_ == Mode::LtrfPlus; }
  // The MRF's timing: a bank access starting at or after `earliest`;
  // returns when its data is out (a read) or in (a write).
  uint64_t mrfAccess(uint32_t bank, uint64_t earliest);
  uint64_t fetchReg(uint32_t warp, uint32_t reg, uint64_t earliest);
  uint64_t writeBackReg(uint32_t warp, uint32_t reg, uint64_t earliest);
  // Moves warp `warp` to the working set `next` from `start` on; returns
  // the cycle the last fetched register arrives.
  uint64_t moveTo(uint32_t warp, const RegBits& next, uint64_t start);
  // Writes back (or drops) and frees every cached register.
  uint64_t flush(uint32_t warp, uint64_t start, bool keep_values);
  void allocSlot(uint32_t warp, uint32_t reg);
  void freeSlot(uint32_t warp, uint32_t reg);
  void copyRow(uint32_t from, uint32_t to);
  // The registers whose values `d` reads for the last time (its dead-operand bits).
  RegBits killed(const func::DInstr& d);
  // wake_[warp]: the cycle a waiting active warp's prefetch completes (else 0).
  void syncWake(uint32_t warp);
  bool isPrefetch(const func::DInstr& d) const { return d.in->op == ptx::Op::Ext && d.in->ext == prefetch_op_; }
  // The prefetch of the interval `d` begins or resumes (ltrf.entry), or null.
  const func::DInstr* entryOf(const func::DInstr& d) const;
  const func::DInstr* entryOf(Warp& w, const func::DInstr& d) const;

  sm::Sm& sm_;
  LtrfConfig c_;
  Mode mode_ = Mode::LtrfPlus;
  bool dirty_only_ = false;  // writeback: dirty
  bool whole_set_ = false;   // boundary: whole_set
  // The configuration's choices as flags (its strings stay off the per-access paths).
  bool prefetching_ = false, fault_skip_fetch_ = false, fault_dead_all_ = false;
  bool last_moved_ = false;  // the instruction issued last moved registers (holdsPair)
  uint32_t n_regs_;        // N
  uint32_t rf_rows_;       // MRF rows (the configuration's register file)
  uint32_t mrf_lat_, mrf_banks_, groups_;
  uint16_t prefetch_op_ = 0;
  ptx::ControlField entry_field_;
  std::vector<Warp> w_;
  // What nextEventCycle scans every cycle, kept apart from the large Warp entries.
  std::vector<uint64_t> wake_;
  // nextEventCycle's last answer (`next`, for `at`); syncWake forgets it
  // when a wake changes.
  struct NextWake {
    bool known = false;
    uint64_t at = 0, next = 0;
  };
  mutable NextWake next_wake_;
  OffsetAllocator offsets_;
  std::vector<uint64_t> bank_busy_, link_busy_;
  // moveTo's same-bank count: bank_seen_[b % 1024] == fetch_stamp_ when
  // this fetch already read MRF bank b.
  std::array<uint64_t, 1024> bank_seen_{};
  uint64_t fetch_stamp_ = 0;
  sm::BankedArray rfc_;
  std::unique_ptr<sm::BankedArray> wcb_ports_;
  // rtl: true: the Verilated unit, driven with every operation of the
  // reference and compared (rtlOp, rtlLookup throw rfsim::Error on a
  // difference).
  std::unique_ptr<WcbRtl> rtl_;
  void rtlOp(WcbRtl::Op op, uint32_t warp, uint32_t reg, uint32_t want_bank, uint32_t want_offset);
  void rtlLookup(uint32_t warp, uint32_t reg);
  LtrfCounters n_;
  bool stacked_ = false;                  // over another mechanism's register hooks (attach)
  sm::RegFileLevel* under_level_ = nullptr;  // ... and its level, if it has one
  sm::ReadReply classRead(uint32_t warp, uint32_t reg, uint32_t row, uint64_t cycle);
};

// The working set a prefetch instruction carries: its four 64-bit immediates.
RegBits prefetchSet(const ptx::Instr& in);

}  // namespace rfsim::mech::ltrf
