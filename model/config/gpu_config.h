// Typed configuration of the modelled GPU. Defaults live here, in code; a YAML
// file in configs/ overrides them and is validated against the same field
// list. Every struct lists its fields once, in visit(): the YAML loader, the
// YAML/JSON writers, the --set overrides and the reference in
// docs/configuration.md are all driven by that one list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/energy_config.h"
#include "config/gpu_config_fields.h"
#include "config/mechanisms_config.h"
#include "config/mem_config.h"

namespace rfsim::config {

struct GpuTop {
  uint32_t num_sms = 80;
  double clock_mhz = 1132.0;
  // What the CUDA runtime library reports (cudaGetDeviceProperties' major
  // and minor): applications choose code paths and check limits by it.
  uint32_t compute_capability = 70;
  // What it reports to an application, when not the above (0): CUDA 13
  // compiles for 7.5 and later only, and libraries such as CUB pick their
  // code by the capability the device reports.
  uint32_t reported_compute_capability = 0;
  // The fixed cost of a kernel launch: what the GPU spends on a launch beyond
  // its blocks' own work, as its own timer times a kernel (Nsight Compute's
  // gpu__time_duration: the grid's set-up and its completion; docs/calibration.md,
  // "Measured on an H200"). Charged once per launch beside the launch's
  // cycles, which count from its first block to its last (gpu_stats.h:
  // launch_overhead_cycles, cycles_with_launch).
  double launch_overhead_ns = 1565.0;

  // launch_overhead_ns in core cycles, rounded to the nearest.
  uint64_t launchOverheadCycles() const {
    return static_cast<uint64_t>(launch_overhead_ns * clock_mhz / 1000.0 + 0.5);
  }

  template <class V> void visit(V& v) {
    v.integer("num_sms", num_sms, IntRange{1, 1024}, "SM", "streaming multiprocessors on the chip");
    v.real("clock_mhz", clock_mhz, RealRange{1.0, 10000.0}, "MHz", "core clock");
    v.integer("compute_capability", compute_capability, IntRange{10, 120}, "",
              "compute capability of the modelled GPU, major * 10 + minor (70: 7.0)");
    v.integer("reported_compute_capability", reported_compute_capability, IntRange{0, 120}, "",
              "compute capability the CUDA runtime library reports to an application (cudaGetDeviceProperties, "
              "cudaFuncGetAttributes' binaryVersion); 0: compute_capability, raised to the lowest PTX target the "
              "application carries when that is higher (CUDA 13 cannot target below 7.5, and CUB selects its "
              "tuning and checks its kernels by the reported capability)");
    v.real("launch_overhead_ns", launch_overhead_ns, RealRange{0.0, 1000000.0}, "ns",
           "fixed cost of a kernel launch beyond its blocks' own work, as the GPU times a kernel (Nsight "
           "Compute's gpu__time_duration), charged once per launch in "
           "gpu.launch_overhead_cycles and gpu.cycles_with_launch; a launch's cycles (first block to last) leave "
           "it out");
  }
};

// The choice keys' values (gpu_config_fields.h: enums with their names).
enum class SchedulerPolicy : uint8_t { Lrr, Gto, TwoLevel };
inline const Choices& choiceNames(SchedulerPolicy) {
  static const Choices names{"lrr", "gto", "two_level"};
  return names;
}
enum class LongWait : uint8_t { Load, L1dMiss };
inline const Choices& choiceNames(LongWait) {
  static const Choices names{"load", "l1d_miss"};
  return names;
}
enum class Activate : uint8_t { OldestReady, OldestCompleted };
inline const Choices& choiceNames(Activate) {
  static const Choices names{"oldest_ready", "oldest_completed"};
  return names;
}
enum class Dependency : uint8_t { Scoreboard, Barriers };
inline const Choices& choiceNames(Dependency) {
  static const Choices names{"scoreboard", "barriers"};
  return names;
}

struct SmConfig {
  uint32_t warp_size = 32;
  uint32_t max_warps = 64;
  uint32_t max_blocks = 32;
  uint32_t max_threads = 2048;
  uint32_t num_schedulers = 4;
  // Processing blocks per SM (Volta whitepaper: 4 sub-cores, each with its
  // own scheduler, dispatch, register file and execution units; the LD/ST
  // path and the L1D are shared). Warp w belongs to sub-core w % sub_cores.
  // 1: one pool of collectors and units for the whole SM.
  uint32_t sub_cores = 4;
  SchedulerPolicy scheduler = SchedulerPolicy::Gto;
  uint32_t active_warps = 8;  // two-level scheduler's active pool, per SM (Sadrosadati et al. Table 3: 8 per SM)
  // The two-level scheduler's choices its papers leave open (docs/sm.md;
  // Sadrosadati et al., Gebhart et al. 2011, Narasiman et al. 2011):
  //   long_wait: what demotes a warp from the active pool -- its next
  //     instruction depends on a global or local load ("load": on the
  //     reference configurations an L1D hit takes 28-82 cycles, itself long),
  //     or only on a load that missed the L1D ("l1d_miss": the modelled
  //     reading of "such as a data cache miss"); a fill waiting on an L1I
  //     miss demotes in both;
  //   activate: which pending warp fills a free slot -- the oldest ready one,
  //     else the oldest not in a long wait ("oldest_ready"), or the oldest
  //     whose long wait has completed, ready or not ("oldest_completed":
  //     the modelled choice);
  //   barrier_demotes: a warp waiting at a barrier leaves the pool (the
  //     block's other warps may all be pending and would never reach it).
  LongWait long_wait = LongWait::Load;
  Activate activate = Activate::OldestReady;
  bool barrier_demotes = true;
  // Static warp limit (CCWS' SWL; Kang et al.'s Best-SWL baseline): only the
  // warp_limit oldest resident warps of an SM may issue. 0: no limit.
  uint32_t warp_limit = 0;
  // How a warp waits for its results: a per-register scoreboard, or
  // Maxwell-style control codes the compiler assigns (stall counts and 6
  // dependency barriers per warp; backend/depctl.h, docs/sm.md).
  Dependency dependency = Dependency::Scoreboard;

  template <class V> void visit(V& v) {
    v.integer("warp_size", warp_size, IntRange{32, 32}, "thread", "threads per warp");
    v.integer("max_warps", max_warps, IntRange{1, 64}, "warp", "resident warps per SM");
    v.integer("max_blocks", max_blocks, IntRange{1, 64}, "block", "resident thread blocks per SM");
    v.integer("max_threads", max_threads, IntRange{32, 2048}, "thread", "resident threads per SM");
    v.integer("num_schedulers", num_schedulers, IntRange{1, 8}, "scheduler", "warp schedulers per SM");
    v.integer("sub_cores", sub_cores, IntRange{1, 8}, "sub-core",
              "processing blocks per SM, each with its own scheduler(s), I-buffers, L0 I-cache, register banks, "
              "collectors and execution units (LD/ST and L1D shared); warp w belongs to sub-core w % sub_cores");
    v.choice("scheduler", scheduler, "warp scheduling policy");
    v.integer("active_warps", active_warps, IntRange{1, 64}, "warp",
              "warps in the two-level scheduler's active pool, per SM (ignored by other policies)");
    v.choice("long_wait", long_wait,
             "two-level: a warp leaves the active pool when its next instruction depends on a global/local load "
             "(load) or only with one that missed the L1D (l1d_miss)");
    v.choice("activate", activate,
             "two-level: a free slot takes the oldest ready pending warp, else the oldest not in a long wait "
             "(oldest_ready), or the oldest not in a long wait, ready or not (oldest_completed)");
    v.boolean("barrier_demotes", barrier_demotes,
              "two-level: a warp waiting at a barrier leaves the active pool (false deadlocks a block with more "
              "warps than the pool)");
    v.integer("warp_limit", warp_limit, IntRange{0, 64}, "warp",
              "static warp limit: only this many of the SM's oldest resident warps may issue (0: none)");
    v.choice("dependency", dependency,
             "register dependencies: a scoreboard, or the compiler's stall counts and 6 dependency barriers per warp "
             "(Maxwell and later)");
  }
};

enum class CollectorMode : uint8_t { General, PerUnit };
inline const Choices& choiceNames(CollectorMode) {
  static const Choices names{"general", "per_unit"};
  return names;
}

// The SM pipeline from fetch to execution (model/sm/). Latencies are dependent-
// issue latencies in core cycles, initiation intervals (ii) the cycles before a
// pipeline of the unit takes the next warp instruction. The classes follow
// GPGPU-Sim's ptx_opcode_latency_{int,fp,dp,sfu} lists; model/sm/issue/
// op_class.h says which opcode uses which class.
struct PipelineConfig {
  uint32_t ibuffer_depth = 2;      // GPGPU-Sim's per-warp instruction buffer
  uint32_t fetch_width = 4;
  uint32_t l1i_miss_latency = 193;
  uint32_t call_ret_cycles = 0;
  bool int_add_on_fma = false;
  bool dual_issue = false;
  uint32_t num_collectors = 8;
  CollectorMode collector_mode = CollectorMode::General;
  bool bank_swizzle = false;
  uint32_t sp_units = 4, int_units = 4, sfu_units = 4, dp_units = 4, ldst_units = 1;
  uint32_t int_add_latency = 4, int_add_ii = 2;
  uint32_t int_mul_latency = 4, int_mul_ii = 2;
  uint32_t int_mad_latency = 5, int_mad_ii = 2;
  uint32_t int_div_latency = 145, int_div_ii = 8;
  uint32_t fp32_add_latency = 4, fp32_add_ii = 2;
  uint32_t fp32_mul_latency = 4, fp32_mul_ii = 2;
  uint32_t fp32_fma_latency = 5, fp32_fma_ii = 2;
  uint32_t fp32_div_latency = 39, fp32_div_ii = 4;
  uint32_t sfu_latency = 100, sfu_ii = 8;
  uint32_t fp64_add_latency = 8, fp64_add_ii = 4;
  uint32_t fp64_fma_latency = 8, fp64_fma_ii = 4;
  uint32_t fp64_div_latency = 330, fp64_div_ii = 130;
  uint32_t ldst_ii = 1;
  uint32_t const_latency = 4;
  uint32_t mem_latency = 193;
  uint64_t watchdog_cycles = 100000;
  uint64_t livelock_cycles = 200000000;
  uint64_t livelock_proof_cycles = 1000000;

  template <class V> void visit(V& v) {
    const IntRange units{1, 64}, opt_units{0, 64}, lat{1, 2000}, ii{1, 1000};
    v.integer("ibuffer_depth", ibuffer_depth, IntRange{1, 16}, "instruction", "instruction buffer entries per warp");
    v.integer("fetch_width", fetch_width, IntRange{1, 16}, "warp",
              "I-buffer fills started per cycle per SM, split evenly over sm.sub_cores (each sub-core's fetch unit "
              "serves its own warps from its L0)");
    v.integer("l1i_miss_latency", l1i_miss_latency, lat, "cycle",
              "L1I miss penalty, fixed (an L2 hit; fetches do not go through the memory hierarchy)");
    v.integer("call_ret_cycles", call_ret_cycles, IntRange{0, 1000}, "cycle",
              "after a warp issues a call or a return, its next I-buffer fill arrives no sooner than this many "
              "cycles later (the target's resolution and redirect; 0: as a taken branch)");
    v.boolean("int_add_on_fma", int_add_on_fma,
              "a 32-bit integer add, subtract or move whose sub-core's INT unit is busy dispatches to its FP32 "
              "unit if that is free, as ptxas spreads such operations over IADD3 and IMAD.IADD / IMAD.MOV");
    v.boolean("dual_issue", dual_issue,
              "a scheduler may issue a warp's next two instructions in one cycle when they go to different units");
    v.integer("num_collectors", num_collectors, IntRange{1, 64}, "collector",
              "operand collector units (general: per SM; per_unit: per execution-unit class)");
    v.choice("collector_mode", collector_mode,
             "collectors shared by all units, or a separate set per execution-unit class");
    v.boolean("bank_swizzle", bank_swizzle, "add the warp id to the register number when choosing its bank");
    v.integer("sp_units", sp_units, units, "pipeline", "fp32 (SP) pipelines per SM");
    v.integer("int_units", int_units, opt_units, "pipeline", "integer pipelines per SM (0: integer ops run on SP)");
    v.integer("sfu_units", sfu_units, units, "pipeline", "special-function pipelines per SM");
    v.integer("dp_units", dp_units, opt_units, "pipeline", "fp64 pipelines per SM (0: fp64 ops run on SP)");
    v.integer("ldst_units", ldst_units, units, "pipeline", "load/store pipelines per SM");
    v.integer("int_add_latency", int_add_latency, lat, "cycle", "integer add/sub/min/max/logic/shift/compare/move");
    v.integer("int_add_ii", int_add_ii, ii, "cycle", "initiation interval of int_add");
    v.integer("int_mul_latency", int_mul_latency, lat, "cycle", "integer mul/mul24");
    v.integer("int_mul_ii", int_mul_ii, ii, "cycle", "initiation interval of int_mul");
    v.integer("int_mad_latency", int_mad_latency, lat, "cycle", "integer mad/mad24/sad/dp4a");
    v.integer("int_mad_ii", int_mad_ii, ii, "cycle", "initiation interval of int_mad");
    v.integer("int_div_latency", int_div_latency, lat, "cycle", "integer div/rem, one SFU op standing for the sequence");
    v.integer("int_div_ii", int_div_ii, ii, "cycle", "initiation interval of int_div");
    v.integer("fp32_add_latency", fp32_add_latency, lat, "cycle", "fp32/fp16 add/sub/min/max/compare/convert");
    v.integer("fp32_add_ii", fp32_add_ii, ii, "cycle", "initiation interval of fp32_add");
    v.integer("fp32_mul_latency", fp32_mul_latency, lat, "cycle", "fp32/fp16 mul");
    v.integer("fp32_mul_ii", fp32_mul_ii, ii, "cycle", "initiation interval of fp32_mul");
    v.integer("fp32_fma_latency", fp32_fma_latency, lat, "cycle", "fp32/fp16 fma/mad");
    v.integer("fp32_fma_ii", fp32_fma_ii, ii, "cycle", "initiation interval of fp32_fma");
    v.integer("fp32_div_latency", fp32_div_latency, lat, "cycle", "fp32 div, one SFU op standing for the sequence");
    v.integer("fp32_div_ii", fp32_div_ii, ii, "cycle", "initiation interval of fp32_div");
    v.integer("sfu_latency", sfu_latency, lat, "cycle", "rcp/sqrt/rsqrt/sin/cos/ex2/lg2/tanh (fp32)");
    v.integer("sfu_ii", sfu_ii, ii, "cycle", "initiation interval of sfu");
    v.integer("fp64_add_latency", fp64_add_latency, lat, "cycle", "fp64 add/sub/min/max/compare/convert");
    v.integer("fp64_add_ii", fp64_add_ii, ii, "cycle", "initiation interval of fp64_add");
    v.integer("fp64_fma_latency", fp64_fma_latency, lat, "cycle", "fp64 mul/fma/mad");
    v.integer("fp64_fma_ii", fp64_fma_ii, ii, "cycle", "initiation interval of fp64_fma");
    v.integer("fp64_div_latency", fp64_div_latency, lat, "cycle", "fp64 div/rcp/sqrt/rsqrt");
    v.integer("fp64_div_ii", fp64_div_ii, ii, "cycle", "initiation interval of fp64_div");
    v.integer("ldst_ii", ldst_ii, ii, "cycle", "initiation interval of the load/store unit");
    v.integer("const_latency", const_latency, lat, "cycle",
              "ld.param / ld.const: in SASS a constant-bank operand of the consuming instruction");
    v.integer("mem_latency", mem_latency, IntRange{1, 5000}, "cycle",
              "global/local access latency with sim.memory: fixed (no caches)");
    v.integer("watchdog_cycles", watchdog_cycles, IntRange{1, INT64_MAX}, "cycle",
              "cycles without any instruction issued or retired before the SM reports a deadlock");
    v.integer("livelock_cycles", livelock_cycles, IntRange{1, INT64_MAX}, "cycle",
              "cycles in which an SM's warps issue but none stores, atomically updates, arrives at a barrier or "
              "exits before the SM reports a livelock (a warp spinning on a flag nobody sets); in functional "
              "mode, warp instructions of one thread block without such progress. Longer than any launch of "
              "the workloads' large inputs (the most warp instructions: lt_mrigrid, 185 M in all its launches; "
              "the most cycles measured: nbody, 66 M on v100), so only a kernel that would never end reaches it");
    v.integer("livelock_proof_cycles", livelock_proof_cycles, IntRange{1, INT64_MAX}, "cycle",
              "cycles without a write outside a thread's local memory anywhere on the GPU (a store, an atomic or a "
              "reduction) after which the SM looks for a proof of a livelock: each warp's whole state is hashed at "
              "its backward branches, and a state that comes back within one epoch (no such write, no barrier "
              "arrival or release, no warp exited) proves that the warp repeats forever. When every warp of every "
              "busy SM is proven (or waits at a barrier), the launch is stopped as a livelock at once, long before "
              "pipeline.livelock_cycles. Off with physical register rows (a mechanism's register file), where a "
              "warp's own registers are not its state. In functional mode, warp instructions of one thread block. "
              "Its only cost is the hashing while armed");
  }
};

struct RegFileConfig {
  // The banks' range, named because the operand collector sizes its per-bank
  // masks and arrays by its upper end (sm/opcoll/operand_collector.h).
  static constexpr IntRange kNumBanks{1, 64};

  uint32_t size_kb = 256;
  uint32_t num_banks = 8;
  uint32_t sub_cores = 1;            // bank groups, one per scheduler: warp w uses group w % sub_cores
  uint32_t read_ports_per_bank = 1;
  uint32_t write_ports_per_bank = 1;
  uint32_t bank_latency = 1;         // cycles a granted bank read takes (1: the value is there the next cycle)
  uint32_t alloc_granularity = 256;  // CUDA occupancy calculator's register allocation unit
  // Operand reuse caches (Maxwell and later): one per scheduler, one entry
  // per source-operand slot; an operand the compiler flagged (the next
  // instruction of the warp reads the same register in the same slot) is
  // served from it without a bank read (sm/opcoll/operand_collector.h).
  bool operand_reuse = true;

  template <class V> void visit(V& v) {
    v.integer("size_kb", size_kb, IntRange{16, 4096}, "KiB", "register file capacity per SM");
    v.integer("num_banks", num_banks, kNumBanks, "bank", "register file banks per SM");
    v.integer("sub_cores", sub_cores, IntRange{1, 8}, "group",
              "the banks split into this many groups, one per scheduler quadrant; warp w reads and writes only "
              "group w % sub_cores (register r in bank r % (num_banks / sub_cores) of its group)");
    v.integer("read_ports_per_bank", read_ports_per_bank, IntRange{1, 4}, "port", "read ports per bank");
    v.integer("write_ports_per_bank", write_ports_per_bank, IntRange{1, 4}, "port", "write ports per bank");
    v.integer("bank_latency", bank_latency, IntRange{1, 64}, "cycle",
              "cycles from a bank read's grant to its value in the collector (slower cells: Sadrosadati et al. Table 2)");
    v.boolean("operand_reuse", operand_reuse,
              "operand reuse caches, one per scheduler with an entry per source-operand slot: an operand the "
              "warp's previous instruction read in the same slot, with the reuse flag the compiler sets, is read "
              "from it instead of a bank");
    v.integer("alloc_granularity", alloc_granularity, IntRange{1, 1024}, "register",
              "a warp's registers (per-thread count x warp size) are rounded up to a multiple of this");
  }
};

enum class CalleeSaved : uint8_t { Ptxas, Contiguous };
inline const Choices& choiceNames(CalleeSaved) {
  static const Choices names{"ptxas", "contiguous"};
  return names;
}

// The back end's own passes before register allocation (backend/prealloc.h,
// docs/backend.md): what ptxas does to the same PTX that changes how many
// registers a kernel needs, each switchable to see its effect.
struct CompilerConfig {
  bool param_operands = true;
  bool imm_operands = true;
  bool const_operands = true;
  bool expansion_scratch = true;
  bool schedule = true;
  uint32_t schedule_reg_target = 64;
  bool schedule_fit = true;
  uint32_t recolour_above = 44;
  bool schedule_stores_early = true;
  uint32_t unroll = 4;
  bool vectorize_shared = true;
  bool fuse_mad = true;
  uint32_t reserved_registers = 2;
  uint32_t reg_banks = 2;
  CalleeSaved callee_saved = CalleeSaved::Ptxas;
  bool maxrregcount_over_bounds = false;

  template <class V> void visit(V& v) {
    v.boolean("param_operands", param_operands,
              "read kernel parameters as constant-bank operands instead of loading them into registers");
    v.boolean("imm_operands", imm_operands,
              "read a value moved from an immediate as an immediate operand of the instructions that use it");
    v.boolean("const_operands", const_operands,
              "read a value loaded from a .const variable at a fixed address as a constant-bank operand of the "
              "instructions that use it (SASS c[0x3][offset]) instead of loading it into a register");
    v.boolean("expansion_scratch", expansion_scratch,
              "give operations ptxas expands into several instructions (IEEE div/rcp/sqrt, integer div/rem) "
              "their scratch registers");
    v.boolean("schedule", schedule, "list-schedule each block before allocation (loads hoisted, latency first)");
    v.integer("schedule_reg_target", schedule_reg_target, IntRange{0, 255}, "register",
              "live values the scheduler may reach by hoisting loads before it favours freeing ones (0: no bound)");
    v.boolean("schedule_fit", schedule_fit,
              "a function over schedule_reg_target registers (at most twice it) without spills is scheduled again "
              "under the highest lower bound that fits it in schedule_reg_target (ptxas' counts gather at 64); "
              "kept as it was if none does");
    v.integer("recolour_above", recolour_above, IntRange{0, 255}, "register",
              "a kernel whose count comes out above this (at most twice schedule_reg_target, without spills) is "
              "coloured again for the fewest registers in the schedule it has (the allocator's colouring variants "
              "under decreasing register ranges), and every allocation schedule_fit then tries does so; 255: never");
    v.boolean("schedule_stores_early", schedule_stores_early,
              "the scheduler issues a store of computed values as soon as its operands are ready when that frees "
              "registers, as ptxas does, rather than where its latency priority puts it (a block's end)");
    v.integer("unroll", unroll, IntRange{0, 16}, "copy",
              "unroll counted single-block loops this many times before scheduling, as ptxas unrolls the loops "
              "NVVM gives it (0 or 1: off)");
    v.boolean("vectorize_shared", vectorize_shared,
              "merge adjacent ld.shared of 32- and 64-bit values from one base into vector loads where the address is "
              "provably aligned, as ptxas makes LDS.64/LDS.128 (shared variables placed 16-byte aligned)");
    v.boolean("fuse_mad", fuse_mad,
              "merge a 32-bit mul.lo whose product only one add or sub reads into a mad (x - q*18 becomes "
              "mad q, -18, x), as ptxas issues one IMAD for the pair");
    v.integer("reserved_registers", reserved_registers, IntRange{0, 240}, "register",
              "registers a kernel's count includes beyond the highest one its code uses (ptxas for sm_75..sm_90: 2; "
              "more pads the count to lower occupancy, as scripts/regdem_f_occupancy.sh does)");
    v.integer("reg_banks", reg_banks, IntRange{1, 8}, "bank",
              "register banks the allocator spreads one instruction's sources over (Volta/Turing: 2 per "
              "sub-core; 1: no preference)");
    v.choice("callee_saved", callee_saved,
             "the callee-saved registers: ptxas' (R16-R31 less the return address, then R36-R39, R44-R47, ... the "
             "upper four of every eight) or the contiguous R16-R31 of Kang et al. (section II-B)");
    v.boolean("maxrregcount_over_bounds", maxrregcount_over_bounds,
              "--maxrregcount also limits kernels with launch bounds (.maxntid, .reqntid) or .maxnreg, which ptxas "
              "and the driver's JIT exempt from it (false: as they do); for sweeping such kernels' occupancy");
  }
};

enum class MemoryModel : uint8_t { Hierarchy, Fixed };
inline const Choices& choiceNames(MemoryModel) {
  static const Choices names{"hierarchy", "fixed"};
  return names;
}

// Sampled simulation (gpu/block_sampler.h, runtime/launch_sampler.h): which
// parts of a timing run may be extrapolated instead of simulated in detail.
enum class SampleMode : uint8_t { Off, Launches, Blocks, All };
inline const Choices& choiceNames(SampleMode) {
  static const Choices names{"off", "launches", "blocks", "all"};
  return names;
}

// What the blocks a cut leaves are compared with those the cutting window
// measured by (gpu/block_sampler.h, KernelRunner::admitCut): their warp
// instructions per block, or the mix of their instructions (each opcode's
// share of their warp instructions).
enum class SampleBlockCompare : uint8_t { Work, Mix };
inline const Choices& choiceNames(SampleBlockCompare) {
  static const Choices names{"work", "mix"};
  return names;
}

// How the simulation runs (not the modelled hardware).
struct SimConfig {
  MemoryModel memory = MemoryModel::Hierarchy;
  uint32_t quantum_cycles = 16;
  uint64_t max_cycles = 2000000000;
  uint64_t max_instructions = 4000000000;
  SampleMode sample = SampleMode::Off;
  uint32_t sample_window = 3;
  double sample_tolerance = 0.02;
  double sample_min_share = 0.2;
  double sample_block_tolerance = 0.05;
  SampleBlockCompare sample_block_compare = SampleBlockCompare::Work;
  double sample_block_mix_tolerance = 0.02;
  bool sample_warm_l2 = true;
  bool sample_warm_skipped = false;
  uint32_t threads = 1;
  bool parallel_sms = false;

  template <class V> void visit(V& v) {
    v.choice("memory", memory,
             "global/local memory: the L1D + TLM-2.0 crossbar, L2 slices and DRAM; or a fixed latency "
             "(pipeline.mem_latency, no caches)");
    v.integer("quantum_cycles", quantum_cycles, IntRange{1, 100000}, "cycle",
              "TLM-2.0 global quantum: SMs run this many cycles ahead of SystemC time before they synchronise");
    v.integer("max_cycles", max_cycles, IntRange{1, INT64_MAX}, "cycle",
              "a timing launch that runs longer is stopped as a runaway kernel (--max-cycles); 30x the longest "
              "launch measured of the workloads' large inputs (nbody: 66 M cycles on v100)");
    v.integer("max_instructions", max_instructions, IntRange{1, INT64_MAX}, "instruction",
              "a launch that issues more warp instructions is stopped as a runaway kernel, timing or functional "
              "(--max-instructions); 20x the most of any workload's large input (lt_mrigrid: 185 M warp "
              "instructions in all its launches)");
    v.choice("sample", sample,
             "sampled simulation (--sample; docs/sampling.md): launches: once the last sample_window detailed "
             "launches of a kernel with the same grid and code agree, later ones run functionally and take their "
             "cycles; blocks: once sample_window intervals of a launch agree in IPC, the blocks not yet started run "
             "functionally and their cycles are extrapolated; all: both");
    v.integer("sample_window", sample_window, IntRange{2, 1000}, "count",
              "the detailed launches of a group, or the IPC intervals of a launch, that must agree before the rest "
              "is extrapolated");
    v.real("sample_tolerance", sample_tolerance, RealRange{0.0, 1.0}, "ratio",
           "how far the window's values (a group's cycles and warp instructions, a launch's cycles per warp "
           "instruction) may spread, relative to their mean; and how far a skipped launch's warp instructions may "
           "move from its group's first skipped launch's");
    v.real("sample_min_share", sample_min_share, RealRange{0.0, 1.0}, "ratio",
           "the share of a launch's blocks that must have started on the SMs before the launch may be cut: a "
           "launch's first phase can be steady and still a transient (the L2 filling before its dirty lines "
           "start going back to DRAM: lt_nn's distances run 2.7x faster for their first 7 %)");
    v.real("sample_block_tolerance", sample_block_tolerance, RealRange{0.0, 100.0}, "ratio",
           "how far a launch's blocks not yet started may be from the blocks the cutting window measured, in warp "
           "instructions per block (counted functionally; runs of the blocks left as long as the window's, their "
           "relative differences weighted by their share of the work left), for the cut to stand: lt_raytrace's "
           "blocks left do 3.4x the work of its first rows'");
    v.choice("sample_block_compare", sample_block_compare,
             "what the blocks a cut leaves must share with those the cutting window measured: work, their warp "
             "instructions per block (within sample_block_tolerance); mix, the mix of their instructions, each "
             "opcode's share of their warp instructions (within sample_block_mix_tolerance), so that blocks doing "
             "more or less of the same work are cut and blocks doing other work are not (after Photon's comparison "
             "of basic-block vectors)");
    v.real("sample_block_mix_tolerance", sample_block_mix_tolerance, RealRange{0.0, 1.0}, "ratio",
           "with sample_block_compare: mix, how far the blocks left may be from the window's blocks in their "
           "instruction mix for the cut to stand: half the sum of the opcode shares' absolute differences (0: the "
           "same mix, 1: no opcode in common), of runs as long as the window's, weighted by their share of the work "
           "left (measured: lt_nqueens' blocks left 0.003 to 0.005 from its windows, lt_raytrace's sky rows 0.04 "
           "to 0.06 from its scene rows)");
    v.boolean("sample_warm_l2", sample_warm_l2,
              "the blocks of a cut launch that run functionally send their global loads and stores to the L2's "
              "tags (functional warming, as SMARTS' caches are warmed), so that later launches find the lines "
              "they read and the dirty lines they wrote; off, those launches find the L2 as the detailed part left it");
    v.boolean("sample_warm_skipped", sample_warm_skipped,
              "a skipped launch (sample: launches or all) sends its global loads and stores to the L2's tags as "
              "sample_warm_l2 does for a cut launch's blocks, on one host thread, so that the launches after it find "
              "the L2 holding what it read and wrote; off, they find the L2 as the last detailed launch left it");
    v.integer("threads", threads, IntRange{0, 1024}, "thread",
              "host threads that run a functional launch's thread blocks (--threads; 0: the host's cores), with "
              "the memory, output, errors and counts of one thread running them in block order; kernels with "
              "printf, malloc, clock reads or global atomics whose old value is read run on one "
              "(docs/functional.md, \"Parallel blocks\"); with parallel_sms, the threads that step the SMs of a "
              "timing launch's quantum, with the statistics of one (docs/memory.md, \"Parallel SMs\")");
    v.boolean("parallel_sms", parallel_sms,
              "step the SMs of a quantum independently of each other (docs/memory.md, \"Parallel SMs\"): their "
              "memory requests get their replies at the quantum's end, in (cycle, SM) order, and blocks are dealt "
              "there, so the statistics do not depend on the order the SMs are stepped in; needs "
              "quantum_cycles <= 2 x icnt.latency + l2.latency and sample off or launches");
  }
};

struct GpuConfig {
  std::string name = "v100";
  GpuTop gpu;
  SmConfig sm;
  PipelineConfig pipeline;
  RegFileConfig regfile;
  // V100's 128 KiB unified L1: 32 KiB L1D beside the largest carve-out of
  // 96 KiB shared; 4 sets x 64 ways as GPGPU-Sim's SM7_QV100 (dl1
  // S:4:128:64), 28-cycle hit as measured by Jia et al. 2018. A launch's
  // carve-out gives the L1D the rest of the 128 KiB (config/carveout.h).
  L1dConfig l1d{{32, 64, 128, 28}};
  L1iConfig l1i{{128, 16, 128, 8}};
  SharedMemConfig shared;
  L2Config l2;
  IcntConfig icnt;
  DramConfig dram;
  HostLinkConfig host_link;
  SimConfig sim;
  CompilerConfig compiler;
  MechanismsConfig mechanisms;
  EnergyConfig energy;

  template <class V> void visit(V& v) {
    v.text("name", name, "name of this configuration");
    v.section("gpu", gpu, "chip-level parameters");
    v.section("sm", sm, "streaming multiprocessor");
    v.section("pipeline", pipeline, "SM pipeline: fetch, issue, operand collectors, execution units");
    v.section("regfile", regfile, "register file of one SM");
    v.section("l1d", l1d, "L1 data cache of one SM");
    v.section("l1i", l1i, "L1 instruction cache of one SM");
    v.section("shared", shared, "shared memory of one SM");
    v.section("l2", l2, "L2 cache shared by all SMs");
    v.section("icnt", icnt, "crossbar between the SMs and the L2 slices");
    v.section("dram", dram, "DRAM");
    v.section("host_link", host_link, "the link to host memory that mapped host memory is reached through");
    v.section("sim", sim, "simulation settings (not the modelled hardware)");
    v.section("compiler", compiler, "the back end's passes before register allocation (docs/backend.md)");
    v.section("mechanisms", mechanisms, "register-file mechanisms: which are on, and each one's settings");
    v.section("energy", energy, "per-event energies and static powers (model/energy, docs/energy.md)");
  }

  // Warp-registers (warp_size lanes x 32 bit) in one SM's register file.
  uint32_t warpRegisters() const { return regfile.size_kb * 1024u / (4u * sm.warp_size); }
};

}  // namespace rfsim::config
