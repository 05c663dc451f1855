// R2D2 as a mechanism (r2d2_mechanism.h).
#include "mech/r2d2/r2d2_mechanism.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "backend/backend.h"
#include "backend/report.h"
#include "common/error.h"
#include "common/gtkw.h"
#include "common/results_dir.h"
#include "config/occupancy.h"
#include "mech/r2d2/cmd_linearity.h"
#include "mech/r2d2/r2d2_config.h"
#include "mech/r2d2/r2d2_cost.h"
#include "mech/r2d2/r2d2_sm.h"
#include "mech/r2d2/redundancy.h"
#include "mech/r2d2/transform.h"
#include "sm/core/sm.h"

namespace rfsim::mech::r2d2 {

namespace {

struct R2d2Stats : stats::Group {
  explicit R2d2Stats(stats::Group* parent)
      : Group(parent, "r2d2", "R2D2: linear instruction blocks, register ID calculation, linear operands"),
        ADD_STAT(transformed, stats::unit::Count, "1 when the launch ran the transformed kernel, 0 when its original code"),
        ADD_STAT(linear_registers, stats::unit::Count, "linear registers of the kernel (register table entries)"),
        ADD_STAT(tr_registers, stats::unit::Count, "thread-index registers of the kernel"),
        ADD_STAT(coefficients, stats::unit::Count, "coefficient registers of the kernel"),
        ADD_STAT(blocks_per_sm, stats::unit::Count, "blocks per SM the launch admitted with the linear registers' rows"),
        ADD_STAT(removed_static, stats::unit::Count, "instructions the transformation removed from the kernel's code (static)"),
        ADD_STAT(loop_updates, stats::unit::Count, "loop updates advancing a uniform offset instead (static)"),
        ADD_STAT(uniform_operands, stats::unit::Count, "address operands reading a linear register plus a uniform offset (static)"),
        ADD_STAT(divergent_moves, stats::unit::Count, "divergent definitions now a move from a linear register (static)"),
        ADD_STAT(linear_instrs, stats::unit::Count, "warp instructions of the three linear blocks issued (markers included)"),
        ADD_STAT(coef_instrs, stats::unit::Count, "... of the coefficient block"),
        ADD_STAT(tr_instrs, stats::unit::Count, "... of the thread-index block"),
        ADD_STAT(br_instrs, stats::unit::Count, "... of the block-index block"),
        ADD_STAT(coef_blocks, stats::unit::Count, "coefficient blocks run (one per SM)"),
        ADD_STAT(tr_blocks, stats::unit::Count, "thread-index blocks run (the warps of each SM's first block)"),
        ADD_STAT(br_blocks, stats::unit::Count, "block-index blocks run (one per block)"),
        ADD_STAT(linear_reads, stats::unit::Count, "linear-register operand reads (32-bit halves)"),
        ADD_STAT(part_rows_read, stats::unit::Count, "register-file rows those reads took (thread- and block-index parts)"),
        ADD_STAT(coef_reads, stats::unit::Count, "coefficient registers read as a scalar"),
        ADD_STAT(vector_reads, stats::unit::Count, "coefficient vectors read"),
        ADD_STAT(coef_writes, stats::unit::Count, "coefficient registers written"),
        ADD_STAT(class_reads, stats::unit::Count, "operand reads of R2D2 registers"),
        ADD_STAT(lookups, stats::unit::Count, "register ID calculations"),
        ADD_STAT(rtl_lookups, stats::unit::Count, "register ID calculations compared with the RTL (--rtl)"),
        ADD_STAT(startup_cycles, stats::unit::Cycle, "cycles from each SM's first warp to its thread-index parts, summed over SMs"),
        ADD_STAT(br_cycles, stats::unit::Cycle, "cycles from each block's launch to its block-index parts, summed over blocks"),
        ADD_STAT(marker_waits, stats::unit::Count, "warp-cycles an r2d2.end or r2d2.wait waited"),
        ADD_STAT(rr_switches, stats::unit::Count, "times an SM's schedulers went round robin while linear blocks ran (linear_round_robin)"),
        ADD_STAT(fetch_logic_ops, stats::unit::Count, "flag checks and redirects the instruction fetch logic did (the markers and the thread-index copy's branch: not issued)"),
        ADD_STAT(scalar_coef_instrs, stats::unit::Count, "coefficient-block instructions run on the scalar pipeline"),
        ADD_STAT(linear_adds, stats::unit::Count, "instructions whose linear operand's parts were summed (add_latency, pipelined)"),
        ADD_STAT(observed_warp_instrs, stats::unit::Count, "mode baselines: warp instructions of the original code observed"),
        ADD_STAT(observed_thread_instrs, stats::unit::Count, "mode baselines: their thread instructions"),
        ADD_STAT(wp_thread_instrs, stats::unit::Count, "ideal WP: thread instructions (one per warp instruction of uniform operands)"),
        ADD_STAT(tb_warp_instrs, stats::unit::Count, "ideal TB: warp instructions (repeats within the block skipped)"),
        ADD_STAT(tb_thread_instrs, stats::unit::Count, "ideal TB: thread instructions"),
        ADD_STAT(ln_warp_instrs, stats::unit::Count, "ideal LN: warp instructions (linear computations free)"),
        ADD_STAT(ln_thread_instrs, stats::unit::Count, "ideal LN: thread instructions"),
        ADD_STAT(dac_warp_instrs, stats::unit::Count, "DAC: warp instructions (affine results once per block)"),
        ADD_STAT(dac_thread_instrs, stats::unit::Count, "DAC: thread instructions"),
        ADD_STAT(darsie_warp_instrs, stats::unit::Count, "DARSIE: warp instructions (repeats within the block skipped, loads without a store between)"),
        ADD_STAT(darsie_thread_instrs, stats::unit::Count, "DARSIE: thread instructions"),
        ADD_STAT(scalar_warp_instrs, stats::unit::Count, "DARSIE+Scalar: of DARSIE's warp instructions, those of uniform operands run on the scalar pipeline"),
        ADD_STAT(elided_warp_instrs, stats::unit::Count, "modes dac, darsie, darsie_scalar: warp instructions the timed machine skipped (free)"),
        ADD_STAT(scalar_pipeline_instrs, stats::unit::Count, "warp instructions run on the SM's scalar pipeline (scalar_pipeline, darsie_scalar)") {}
  stats::Scalar transformed, linear_registers, tr_registers, coefficients, blocks_per_sm, removed_static, loop_updates,
      uniform_operands, divergent_moves, linear_instrs, coef_instrs,
      tr_instrs, br_instrs, coef_blocks, tr_blocks, br_blocks, linear_reads, part_rows_read, coef_reads, vector_reads,
      coef_writes, class_reads, lookups, rtl_lookups, startup_cycles, br_cycles, marker_waits, rr_switches,
      fetch_logic_ops, scalar_coef_instrs, linear_adds;
  stats::Scalar observed_warp_instrs, observed_thread_instrs, wp_thread_instrs, tb_warp_instrs, tb_thread_instrs,
      ln_warp_instrs, ln_thread_instrs, dac_warp_instrs, dac_thread_instrs, darsie_warp_instrs, darsie_thread_instrs,
      scalar_warp_instrs, elided_warp_instrs, scalar_pipeline_instrs;
};

// The GTKWave view of rtl/r2d2_regid.sv: the operand looked up (kind 0 GPR,
// 1 TR, 2 BR, 3 CR, 4 LR), the row and lane it gets, the launch's layout,
// and the register table's first entries.
GtkwView regidWaveView(const std::string& vcd, uint64_t start_cycle) {
  GtkwView v;
  v.dumpfile = vcd;
  v.start_time = start_cycle * 1000;
  v.zoom = -17;  // a few hundred cycles: the coefficient, thread-index and block-index blocks
  v.open_scopes = {"TOP.", "TOP.r2d2_regid."};
  const std::string t = "TOP.r2d2_regid.";
  using F = GtkwSignal::Format;
  v.groups.push_back({"operand (kind 0 GPR, 1 TR, 2 BR, 3 CR, 4 LR)",
                      {{t + "kind_i[2:0]", F::Dec}, {t + "reg_i[7:0]", F::Dec}, {t + "warp_i[5:0]", F::Dec},
                       {t + "cta_i[4:0]", F::Dec}}});
  v.groups.push_back({"row and lane",
                      {{t + "id_o[10:0]", F::Dec}, {t + "br_id_o[10:0]", F::Dec}, {t + "lane_o[4:0]", F::Dec},
                       {t + "error_o", F::Bin}}});
  v.groups.push_back({"layout (CTA scheduler)",
                      {{t + "warps_per_cta_i[5:0]", F::Dec}, {t + "num_warps_i[6:0]", F::Dec},
                       {t + "gpr_offset_i[10:0]", F::Dec}, {t + "br_offset_i[10:0]", F::Dec},
                       {t + "cr_offset_i[10:0]", F::Dec}}});
  return v;
}

class R2d2 final : public mech::Mechanism {
 public:
  explicit R2d2(const config::GpuConfig& cfg)
      : cfg_(cfg), c_(cfg.mechanisms.get<R2d2Config>("r2d2")), plans_(std::make_shared<PlanTable>()) {
    // Composed with a mechanism that places the general registers:
    // R2D2 keeps only its classes' rows (mechanism.h, composes_after).
    for (const std::string& n : cfg.mechanisms.enabledList()) {
      stacked_ = stacked_ || mech::composesAfter(n, "r2d2");
      // One that places the general registers in regions of its own admits
      // blocks whatever their registers (MechanismInfo::places_registers);
      // one that keeps them at the baseline's rows leaves R2D2's occupancy
      // rule (section 4.3) holding as alone.
      const mech::MechanismInfo* info = mech::find(n);
      renamed_ = renamed_ || (info && info->places_registers);
    }
  }
  std::string name() const override { return "r2d2"; }

  std::vector<backend::Variant> variants() const override {
    if (c_.mode != R2d2Mode::Transform) return {};  // the baselines run the original code
    backend::Variant v;
    v.name = "r2d2";
    v.description = "linear address arithmetic removed; linear registers from three blocks before the body";
    auto plans = plans_;
    v.pre.push_back({"r2d2.linear", [plans](ptx::Module& m, const backend::CompileOptions&) {
                       transformModule(m, *plans);
                     }});
    return {v};
  }

  std::string chooseVariant(const mech::LaunchInfo& info, const mech::VariantTable& compiled) override {
    current_ = nullptr;
    note_.clear();
    auto why = [&](const std::string& reason) {
      fallbacks_[info.kernel] = reason;
      note_ = reason;
      return std::string();
    };
    if (!info.timing) return why("a functional-only run (the linear blocks need the SM's roles and flags)");
    auto it = compiled.find("r2d2");
    if (it == compiled.end()) return "";
    auto p = plans_->find(info.kernel);
    if (p == plans_->end()) return why("not a kernel the pass saw");
    const KernelPlan& plan = p->second;
    if (!plan.transformed) return why(plan.reason);
    // Section 3.2: a launch whose values do not fit the registers' widths
    // runs the original code (never a wrong address).
    LaunchValues lv;
    lv.ntid[0] = info.block.x, lv.ntid[1] = info.block.y, lv.ntid[2] = info.block.z;
    lv.nctaid[0] = info.grid.x, lv.nctaid[1] = info.grid.y, lv.nctaid[2] = info.grid.z;
    lv.params = info.params;
    // A module variable's address; a shared variable's is its offset in the
    // block's shared window, a few KB at most, taken as 0 here (the range
    // checks are about 32-bit overflow of index arithmetic).
    lv.address = [&](uint32_t sym) -> uint64_t {
      for (const LaunchSymbol& s : plan.symbols)
        if (s.kind == LaunchSymbol::Kind::Address && s.index == sym && info.symbol_address) try {
            return info.symbol_address(s.name.substr(1));
          } catch (const Error&) {
            return 0;
          }
      return 0;
    };
    // The back end puts a kernel's stack-frame set-up at its entry, which
    // here is the coefficient block that only the SM's first warp runs.
    if (const backend::FunctionReport* rep = it->second->find(info.kernel); rep && rep->frame_bytes)
      return why(fmt::format("the kernel keeps a {}-byte stack frame, set up at its entry, which only the warp "
                             "running the coefficient block passes",
                             rep->frame_bytes));
    const std::string bad = checkLaunch(plan, lv);
    if (!bad.empty()) return why(bad);
    if (stacked_ && renamed_) {
      // Composed with CARS: it admits blocks whatever the registers
      // (CARS limits warps at issue), so the linear registers cannot lower
      // them; their rows leave that mechanism fewer for its regions.
      const config::Occupancy occ = config::computeOccupancy(cfg_, footprint(info, *it->second));
      blocks_ = std::min({occ.blocks_by_shared, occ.blocks_by_warps, occ.blocks_by_slots});
      const uint32_t rows = rfLayout(plan, occ.warps_per_block, blocks_, 0).rows;
      const uint32_t file = cfg_.regfile.size_kb * 1024 / 128;
      if (blocks_ == 0 || blocks_ > 32 || 2 * rows > file)
        return why(fmt::format("composed: {} blocks per SM, whose linear registers would take {} of the register "
                               "file's {} rows (at most half, and 32 blocks)",
                               blocks_, rows, file));
      fallbacks_.erase(info.kernel);
      current_ = &plan;
      return "r2d2";
    }
    // Section 4.3: if the linear registers would lower the blocks per SM,
    // the host launches the original kernel.
    const uint32_t base_blocks = blocksOf(info, compiled.at("base"));
    const uint32_t blocks = fitBlocks(info, *it->second, plan);
    if (blocks < base_blocks || blocks == 0)
      return why(fmt::format("the linear registers' rows would lower the blocks per SM from {} to {}", base_blocks,
                             blocks));
    fallbacks_.erase(info.kernel);
    current_ = &plan;
    blocks_ = blocks;
    return "r2d2";
  }
  uint32_t admitBlocks(const mech::LaunchInfo&, const config::Occupancy& occ) override {
    if (current_ && renamed_) return blocks_;
    return current_ ? std::min(occ.blocks, blocks_) : occ.blocks;
  }
  uint32_t classRows(const mech::LaunchInfo& info) override {
    if (!current_ || !stacked_) return 0;
    return rfLayout(*current_, (info.threads_per_block + 31) / 32, blocks_, 0).rows;
  }
  void attachSm(sm::Sm& sm, uint32_t sm_id) override {
    if (sm_id == 0) {
      sms_.clear();
      observers_.clear();
    }
    sm::SmHooks h;
    auto observe = [&](std::unique_ptr<RedundancyObserver> o) {
      observers_.push_back(std::move(o));
      h.observers.push_back(observers_.back().get());
      h.events.push_back(observers_.back().get());
    };
    if (c_.mode != R2d2Mode::Transform) {
      using E = RedundancyObserver::Elide;
      const E e = c_.mode == R2d2Mode::Dac ? E::Dac : c_.mode == R2d2Mode::Darsie ? E::Darsie : c_.mode == R2d2Mode::DarsieScalar ? E::DarsieScalar : E::None;
      observe(std::make_unique<RedundancyObserver>(cfg_.sm.max_warps, e, c_.scalar_pipeline));
      sm.install(h);
      return;
    }
    if (c_.scalar_pipeline) {
      // The baseline's scalar pipeline, under R2D2's code or the original.
      observe(std::make_unique<RedundancyObserver>(cfg_.sm.max_warps, RedundancyObserver::Elide::None, true));
    }
    if (current_) {
      sms_.push_back(std::make_unique<R2d2Sm>(sm, cfg_, c_, *current_, stacked_ ? blocks_ : 0));
      sms_.back()->hooks(h);
    }
    sm.install(h);
    if (!current_) return;
    if (sm_id == 0 && pending_trace_ && sms_.back()->rtl()) {
      // SM 0's unit of the first transformed launch the trace window covers.
      sms_.back()->rtl()->rtl().traceTo(trace_.vcd, trace_.first, trace_.last);
      writeFileAtomic(trace_.gtkw, gtkwSaveFile(regidWaveView(trace_.vcd.string(), trace_.first)));
      trace_sm_ = sms_.back().get();
      pending_trace_ = false;
    }
  }
  std::vector<std::filesystem::path> traceBeside(const std::filesystem::path& sm_vcd, uint64_t first,
                                                 uint64_t last) override {
    if (!c_.rtl) return {};
    std::filesystem::path vcd = sm_vcd, gtkw = sm_vcd;
    vcd.replace_extension(".r2d2.vcd");
    gtkw.replace_extension(".r2d2.gtkw");
    trace_ = {vcd, gtkw, first, last};
    pending_trace_ = true;
    return {vcd, gtkw};
  }
  std::vector<sm::UnitInfo> smUnits(uint32_t) const override {
    return {{"r2d2", "R2D2: the register ID calculation and register table, the linear blocks' flags and roles",
             "mechanisms.r2d2"}};
  }
  bool rtlInLoop() const override { return c_.rtl; }

  std::unique_ptr<stats::Group> endLaunch(stats::Group* parent) override {
    auto g = std::make_unique<R2d2Stats>(parent);
    if (current_) {
      g->transformed += 1;
      g->linear_registers += current_->lrs.size();
      g->tr_registers += current_->trs.size();
      g->coefficients += current_->coefficients;
      g->blocks_per_sm += blocks_;
      g->removed_static += current_->removed;
      g->loop_updates += current_->loops;
      g->uniform_operands += current_->uniform_uses;
      g->divergent_moves += current_->divergent_moves;
    }
    R2d2Counters t;
    for (const auto& u : sms_) {
      const R2d2Counters& c = u->counters();
      t.linear_instrs += c.linear_instrs;
      t.coef_instrs += c.coef_instrs;
      t.tr_instrs += c.tr_instrs;
      t.br_instrs += c.br_instrs;
      t.coef_blocks += c.coef_blocks;
      t.tr_blocks += c.tr_blocks;
      t.br_blocks += c.br_blocks;
      t.linear_reads += c.linear_reads;
      t.part_rows_read += c.part_rows_read;
      t.coef_reads += c.coef_reads;
      t.vector_reads += c.vector_reads;
      t.coef_writes += c.coef_writes;
      t.class_reads += c.class_reads;
      t.lookups += c.lookups;
      t.rtl_lookups += c.rtl_lookups;
      t.startup_cycles += c.startup_cycles;
      t.br_cycles += c.br_cycles;
      t.marker_waits += c.marker_waits;
      t.rr_switches += c.rr_switches;
      t.fetch_logic_ops += c.fetch_logic_ops;
      t.scalar_coef_instrs += c.scalar_coef_instrs;
      t.linear_adds += c.linear_adds;
    }
    g->linear_instrs += t.linear_instrs;
    g->coef_instrs += t.coef_instrs;
    g->tr_instrs += t.tr_instrs;
    g->br_instrs += t.br_instrs;
    g->coef_blocks += t.coef_blocks;
    g->tr_blocks += t.tr_blocks;
    g->br_blocks += t.br_blocks;
    g->linear_reads += t.linear_reads;
    g->part_rows_read += t.part_rows_read;
    g->coef_reads += t.coef_reads;
    g->vector_reads += t.vector_reads;
    g->coef_writes += t.coef_writes;
    g->class_reads += t.class_reads;
    g->lookups += t.lookups;
    g->rtl_lookups += t.rtl_lookups;
    g->startup_cycles += t.startup_cycles;
    g->br_cycles += t.br_cycles;
    g->marker_waits += t.marker_waits;
    g->rr_switches += t.rr_switches;
    g->fetch_logic_ops += t.fetch_logic_ops;
    g->scalar_coef_instrs += t.scalar_coef_instrs;
    g->linear_adds += t.linear_adds;
    RedundancyCounts rc;
    for (const auto& o : observers_) rc.add(o->counts());
    g->observed_warp_instrs += rc.warp_instrs;
    g->observed_thread_instrs += rc.thread_instrs;
    g->wp_thread_instrs += rc.wp_thread_instrs;
    g->tb_warp_instrs += rc.tb_warp_instrs;
    g->tb_thread_instrs += rc.tb_thread_instrs;
    g->ln_warp_instrs += rc.ln_warp_instrs;
    g->ln_thread_instrs += rc.ln_thread_instrs;
    g->dac_warp_instrs += rc.dac_warp_instrs;
    g->dac_thread_instrs += rc.dac_thread_instrs;
    g->darsie_warp_instrs += rc.darsie_warp_instrs;
    g->darsie_thread_instrs += rc.darsie_thread_instrs;
    g->scalar_warp_instrs += rc.scalar_warp_instrs;
    g->elided_warp_instrs += rc.elided_warp_instrs;
    g->scalar_pipeline_instrs += rc.scalar_pipeline_instrs;
    observers_.clear();
    rtl_lookups_ += t.rtl_lookups;
    for (auto& u : sms_)
      if (u.get() == trace_sm_) trace_owner_ = std::move(u);  // its waveform stays open until the run ends
    sms_.clear();
    current_ = nullptr;
    return g;
  }
  // Why the launch ran its original code (stats.json: launches[].notes.r2d2).
  std::string launchNote() override { return std::exchange(note_, {}); }

  std::vector<std::string> endRun() override {
    if (trace_sm_) trace_sm_->rtl()->rtl().closeTrace();
    std::vector<std::string> out;
    for (const auto& [k, why] : fallbacks_) out.push_back(fmt::format("r2d2: kernel {} ran its original code: {}", k, why));
    if (c_.rtl)
      out.push_back(fmt::format("R2D2 register ID calculation (--rtl, every SM): {} lookups compared RTL vs reference, "
                                "0 mismatches",
                                rtl_lookups_));
    return out;
  }

  // The parts of a linear operand are register-file reads the collector
  // does not count (the unit serves them), and the address adder sums them
  // per lane.
  std::vector<energy::Structure> energyStructures(const stats::Group& g) const override {
    const auto& s = dynamic_cast<const R2d2Stats&>(g);
    auto n = [](const stats::Scalar& x) { return static_cast<uint64_t>(x.get()); };
    const double add = c_.add_lane_pj > 0 ? c_.add_lane_pj : cfg_.energy.int_lane_pj;
    const uint64_t lo = n(s.linear_reads) == 0 ? 0 : n(s.part_rows_read) - n(s.linear_reads);  // low halves
    return {{"part_reads", n(s.part_rows_read), cfg_.energy.regfile_read_pj + cfg_.energy.opcoll_pj, 0.0},
            {"address_add", lo, 32 * add, 0.0}};
  }

 private:
  static config::KernelFootprint footprint(const mech::LaunchInfo& info, const backend::CompiledModule& code) {
    const backend::FunctionReport* rep = code.find(info.kernel);
    uint32_t shared = info.dynamic_shared;
    for (uint32_t f = 0; f < code.machine.functions.size(); ++f)
      if (code.machine.functions[f].name == info.kernel)
        shared += backend::staticSharedBytes(code.machine, code.callgraph, f);
    return {info.threads_per_block, rep ? rep->tree_regs : 0, shared};
  }
  uint32_t blocksOf(const mech::LaunchInfo& info, const backend::CompiledModule* code) const {
    if (!code || !code->find(info.kernel)) return 0;
    try {
      return config::computeOccupancy(cfg_, footprint(info, *code)).blocks;
    } catch (const Error&) {
      return 0;
    }
  }
  // Blocks per SM the transformed kernel reaches with its linear registers'
  // rows beside the general registers.
  uint32_t fitBlocks(const mech::LaunchInfo& info, const backend::CompiledModule& code, const KernelPlan& plan) const {
    const backend::FunctionReport* rep = code.find(info.kernel);
    if (!rep) return 0;
    uint32_t b = blocksOf(info, &code);
    if (b == 0) return 0;
    const config::Occupancy occ = config::computeOccupancy(cfg_, footprint(info, code));
    const uint32_t rows = cfg_.regfile.size_kb * 1024 / 128;
    while (b > 0 && rfLayout(plan, occ.warps_per_block, b, (occ.regs_per_warp + 31) / 32).rows > rows) --b;
    return b;
  }

  config::GpuConfig cfg_;
  R2d2Config c_;
  std::shared_ptr<PlanTable> plans_;
  const KernelPlan* current_ = nullptr;
  uint32_t blocks_ = 0;
  bool stacked_ = false, renamed_ = false;
  std::vector<std::unique_ptr<R2d2Sm>> sms_;
  std::vector<std::unique_ptr<RedundancyObserver>> observers_;
  std::map<std::string, std::string> fallbacks_;
  std::string note_;  // why the launch chooseVariant decided on runs its original code ("": it does not)
  uint64_t rtl_lookups_ = 0;
  struct Trace {
    std::filesystem::path vcd, gtkw;
    uint64_t first = 0, last = 0;
  } trace_;
  bool pending_trace_ = false;
  R2d2Sm* trace_sm_ = nullptr;            // the unit whose RTL writes the waveform
  std::unique_ptr<R2d2Sm> trace_owner_;   // ... kept alive after its launch
};

}  // namespace

mech::MechanismInfo r2d2MechanismInfo() {
  mech::MechanismInfo m;
  m.name = "r2d2";
  m.summary = "linear address arithmetic computed once per SM and per block, read as thread- plus block-index parts";
  m.status = "partial: the linearity analysis and the transformation (single-write linear code removed, loop "
             "updates as a uniform offset, divergent definitions as moves, linear registers grouped, the three "
             "blocks, range checks at launch); in every SM the roles, starting PCs, flags and round-robin issue "
             "during the linear blocks, the register ID calculation with its register table (RTL in lockstep) "
             "giving every row, linear operands summed at the collector; the redundancy baselines counted (mode "
             "baselines) and timed (modes dac, darsie, darsie_scalar); the R2D2 suite, the paper's figures and Table 3 (scripts/r2d2_repro.sh, "
             "scripts/r2d2_table3.sh, docs/r2d2.md); composes with CARS and LTRF (its classes' rows at the top of the "
             "file, the general registers below them renamed by CARS or cached by LTRF)";
  m.paper = "J. Ha, Y. Oh, W. W. Ro, R2D2: Removing ReDunDancy Utilizing Linearity of Address Generation in GPUs, "
            "ISCA 2023";
  m.section.name = "r2d2";
  m.section.desc = "R2D2 (docs/r2d2.md)";
  m.section.make = [] { return config::ErasedSection(std::make_unique<config::SectionOf<R2d2Config>>()); };
  m.make = [](const config::GpuConfig& cfg) { return std::make_unique<R2d2>(cfg); };
  m.isa_ops.push_back({"r2d2.end", "r2d2end",
                       "ends a linear block (immediate: 0 coefficients, 1 thread-index, 2 block-index) once its "
                       "values are written, and sets the SM's or the block's flag",
                       ptx::ExtTiming::Issue, 1});
  m.isa_ops.push_back({"r2d2.wait", "r2d2wait",
                       "holds a warp of the SM's first block until the thread-index and its block's block-index "
                       "parts are done",
                       ptx::ExtTiming::Issue, 0});
  m.control_fields.push_back({"r2d2.lin", 1});
  m.control_fields.push_back({"r2d2.cr", 7});
  m.control_fields.push_back({"r2d2.crk", 4});
  m.reg_classes.push_back({"r2d2.tr", "TR", "thread-index registers: a linear value's thread-index part, 32 bits per thread",
                           16, 0});
  m.reg_classes.push_back({"r2d2.br", "BR", "the block's block-index pair: lane K holds linear register K's part", 2, 0});
  m.reg_classes.push_back({"r2d2.cr", "CR", "coefficient registers: 16 eight-byte coefficients per row (a pair per coefficient)",
                           2 * kMaxCoefficients, 0});
  m.reg_classes.push_back({"r2d2.cv", "CV", "a coefficient row read as a vector: lane K the K-th coefficient (mov.br/mad.br)",
                           8, 0});
  m.reg_classes.push_back({"r2d2.lr", "LR", "linear registers: a thread-index part plus a block-index part (a pair per register)",
                           2 * kMaxLinear, 0});
  m.rtl_units = {"r2d2_regid"};
  m.cost = r2d2CostUnits;
  m.conflicts.push_back({"regdem", "RegDem sets up the demoted registers' shared-memory address at the kernel's "
                                    "entry, which under R2D2 only the warp running the coefficient block passes"});
  m.conflicts.push_back({"toy", "the toy's register-file level and translator are the same extension points"});
  m.commands.analyses.push_back(linearityAnalysis());
  return m;
}

}  // namespace rfsim::mech::r2d2
