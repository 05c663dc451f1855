#include "mech/ltrf/ltrf_mechanism.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "backend/backend.h"
#include "backend/mfunction.h"
#include "common/error.h"
#include "mech/ltrf/cmd_intervals.h"
#include "mech/ltrf/intervals.h"
#include "mech/ltrf/liveness.h"
#include "mech/ltrf/renumber.h"
#include "mech/ltrf/ltrf_config.h"
#include "mech/ltrf/ltrf_cost.h"
#include "mech/ltrf/ltrf_sm.h"
#include "sm/core/sm.h"
#include "common/gtkw.h"
#include "common/results_dir.h"

namespace rfsim::mech::ltrf {

uint32_t LtrfConfig::mrfLatency() const {
  if (mrf_latency) return mrf_latency;
  return static_cast<uint32_t>(std::ceil(point().latency * mrf_base_latency - 1e-9));
}

uint32_t LtrfConfig::mrfBanks() const {
  return mrf_banks ? mrf_banks : static_cast<uint32_t>(kBaseRfBanks * point().banks);
}

std::vector<Entry> prefetchEntries(const ptx::Function& fn, uint32_t n, bool strands) {
  const Intervals iv = formIntervals(fn, n, true, strands);
  std::vector<Entry> out;
  for (uint32_t k = 0; k < iv.intervals.size(); ++k) {
    const Interval& i = iv.intervals[k];
    // An interval whose instructions name no register keeps the cache as
    // it is: no prefetch (its instructions need none).
    if (i.regs.count() == 0) continue;
    const Segment& s = iv.segments[i.segments.front()];
    Entry e{s.block, s.begin, {}, k};
    for (uint32_t r : i.regs.members()) e.words[r / 64] |= uint64_t{1} << (r % 64);
    out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.block != b.block ? a.block > b.block : a.begin > b.begin;
  });
  return out;
}

void markPhysicalDead(ptx::Function& fn) {
  const std::vector<RegBits> live_in = blockLiveIn(fn);
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    RegBits live = blockLiveOut(fn, live_in, static_cast<uint32_t>(b));
    auto& code = fn.blocks[b].instrs;
    for (size_t i = code.size(); i-- > 0;) stepBack(code[i], fn, live, &code[i].dead);
  }
}

// ltrf.prefetch (section 4.1, "prefetch placement"): a prefetch instruction
// carrying the interval's 256-bit working set at each interval's entry.
//
// Divergence, which the paper does not discuss: a warp runs the paths of a
// divergent branch one after the other, so it can resume a pending path (or
// the reconvergence point) inside an interval after another interval's
// prefetch replaced its set. Such a resumption is always at a block's first
// instruction (a branch target, a fall-through, a reconvergence point), so
// every block's first instruction that is not itself an interval's entry
// carries ltrf.entry: the distance to its interval's prefetch, whose set the
// warp fetches again when it arrives there from another interval (the
// hardware: the SIMT stack entry keeps its interval's prefetch address).
// The same holds for a call, which an indirect call with several targets
// among its lanes issues once per target.
void insertPrefetches(ptx::Function& fn, backend::SlotValues& values, uint32_t n, bool strands) {
  uint16_t op = 0;
  if (!ptx::findExtOp("ltrf.prefetch", &op)) throw Error("ltrf.prefetch: the instruction is not registered");
  const ptx::ControlField entry_field = ptx::registerControlField("ltrf.entry", 16);
  markPhysicalDead(fn);
  const Intervals iv = formIntervals(fn, n, true, strands);
  const std::vector<Entry> entries = prefetchEntries(fn, n, strands);
  std::vector<int64_t> prefetch_block(iv.intervals.size(), -1), prefetch_at(iv.intervals.size(), -1);
  for (const Entry& e : entries) {  // last first: earlier positions stay valid
    auto& code = fn.blocks[e.block].instrs;
    ptx::Instr p = ptx::makeExtInstr(op, {e.words[0], e.words[1], e.words[2], e.words[3]});
    p.loc = e.begin < code.size() ? code[e.begin].loc : (code.empty() ? p.loc : code.back().loc);
    code.insert(code.begin() + e.begin, p);
    values[e.block].insert(values[e.block].begin() + e.begin, std::vector<uint32_t>{});
    prefetch_block[e.interval] = e.block;
  }
  // Positions after insertion: in a block, the prefetches before an
  // original index shift it.
  for (const Entry& e : entries) {
    uint32_t before = 0;
    for (const Entry& o : entries)
      if (o.block == e.block && o.begin < e.begin) ++before;
    prefetch_at[e.interval] = e.begin + before;
  }
  std::vector<int64_t> block_pc(fn.blocks.size(), 0);
  int64_t pc = 0;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    block_pc[b] = pc;
    pc += static_cast<int64_t>(fn.blocks[b].instrs.size());
  }
  for (size_t s = 0; s < iv.segments.size(); ++s) {
    const Segment& seg = iv.segments[s];
    if (seg.begin != 0 || fn.blocks[seg.block].instrs.empty()) continue;
    const uint32_t k = iv.interval_of[s];
    if (prefetch_block[k] < 0) continue;  // no prefetch: its instructions name no register
    const int64_t delta = block_pc[prefetch_block[k]] + prefetch_at[k] - block_pc[seg.block];
    if (delta == 0) continue;  // the block begins with its interval's prefetch
    if (delta < -32767 || delta > 32767)
      throw Error(fmt::format("ltrf.prefetch: {}: block {} is {} instructions from its interval's prefetch (at most "
                              "32767)", fn.name, seg.block, delta));
    entry_field.set(fn.blocks[seg.block].instrs[0], static_cast<uint32_t>(delta + 32768));
  }
  // An indirect call whose lanes hold several targets runs once per target,
  // each time after the previous callee's intervals: every call carries the
  // distance to its own interval's prefetch, just before it.
  for (auto& bb : fn.blocks)
    for (size_t i = 1; i < bb.instrs.size(); ++i)
      if (bb.instrs[i].op == ptx::Op::Call && bb.instrs[i - 1].op == ptx::Op::Ext && bb.instrs[i - 1].ext == op)
        entry_field.set(bb.instrs[i], 32768 - 1);
}

namespace {

struct LtrfStats : stats::Group {
  explicit LtrfStats(stats::Group* parent)
      : Group(parent, "ltrf", "LTRF: register-file cache, warp control blocks, address allocation units, MRF"),
        ADD_STAT(prefetch_instrs, stats::unit::Count, "ltrf.prefetch instructions issued"),
        ADD_STAT(transitions, stats::unit::Count, "working-set changes (interval entries and activations that moved registers)"),
        ADD_STAT(fetched, stats::unit::Count, "registers read from the MRF into the cache"),
        ADD_STAT(written_back, stats::unit::Count, "registers written from the cache back to the MRF"),
        ADD_STAT(dropped_dead, stats::unit::Count, "cached registers freed without a write-back, dead (LTRF+)"),
        ADD_STAT(clean_kept, stats::unit::Count, "live registers freed without a write-back, unchanged since fetched (writeback: dirty)"),
        ADD_STAT(skipped_dead, stats::unit::Count, "working-set registers given a slot but not fetched, dead (LTRF+)"),
        ADD_STAT(fetch_sets, stats::unit::Count, "fetches of at least one register (prefetches, activations)"),
        ADD_STAT(fetch_sets_conflict_free, stats::unit::Count, "fetches whose registers all lie in different MRF banks"),
        ADD_STAT(fetch_bank_conflicts, stats::unit::Count, "fetched registers that share an MRF bank with an earlier one of the same fetch"),
        ADD_STAT(fetch_cycles, stats::unit::Cycle, "cycles from a fetch's start to its last register's arrival, summed"),
        ADD_STAT(activations, stats::unit::Count, "warps entering the active pool"),
        ADD_STAT(deactivations, stats::unit::Count, "warps leaving it (long-latency wait, barrier, exit)"),
        ADD_STAT(activation_fetched, stats::unit::Count, "registers fetched when a warp entered the active pool"),
        ADD_STAT(deactivation_written, stats::unit::Count, "registers written back when a warp left it"),
        ADD_STAT(rfc_reads, stats::unit::Count, "register-file cache reads (operands and write-backs)"),
        ADD_STAT(rfc_writes, stats::unit::Count, "register-file cache writes (results and fills)"),
        ADD_STAT(rfc_conflict_cycles, stats::unit::Cycle, "cycles operand reads waited for a cache bank"),
        ADD_STAT(rfc_hits, stats::unit::Count, "operand reads that hit (rfc mode)"),
        ADD_STAT(rfc_misses, stats::unit::Count, "operand reads that missed and read the MRF (rfc mode)"),
        ADD_STAT(rfc_evictions, stats::unit::Count, "registers evicted to make room (rfc mode)"),
        ADD_STAT(mrf_reads, stats::unit::Count, "MRF bank reads (fetches, operand reads)"),
        ADD_STAT(mrf_writes, stats::unit::Count, "MRF bank writes (write-backs, results in bl mode)"),
        ADD_STAT(mrf_wait_cycles, stats::unit::Cycle, "cycles MRF accesses waited for their bank"),
        ADD_STAT(operand_reads, stats::unit::Count, "operand reads served (cache or MRF), each over the collector crossbar"),
        ADD_STAT(operand_mrf_reads, stats::unit::Count, "operand reads served by the MRF (bl mode, rfc misses)"),
        ADD_STAT(uncached_accesses, stats::unit::Count, "registers named while not cached (0 when the intervals cover every access)"),
        ADD_STAT(wcb_lookups, stats::unit::Count, "warp control block lookups"),
        ADD_STAT(xbar_transfers, stats::unit::Count, "registers over the MRF <-> cache crossbar"),
        ADD_STAT(live_updates, stats::unit::Count, "instructions whose dead-operand bits cleared liveness (LTRF+)"),
        ADD_STAT(path_refetches, stats::unit::Count, "working sets fetched again where a warp resumed a divergent path inside an interval"),
        ADD_STAT(rtl_ops, stats::unit::Count, "operations of the Verilated WCB/AAU unit, each compared with the reference (rtl: true)"),
        ADD_STAT(rtl_lookups, stats::unit::Count, "lookups of the Verilated WCB, each compared (rtl: true)"),
        ADD_STAT(dyn_instrs, stats::unit::Count, "warp instructions other than prefetches (ltrf_plus)"),
        ADD_STAT(optimal_runs, stats::unit::Count, "the fewest runs of each warp's instructions naming at most N registers each (ltrf_plus; Table 4's optimal)") {}
  stats::Scalar prefetch_instrs, transitions, fetched, written_back, dropped_dead, clean_kept, skipped_dead, fetch_sets,
      fetch_sets_conflict_free, fetch_bank_conflicts, fetch_cycles, activations, deactivations, activation_fetched,
      deactivation_written, rfc_reads, rfc_writes,
      rfc_conflict_cycles, rfc_hits, rfc_misses, rfc_evictions, mrf_reads, mrf_writes, mrf_wait_cycles,
      operand_reads, operand_mrf_reads, uncached_accesses, wcb_lookups, xbar_transfers, live_updates, path_refetches, rtl_ops,
      rtl_lookups, dyn_instrs, optimal_runs;
};

GtkwView wcbWaveView(const std::string& vcd, uint64_t start_cycle);

class Ltrf final : public mech::Mechanism {
 public:
  explicit Ltrf(const config::GpuConfig& cfg) : cfg_(cfg), c_(cfg.mechanisms.get<LtrfConfig>("ltrf")) {
    if (c_.cached() && cfg.sm.scheduler != config::SchedulerPolicy::TwoLevel)
      throw Error(fmt::format("mechanisms.ltrf.mode {}: needs sm.scheduler: two_level (the configuration has {})",
                              config::choiceName(c_.mode), config::choiceName(cfg.sm.scheduler)));
    const DesignPoint& p = c_.point();
    const uint32_t want = static_cast<uint32_t>(kBaseRfKb * p.capacity) + (c_.mode == LtrfMode::Bl ? kCacheKb : 0);
    if (c_.check_capacity && cfg.regfile.size_kb != want)
      throw Error(fmt::format("mechanisms.ltrf.design_point {} ({}, {}x capacity){}: needs regfile.size_kb {}, the "
                              "configuration has {} (set it, or mechanisms.ltrf.check_capacity: false)",
                              p.id, p.cell, p.capacity, c_.mode == LtrfMode::Bl ? " in bl mode (+16 KB)" : "", want,
                              cfg.regfile.size_kb));
  }
  std::string name() const override { return "ltrf"; }
  // Its code is the base code with prefetch instructions (no architectural
  // effect) and, for LTRFconf, its registers renumbered.
  bool codeRunsFunctionally() const override { return true; }

  std::vector<backend::Variant> variants() const override {
    if (!c_.prefetching()) return {};
    backend::Variant v;
    v.name = "ltrf";
    v.description = fmt::format("a prefetch of each register-interval's working set (N = {}) at its entry",
                                c_.regs_per_interval);
    const uint32_t n = c_.regs_per_interval;
    if (c_.renumber) {
      v.description += ", registers renumbered over the MRF's banks (LTRFconf)";
      v.post.push_back({"ltrf.renumber", [n](ptx::Function& fn, backend::SlotValues&,
                                             const backend::MachinePassContext& ctx) {
                          renumber(fn, n, BankMapping{kBaseRfBanks, 0}, ctx.options.reserved_registers);
                        }});
    }
    const bool strands = c_.regions == Regions::Strands;
    if (strands) v.description += ", at strands instead of register-intervals";
    v.post.push_back({"ltrf.prefetch", [n, strands](ptx::Function& fn, backend::SlotValues& values,
                                                    const backend::MachinePassContext&) {
                        insertPrefetches(fn, values, n, strands);
                      }});
    return {v};
  }
  std::string chooseVariant(const mech::LaunchInfo&, const mech::VariantTable& compiled) override {
    return compiled.count("ltrf") ? "ltrf" : "";
  }
  void attachSm(sm::Sm& sm, uint32_t sm_id) override {
    if (sm_id == 0) {
      if (trace_sm_ && !sms_.empty() && sms_.front().get() == trace_sm_) trace_owner_ = std::move(sms_.front());
      sms_.clear();
    }
    sms_.push_back(std::make_unique<LtrfSm>(sm, cfg_, c_));
    sms_.back()->attach();
    if (sm_id == 0 && pending_trace_ && sms_.back()->rtl()) {
      // SM 0's unit of the first launch the trace window covers.
      sms_.back()->rtl()->traceTo(trace_.vcd, trace_.first, trace_.last);
      writeFileAtomic(trace_.gtkw, gtkwSaveFile(wcbWaveView(trace_.vcd.string(), trace_.first)));
      trace_sm_ = sms_.back().get();
      pending_trace_ = false;
    }
  }
  std::vector<sm::UnitInfo> smUnits(uint32_t) const override {
    return {{"ltrf", "LTRF: the MRF's banks, the register-file cache, a WCB and an AAU per warp, the warp-offset allocator",
             "mechanisms.ltrf"}};
  }
  bool rtlInLoop() const override { return c_.rtl; }
  std::vector<std::string> endRun() override {
    if (!c_.rtl) return {};
    if (trace_sm_) trace_sm_->rtl()->closeTrace();
    // A difference throws where it happens, so a finished run had none.
    return {fmt::format("LTRF WCB address lookups and AAUs (--rtl, every SM): {} operations and {} lookups compared "
                        "RTL vs reference, 0 mismatches",
                        rtl_ops_, rtl_lookups_)};
  }
  std::vector<std::filesystem::path> traceBeside(const std::filesystem::path& sm_vcd, uint64_t first,
                                                 uint64_t last) override {
    if (!c_.rtl) return {};
    std::filesystem::path vcd = sm_vcd, gtkw = sm_vcd;
    vcd.replace_extension(".ltrf.vcd");
    gtkw.replace_extension(".ltrf.gtkw");
    trace_ = {vcd, gtkw, first, last};
    pending_trace_ = true;
    return {vcd, gtkw};
  }
  std::unique_ptr<stats::Group> endLaunch(stats::Group* parent) override {
    auto g = std::make_unique<LtrfStats>(parent);
    LtrfCounters t;
    for (const auto& u : sms_) t.add(u->counters());
    g->prefetch_instrs += t.prefetch_instrs;
    g->transitions += t.transitions;
    g->fetched += t.fetched;
    g->written_back += t.written_back;
    g->dropped_dead += t.dropped_dead;
    g->clean_kept += t.clean_kept;
    g->skipped_dead += t.skipped_dead;
    g->fetch_sets += t.fetch_sets;
    g->fetch_sets_conflict_free += t.fetch_sets_conflict_free;
    g->fetch_bank_conflicts += t.fetch_bank_conflicts;
    g->fetch_cycles += t.fetch_cycles;
    g->activations += t.activations;
    g->deactivations += t.deactivations;
    g->activation_fetched += t.activation_fetched;
    g->deactivation_written += t.deactivation_written;
    g->rfc_reads += t.rfc_reads;
    g->rfc_writes += t.rfc_writes;
    g->rfc_conflict_cycles += t.rfc_conflict_cycles;
    g->rfc_hits += t.rfc_hits;
    g->rfc_misses += t.rfc_misses;
    g->rfc_evictions += t.rfc_evictions;
    g->mrf_reads += t.mrf_reads;
    g->mrf_writes += t.mrf_writes;
    g->mrf_wait_cycles += t.mrf_wait_cycles;
    g->operand_mrf_reads += t.operand_mrf_reads;
    g->operand_reads += t.operand_reads;
    g->uncached_accesses += t.uncached_accesses;
    g->wcb_lookups += t.wcb_lookups;
    g->xbar_transfers += t.xbar_transfers;
    g->live_updates += t.live_updates;
    g->path_refetches += t.path_refetches;
    g->dyn_instrs += t.dyn_instrs;
    g->rtl_ops += t.rtl_ops;
    g->rtl_lookups += t.rtl_lookups;
    rtl_ops_ += t.rtl_ops;
    rtl_lookups_ += t.rtl_lookups;
    g->optimal_runs += t.optimal_runs;
    for (auto& u : sms_)
      if (u.get() == trace_sm_) trace_owner_ = std::move(u);  // its waveform stays open until the run ends
    sms_.clear();
    return g;
  }
  // The register file's energy with LTRF: the MRF's accesses at the design
  // point's power (Table 2), the cache's, the crossbars' and the WCB's. The
  // SM's own regfile_read, regfile_write and opcoll lines count nothing of
  // it (reads are served by the level, writes taken by it).
  std::vector<energy::Structure> energyStructures(const stats::Group& g) const override {
    const auto& s = dynamic_cast<const LtrfStats&>(g);
    auto n = [](const stats::Scalar& x) { return static_cast<uint64_t>(x.get()); };
    const double pw = c_.point().power;
    const double rd = (c_.mrf_read_pj > 0 ? c_.mrf_read_pj : cfg_.energy.regfile_read_pj) * pw;
    const double wr = (c_.mrf_write_pj > 0 ? c_.mrf_write_pj : cfg_.energy.regfile_write_pj) * pw;
    return {{"mrf_read", n(s.mrf_reads), rd, 0.0},
            {"mrf_write", n(s.mrf_writes), wr, 0.0},
            {"rfc_read", n(s.rfc_reads), c_.rfc_read_pj, 0.0},
            {"rfc_write", n(s.rfc_writes), c_.rfc_write_pj, 0.0},
            {"xbar", n(s.xbar_transfers), c_.xbar_pj, 0.0},
            // The baseline's opcoll line counts main-register-file reads only:
            // the operands the unit serves cross the collector crossbar here.
            {"operand_xbar", n(s.operand_reads), cfg_.energy.opcoll_pj, 0.0},
            {"wcb", n(s.wcb_lookups), c_.wcb_pj, 0.0}};
  }

 private:
  config::GpuConfig cfg_;
  LtrfConfig c_;
  std::vector<std::unique_ptr<LtrfSm>> sms_;
  uint64_t rtl_ops_ = 0, rtl_lookups_ = 0;
  struct Trace {
    std::filesystem::path vcd, gtkw;
    uint64_t first = 0, last = 0;
  } trace_;
  bool pending_trace_ = false;
  LtrfSm* trace_sm_ = nullptr;            // the unit whose RTL writes the waveform
  std::unique_ptr<LtrfSm> trace_owner_;   // ... kept alive after its launch
};

// The GTKWave view of rtl/ltrf_wcb.sv: the operation port, the two lookup
// ports, the offset queue and the first warps' queues and offsets.
GtkwView wcbWaveView(const std::string& vcd, uint64_t start_cycle) {
  GtkwView v;
  v.dumpfile = vcd;
  v.start_time = start_cycle * 1000;
  v.zoom = -13;  // as the rename unit's view: ~60 cycles across the pane
  v.open_scopes = {"TOP.", "TOP.ltrf_wcb."};
  const std::string t = "TOP.ltrf_wcb.";
  using F = GtkwSignal::Format;
  v.groups.push_back({"operation (1 ALLOC, 2 FREE, 3 ACT, 4 DEACT, 5 LAUNCH)",
                      {{t + "op_i[2:0]", F::Dec}, {t + "op_warp_i[5:0]", F::Dec}, {t + "op_reg_i[7:0]", F::Dec},
                       {t + "op_ok_o", F::Bin}, {t + "op_bank_o[3:0]", F::Dec}, {t + "op_offset_o[2:0]", F::Dec}}});
  v.groups.push_back({"lookup ports",
                      {{t + "rd0_warp_i[5:0]", F::Dec}, {t + "rd0_reg_i[7:0]", F::Dec}, {t + "rd0_hit_o", F::Bin},
                       {t + "rd0_index_o[6:0]", F::Dec}, {t + "rd1_warp_i[5:0]", F::Dec}, {t + "rd1_reg_i[7:0]", F::Dec},
                       {t + "rd1_hit_o", F::Bin}, {t + "rd1_index_o[6:0]", F::Dec}}});
  v.groups.push_back({"warp offsets (global AAU)",
                      {{t + "off_valid_all[63:0]", F::Hex}, {t + "ohead_q[2:0]", F::Dec}, {t + "ocount_q[3:0]", F::Dec}}});
  GtkwGroup q{"warps 0-3: unused banks (count, head), offset, working set (valid)", {}};
  for (int w = 0; w < 4; ++w) {
    q.signals.push_back({fmt::format("{}count_q[{}][4:0]", t, w), F::Dec});
    q.signals.push_back({fmt::format("{}head_q[{}][3:0]", t, w), F::Dec});
    q.signals.push_back({fmt::format("{}off_q[{}][2:0]", t, w), F::Dec});
    q.signals.push_back({fmt::format("{}valid_q[{}][255:0]", t, w), F::Hex});
  }
  v.groups.push_back(q);
  return v;
}

}  // namespace

mech::MechanismInfo ltrfMechanismInfo() {
  mech::MechanismInfo m;
  m.name = "ltrf";
  m.summary = "latency-tolerant register file: interval prefetches into a register-file cache in front of a large, slow MRF";
  m.status = "partial: register-intervals and prefetch instructions (re-fetched where a divergent path resumes); "
             "renumbering (LTRFconf); in every SM the MRF's banks at Table 2's design points, the register-file cache, "
             "the WCBs and AAUs (RTL in lockstep), the values held where the hardware holds them; the two-level "
             "scheduler's deactivation and activation; modes bl, rfc, ltrf, ltrf_plus; the LTRF suite and the "
             "paper's figures (scripts/ltrf_repro.sh, docs/ltrf.md)";
  m.paper = "M. Sadrosadati et al., LTRF: Enabling High-Capacity Register Files for GPUs via Hardware/Software "
            "Cooperative Register Prefetching, ASPLOS 2018";
  m.section.name = "ltrf";
  m.section.desc = "LTRF (docs/ltrf.md)";
  m.section.make = [] { return config::ErasedSection(std::make_unique<config::SectionOf<LtrfConfig>>()); };
  m.section.check = [](const config::ErasedSection& s) { return s.as<LtrfConfig>().check(); };
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<Ltrf>(cfg); };
  m.isa_ops.push_back({"ltrf.prefetch", "prefetch",
                       "fetches a register-interval's working set (256-bit set in four immediates) into the "
                       "register-file cache; the warp goes on when all of it arrived",
                       ptx::ExtTiming::Issue, 4});
  m.control_fields.push_back({"ltrf.entry", 16});
  m.rtl_units = {"ltrf_wcb"};
  m.cost = ltrfCostUnits;
  m.composes_after = {{"r2d2", "R2D2's register classes keep rows at the top of the main register file, read from "
                                 "its banks and never cached; LTRF caches the general registers"},
                      {"regdem", "RegDem changes only code: the intervals are formed over the demoted code"}};
  m.conflicts.push_back({"cars", "both place the general registers: CARS' renamed rows change at every call and "
                                  "return, under cache entries LTRF keeps by register name"});
  m.conflicts.push_back({"toy", "the toy's register-file level and LTRF's are one extension point"});
  m.commands.analyses = intervalAnalyses();
  return m;
}

}  // namespace rfsim::mech::ltrf
