// R2D2 in one SM (Ha, Oh, Ro, ISCA'23, section 4; docs/r2d2.md), for one
// launch of a transformed kernel (transform.h), through the SM's extension
// points:
//
// - WarpRegAllocator + WarpLaunchHook: each warp's R2D2 warp ID is its CTA
//   slot x warps per CTA + its position (GPGPU-Sim gives a CTA's warps
//   consecutive hardware IDs from its CTA slot the same way), and its role
//   and starting PC (section 4.1's starting-PC table): the SM's first warp
//   runs the coefficient block and falls through the other two, the other
//   warps of the SM's first block the copy of the thread-index block, the
//   first warp of every later block the block-index block, the rest the
//   body. A warp that starts at a block waits (ready()) for the flags the
//   block needs: "coefficients done" for the thread- and block-index
//   blocks, "thread-index parts done" and its block's "block-index parts
//   done" for the body; fetch_cycles more at launch (section 5.4);
// - IssueGate: r2d2.end k issues once the warp's instructions of the block
//   have completed (nothing in flight) and sets the flag: k = 0 the SM's
//   "coefficients done", 1 counts the first block's warps until all ran the
//   thread-index block ("thread-index parts done"), 2 the block's
//   "block-index parts done" (and needs the SM's thread-index parts, which
//   the body reads). r2d2.wait holds the first block's other warps until
//   both flags of their block are set. The flags live until the launch
//   ends. Every instruction of the three blocks is counted;
// - RegTranslator: every register's row is the register ID calculation's
//   (regid.h, Fig. 11): general registers interleaved over the resident
//   warps after the R2D2 regions, thread-index registers shared by the
//   warps at the same position of every block, the block's pair, 16
//   coefficients per row. Coefficient and linear registers are views: a
//   coefficient is two lanes of its row (read as a scalar, broadcast; the
//   coefficient block writes it from its first active lane), a coefficient
//   vector is a row's 16 lane pairs, and a linear register is its
//   thread-index row (sign-extended) plus lane K of the block's pair --
//   computed from the rows at every read, so a wrong row or lane breaks the
//   kernel's output;
// - InstrObserver: what the instruction fetch logic does, not the issue
//   stage (section 3, Fig. 5-(c): "Such operations are done by the
//   instruction fetch logic"; section 4.1: the starting-PC table and the
//   single-bit flags): the markers r2d2.end and r2d2.wait and the branch
//   that ends the first block's copy of the thread-index block are the
//   fetch logic's flag checks and start-point redirects, so they execute
//   (the flags change, the warp moves on) but are elided: no issue slot,
//   collector or unit, not counted as warp instructions. The coefficient
//   block runs on the scalar pipeline (section 3: "The first warp ...
//   executes the instructions for coefficients with the scalar pipeline").
//   An instruction with a linear operand takes add_latency more in its
//   unit's pipeline: section 4.3 collects the parts as IADD3's three
//   operands ("R2D2 uses the same data path as the baseline GPU") and
//   "load/store units add them using an internal adder that is already
//   equipped for immediate value addition"; section 5.4 charges the add as
//   "four cycles, the same as the add operation with the baseline CUDA
//   cores" -- a pipelined stage, not a wait in the operand collector. The
//   paper names only the LD/ST unit's adder; an operand of any other
//   instruction (a compare of an index) is charged the same add;
// - RegFileLevel: a linear operand arrives after the parts' reads, every
//   R2D2 register idcalc_cycles later. The ID calculation is the operand
//   collector's own work (Fig. 11: "The operand collector units read
//   register type offsets and register table entries to calculate the
//   correct physical register IDs"), so its cycles are the collector's:
//   the operand arrives later and the collector unit waits for it.
//
// Register-file layout (rows of 32 lanes, type offsets from the CTA
// scheduler at launch): thread-index registers at 0 (#TR x warps per CTA),
// then the blocks' pairs (2 x blocks per SM), the coefficients (one row per
// 16), then the general registers (registers x resident warps).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "mech/r2d2/r2d2_config.h"
#include "mech/r2d2/regid.h"
#include "mech/r2d2/transform.h"
#include "ptx/isa_ext.h"
#include "sm/core/hooks.h"
#include "sm/core/sm_hooks.h"
#include "sm/opcoll/bank_map.h"
#include "sm/opcoll/regfile_level.h"

namespace rfsim::sm {
class Sm;
}

namespace rfsim::mech::r2d2 {

// Rows of the register file a launch needs (the layout above).
struct RfLayout {
  uint32_t warps_per_cta = 0, blocks = 0, regs = 0;
  uint32_t br_offset = 0, cr_offset = 0, gpr_offset = 0, rows = 0;
};
RfLayout rfLayout(const KernelPlan& plan, uint32_t warps_per_cta, uint32_t blocks, uint32_t regs_per_thread);

struct R2d2Counters {
  uint64_t linear_instrs = 0;       // instructions of the three blocks issued (not the fetch logic's markers)
  uint64_t coef_instrs = 0, tr_instrs = 0, br_instrs = 0;
  uint64_t coef_blocks = 0, tr_blocks = 0, br_blocks = 0;  // r2d2.end issued, per block kind
  uint64_t linear_reads = 0;        // linear-register operand reads (32-bit halves)
  uint64_t part_rows_read = 0;      // rows those reads took: thread-index and block-index parts
  uint64_t coef_reads = 0, vector_reads = 0, coef_writes = 0;
  uint64_t class_reads = 0;         // reads of R2D2 registers (for idcalc_cycles)
  uint64_t lookups = 0;             // register ID calculations
  uint64_t rtl_lookups = 0;         // ... compared with the RTL
  uint64_t startup_cycles = 0;      // from the SM's first warp to "thread-index parts done"
  uint64_t br_cycles = 0;           // per block, from its launch to "block-index parts done", summed
  uint64_t marker_waits = 0;        // warp-cycles a marker (r2d2.end, r2d2.wait) was refused
  uint64_t fetch_logic_ops = 0;     // markers and redirects the fetch logic did (elided, not in linear_instrs)
  uint64_t scalar_coef_instrs = 0;  // coefficient-block instructions on the scalar pipeline
  uint64_t linear_adds = 0;         // instructions whose linear operand's parts were summed (add_latency)
  uint64_t rr_switches = 0;         // times the schedulers went round robin for linear blocks
};

class R2d2Sm final : public sm::RegTranslator,
                     public sm::RegFileLevel,
                     public sm::InstrObserver,
                     public sm::IssueGate,
                     public sm::WarpLaunchHook,
                     public sm::WarpRegAllocator {
 public:
  // `stacked_blocks` > 0: composed with a mechanism that places the general
  // registers (CARS, stacked over these hooks: sm/core/sm_hooks.h),
  // for that many blocks per SM: R2D2's rows are only its classes', at the
  // top of the file (classRows), and it translates no general register.
  R2d2Sm(sm::Sm& sm, const config::GpuConfig& cfg, const R2d2Config& c, const KernelPlan& plan,
         uint32_t stacked_blocks = 0);
  // Its hooks into the bundle the mechanism installs (Sm::install).
  void hooks(sm::SmHooks& h);
  const R2d2Counters& counters() const { return n_; }
  RegIdLockstep* rtl() { return lockstep_; }  // null without mechanisms.r2d2.rtl

  // RegTranslator
  uint32_t translate(uint32_t warp, uint32_t reg) override;
  bool isView(uint32_t reg) const override;
  void gather(uint32_t warp, uint32_t reg, uint32_t row, const ptx::Instr* in, uint64_t* lanes) override;
  void scatter(uint32_t warp, uint32_t reg, uint32_t row, const uint64_t* lanes, uint32_t active) override;

  // RegFileLevel
  sm::ReadReply read(uint32_t warp, uint32_t reg, uint32_t row, uint64_t cycle) override;

  // InstrObserver: the fetch logic's markers, the coefficient block on the
  // scalar pipeline, the linear operands' add.
  void before(uint32_t warp_slot, const func::BlockStepper& block, uint32_t local_warp, const func::DInstr& d,
              const func::Warp& w, const func::MachineColumns& cols) override;
  bool elided() const override { return obs_fetch_logic_; }
  bool scalar() const override { return obs_scalar_; }
  uint32_t addedLatency() const override { return obs_linear_add_ ? c_.add_latency : 0; }

  // IssueGate
  bool flags(const func::DInstr& d) const override;
  bool mayIssue(uint32_t warp_slot, const func::DInstr& d, uint64_t now) override;
  void issued(uint32_t warp_slot, const func::DInstr& d, const func::StepInfo& info, uint64_t now) override;
  bool holdsPair(const func::DInstr& d) const override;
  std::string describe() const override;
  // Its markers wait for other warps' blocks: a barrier-like wait, which
  // the two-level scheduler demotes (LTRF's pool of active warps would
  // otherwise fill with warps waiting for warps outside it).
  sm::Stall refusal() const override { return sm::Stall::Barrier; }

  // WarpLaunchHook
  uint32_t onWarpLaunch(uint32_t warp_slot, rt::Dim3 ctaid, uint32_t local_warp) override;
  uint32_t startPc(uint32_t warp_slot, const func::BlockStepper& block, uint32_t local_warp) override;

  // WarpRegAllocator
  bool canLaunch(uint32_t, uint32_t) override { return true; }
  bool allocate(uint32_t block_slot, uint32_t warp_slot, uint32_t local_warp, uint32_t regs_per_thread,
                uint32_t& base) override;
  void release(uint32_t) override {}
  bool ready(uint32_t warp_slot) const override;
  sm::Stall waitStall(uint32_t warp_slot) const override;  // a wait for flags: Barrier (see refusal)
  // For every hook at once (translator, level, gate, allocator): only a
  // warp's fetch_cycles at launch change anything by themselves.
  uint64_t nextEventCycle(uint64_t now) const override;

  // Roles (SmStats::warp_instrs_by_role).
  enum Role : uint32_t { kBody = 0, kCoef = 1, kTr = 2, kBr = 3 };

 private:
  enum class Kind : uint8_t { Gpr, Tr, Br, Cr, Cv, Lr, Other };
  Kind kindOf(uint32_t reg) const;
  RegIdOutputs lookup(RegKind kind, uint32_t reg, uint32_t slot);
  bool flagsFor(uint32_t slot) const;  // the flags a warp's start waits on are set
  // The markers and the thread-index copy's closing branch: the fetch
  // logic's flag checks and redirects (InstrObserver above).
  bool fetchLogic(uint32_t slot, const func::DInstr& d) const;

  sm::Sm& sm_;
  R2d2Config c_;
  const KernelPlan& plan_;
  RfLayout lay_;
  uint32_t rf_rows_ = 0;
  bool stacked_ = false;
  uint32_t class_base_ = 0;  // stacked: the first of R2D2's rows (the calculation's row 0)
  bool fault_tr_ = false, fault_br_ = false;  // R2d2Config::fault, read once
  uint32_t tr0_, br0_, cr0_, cv0_, lr0_;  // machine ids of each class's register 0
  uint16_t end_op_ = 0, wait_op_ = 0;
  ptx::ControlField lin_;                 // r2d2.lin: an instruction of the three blocks
  ptx::ControlField cr_, crk_;            // r2d2.cr, r2d2.crk: coefficient cr - 1 added to linear register crk
  std::unique_ptr<RegIdUnit> unit_;
  RegIdLockstep* lockstep_ = nullptr;

  struct Warp {
    uint32_t cta = 0, local = 0, id = 0;
    uint32_t role = kBody;
    uint32_t phase = 3;  // the block it runs: 0 coefficients, 1 thread-index, 2 block-index, 3 body
    bool linear = false; // in a linear block (linear_round_robin)
    uint64_t launched = 0;
    mutable uint64_t fetch_ready_at = UINT64_MAX;  // fetch_cycles: when its first fetch completes
  };
  std::vector<Warp> warps_;               // by warp slot
  int32_t first_cta_ = -1;                // CTA slot of the SM's first block
  uint32_t first_cta_warps_ = 0, tr_count_ = 0;
  bool coef_done_ = false, tr_done_ = false;
  std::vector<bool> br_done_;             // by CTA slot
  std::vector<uint64_t> cta_launched_;    // by CTA slot
  uint64_t first_launch_ = 0;
  uint32_t linear_warps_ = 0;             // warps in a linear block (the schedulers round robin meanwhile)
  void leaveLinear(Warp& w);
  // What before() found about the instruction being issued.
  bool obs_fetch_logic_ = false, obs_scalar_ = false, obs_linear_add_ = false;
  RegIdOutputs last_lr_;                  // the last linear register's lookup, for gather()
  uint32_t last_lr_slot_ = UINT32_MAX, last_lr_reg_ = UINT32_MAX;
  R2d2Counters n_;
};

}  // namespace rfsim::mech::r2d2
