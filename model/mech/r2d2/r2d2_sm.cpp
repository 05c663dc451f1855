// R2D2 in one SM (r2d2_sm.h).
#include "mech/r2d2/r2d2_sm.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/machine.h"
#include "sm/core/sm.h"

namespace rfsim::mech::r2d2 {

namespace mach = ptx::mach;

RfLayout rfLayout(const KernelPlan& plan, uint32_t warps_per_cta, uint32_t blocks, uint32_t regs_per_thread) {
  RfLayout l;
  l.warps_per_cta = warps_per_cta;
  l.blocks = blocks;
  l.regs = regs_per_thread;
  // Fig. 11's type offsets: thread-index registers from 0, then a pair per
  // CTA slot, then the coefficients (16 per row), then the general registers.
  l.br_offset = static_cast<uint32_t>(plan.trs.size()) * warps_per_cta;
  l.cr_offset = l.br_offset + 2 * blocks;
  l.gpr_offset = l.cr_offset + (plan.coefficients + 15) / 16;
  l.rows = l.gpr_offset + regs_per_thread * blocks * warps_per_cta;
  return l;
}

R2d2Sm::R2d2Sm(sm::Sm& sm, const config::GpuConfig& cfg, const R2d2Config& c, const KernelPlan& plan,
               uint32_t stacked_blocks)
    : sm_(sm), c_(c), plan_(plan), stacked_(stacked_blocks != 0) {
  const config::Occupancy& occ = sm.occupancy();
  rf_rows_ = cfg.regfile.size_kb * 1024 / 128;
  // Stacked, the calculation's rows (its classes' only: no general
  // registers) are moved to the top of the file by one more adder.
  lay_ = stacked_ ? rfLayout(plan, occ.warps_per_block, stacked_blocks, 0)
                  : rfLayout(plan, occ.warps_per_block, occ.blocks, (occ.regs_per_warp + 31) / 32);
  if (stacked_ && lay_.rows <= rf_rows_) class_base_ = rf_rows_ - lay_.rows;
  if (lay_.rows > rf_rows_)
    throw Error(fmt::format("r2d2: kernel {}: {} blocks of {} warps need {} register-file rows with the linear "
                            "registers, the register file has {} (admitBlocks should have limited them)",
                            plan.kernel, lay_.blocks, lay_.warps_per_cta, lay_.rows, rf_rows_));
  fault_tr_ = c.fault == R2d2Fault::TrRow;
  fault_br_ = c.fault == R2d2Fault::BrLane;
  tr0_ = ptx::extReg("r2d2.tr", 0);
  br0_ = ptx::extReg("r2d2.br", 0);
  cr0_ = ptx::extReg("r2d2.cr", 0);
  cv0_ = ptx::extReg("r2d2.cv", 0);
  lr0_ = ptx::extReg("r2d2.lr", 0);
  ptx::findExtOp("r2d2.end", &end_op_);
  ptx::findExtOp("r2d2.wait", &wait_op_);
  lin_ = ptx::registerControlField("r2d2.lin", 1);
  cr_ = ptx::registerControlField("r2d2.cr", 7);
  crk_ = ptx::registerControlField("r2d2.crk", 4);
  RegIdParams p;
  p.num_warps = cfg.sm.max_warps;
  p.num_warp_regs = rf_rows_;
  p.max_ctas = 32;
  if (c_.rtl) {
    auto u = std::make_unique<RegIdLockstep>(p);
    lockstep_ = u.get();
    unit_ = std::move(u);
  } else {
    unit_ = std::make_unique<RegIdRef>(p);
  }
  // The register table, written at launch: linear register K -> its
  // thread-index register.
  for (uint32_t k = 0; k < plan.lrs.size(); ++k) {
    RegIdInputs in;
    in.tbl_we = true;
    in.tbl_idx = k;
    in.tbl_tr = plan.lrs[k].tr;
    in.warps_per_cta = std::max(1u, lay_.warps_per_cta);
    RegIdOutputs out;
    unit_->evaluate(in, out);
    unit_->tick();
  }
  warps_.assign(cfg.sm.max_warps, {});
  br_done_.assign(std::max(1u, lay_.blocks), false);
  cta_launched_.assign(std::max(1u, lay_.blocks), 0);
}

void R2d2Sm::hooks(sm::SmHooks& h) {
  h.translator = this;
  h.physical_rows = rf_rows_;
  h.level = this;
  h.gates.push_back(this);
  h.launch = this;
  h.allocator = this;
  h.observers.push_back(this);
}

bool R2d2Sm::fetchLogic(uint32_t slot, const func::DInstr& d) const {
  if (!d.in) return false;
  if (d.in->op == ptx::Op::Ext) return d.in->ext == end_op_ || d.in->ext == wait_op_;
  // The first block's copy of the thread-index block ends in the branch to
  // the body: the fetch logic's redirect to the body's starting PC.
  return d.in->op == ptx::Op::Bra && warps_[slot].role == kTr && lin_.get(*d.in) != 0;
}

void R2d2Sm::before(uint32_t slot, const func::BlockStepper&, uint32_t, const func::DInstr& d, const func::Warp&,
                    const func::MachineColumns&) {
  obs_fetch_logic_ = fetchLogic(slot, d);
  const bool mem = d.cls == func::Cls::Ld || d.cls == func::Cls::St || d.cls == func::Cls::Atom ||
                   d.cls == func::Cls::Red;
  obs_scalar_ = !obs_fetch_logic_ && warps_[slot].phase == 0 && !mem && d.nwrites > 0;
  n_.scalar_coef_instrs += obs_scalar_;
  obs_linear_add_ = false;
  for (unsigned i = 0; i < d.nreads && !obs_linear_add_; ++i) obs_linear_add_ = kindOf(d.reads[i]) == Kind::Lr;
  n_.linear_adds += obs_linear_add_;
}

R2d2Sm::Kind R2d2Sm::kindOf(uint32_t reg) const {
  if (mach::isGpr(reg)) return Kind::Gpr;
  if (reg >= tr0_ && reg < tr0_ + 16) return Kind::Tr;
  if (reg >= br0_ && reg < br0_ + 2) return Kind::Br;
  if (reg >= cr0_ && reg < cr0_ + 2 * kMaxCoefficients) return Kind::Cr;
  if (reg >= cv0_ && reg < cv0_ + 8) return Kind::Cv;
  if (reg >= lr0_ && reg < lr0_ + 2 * kMaxLinear) return Kind::Lr;
  return Kind::Other;
}

RegIdOutputs R2d2Sm::lookup(RegKind kind, uint32_t reg, uint32_t slot) {
  const Warp& w = warps_[slot];
  RegIdInputs in;
  in.kind = static_cast<uint32_t>(kind);
  in.reg = reg;
  in.warp = w.id;
  in.cta = w.cta;
  in.warps_per_cta = lay_.warps_per_cta;
  in.num_warps = lay_.blocks * lay_.warps_per_cta;
  in.gpr_offset = lay_.gpr_offset;
  in.br_offset = lay_.br_offset;
  in.cr_offset = lay_.cr_offset;
  RegIdOutputs out;
  if (lockstep_) lockstep_->rtl().setCycle(sm_.currentCycle());
  unit_->evaluate(in, out);
  ++n_.lookups;
  if (lockstep_) ++n_.rtl_lookups;
  if (out.error || (stacked_ && kind == RegKind::Gpr))
    throw Error(fmt::format("r2d2 register ID calculation: kind {} register {} of warp {} (CTA slot {}) has no row "
                            "(layout: {} warps per CTA, {} blocks, offsets {}/{}/{}{})",
                            in.kind, reg, w.id, w.cta, lay_.warps_per_cta, lay_.blocks, lay_.br_offset,
                            lay_.cr_offset, lay_.gpr_offset,
                            stacked_ ? "; the general registers are another mechanism's" : ""));
  out.id += class_base_;
  out.br_id += class_base_;
  return out;
}

uint32_t R2d2Sm::translate(uint32_t slot, uint32_t reg) {
  switch (kindOf(reg)) {
    case Kind::Gpr:
      return lookup(RegKind::Gpr, reg, slot).id;
    case Kind::Tr:
      return lookup(RegKind::Tr, reg - tr0_, slot).id;
    case Kind::Br:
      return lookup(RegKind::Br, 0, slot).id + (reg - br0_);
    case Kind::Cr:
      return lookup(RegKind::Cr, (reg - cr0_) / 2, slot).id;
    case Kind::Cv:
      return lookup(RegKind::Cr, 16 * ((reg - cv0_) / 2), slot).id;
    case Kind::Lr: {
      last_lr_ = lookup(RegKind::Lr, (reg - lr0_) / 2, slot);  // gather() reads the BR row from it
      last_lr_slot_ = slot;
      last_lr_reg_ = reg;
      const uint32_t row = last_lr_.id;
      if (fault_tr_)  // every warp reads the thread-index part of its block's first warp
        return row - (row - class_base_) % lay_.warps_per_cta;
      return row;
    }
    case Kind::Other:
      break;
  }
  throw Error(fmt::format("r2d2: register {} of warp slot {} is not one R2D2 knows", mach::regName(reg), slot));
}

bool R2d2Sm::isView(uint32_t reg) const {
  const Kind k = kindOf(reg);
  return k == Kind::Cr || k == Kind::Cv || k == Kind::Lr;
}

void R2d2Sm::gather(uint32_t slot, uint32_t reg, uint32_t row, const ptx::Instr* in, uint64_t* lanes) {
  const uint64_t* r = sm_.registerRows().row(row);
  switch (kindOf(reg)) {
    case Kind::Cr: {
      // A coefficient read as a scalar: its word, in every lane.
      const uint32_t j = (reg - cr0_) / 2, half = (reg - cr0_) % 2;
      const uint64_t v = r[2 * (j % 16) + half] & 0xffffffffu;
      std::fill_n(lanes, 32, v);
      ++n_.coef_reads;
      break;
    }
    case Kind::Cv: {
      // Consecutive coefficients as a vector: lane K the K-th one's word.
      const uint32_t half = (reg - cv0_) % 2;
      for (uint32_t k = 0; k < 32; ++k) lanes[k] = k < 16 ? r[2 * k + half] & 0xffffffffu : 0;
      ++n_.vector_reads;
      break;
    }
    case Kind::Lr: {
      // Section 4.2: the thread-index part (this warp's row) plus the
      // block-index part (lane K of the block's pair), summed by the address
      // adder; the register ID unit gave both rows.
      const uint32_t k = (reg - lr0_) / 2, half = (reg - lr0_) % 2;
      // The lookup translate() just made for this operand (the SM gathers
      // right after translating it).
      const RegIdOutputs o = last_lr_slot_ == slot && last_lr_reg_ == reg ? last_lr_ : lookup(RegKind::Lr, k, slot);
      const uint32_t lane = fault_br_ ? (o.lane + 1) % 32 : o.lane;
      uint64_t b = (sm_.registerRows().row(o.br_id)[lane] & 0xffffffffu) |
                   ((sm_.registerRows().row(o.br_id + 1)[lane] & 0xffffffffu) << 32);
      // Fig. 8: a use whose constant differs from its group's adds a
      // coefficient register (the third source of the address adder).
      if (const uint32_t j1 = in ? cr_.get(*in) : 0; j1 && crk_.get(*in) == k) {
        const uint32_t j = j1 - 1;
        const RegIdOutputs c = lookup(RegKind::Cr, j, slot);
        const uint64_t* cr = sm_.registerRows().row(c.id);
        b += (cr[c.lane] & 0xffffffffu) | ((cr[c.lane + 1] & 0xffffffffu) << 32);
        ++n_.coef_reads;
        if (!half) ++n_.part_rows_read;
      }
      for (uint32_t l = 0; l < 32; ++l) {
        const int64_t t = static_cast<int32_t>(static_cast<uint32_t>(r[l]));
        const uint64_t v = static_cast<uint64_t>(t) + b;
        lanes[l] = half ? v >> 32 : v & 0xffffffffu;
      }
      ++n_.linear_reads;
      n_.part_rows_read += half ? 1 : 2;  // the low word: TR row + BR low row; the high word: BR high row
      break;
    }
    default:
      throw Error(fmt::format("r2d2: gather of {}", mach::regName(reg)));
  }
}

void R2d2Sm::scatter(uint32_t slot, uint32_t reg, uint32_t row, const uint64_t* lanes, uint32_t active) {
  if (kindOf(reg) != Kind::Cr)
    throw Error(fmt::format("r2d2: warp slot {} wrote {}, which only the operand collector reads", slot,
                            mach::regName(reg)));
  if (!active) return;
  // The coefficient block runs on the scalar path: one value, from the first
  // lane that executed, into the coefficient's two lanes of its row.
  const uint32_t j = (reg - cr0_) / 2, half = (reg - cr0_) % 2;
  sm_.registerRows().row(row)[2 * (j % 16) + half] = lanes[__builtin_ctz(active)] & 0xffffffffu;
  ++n_.coef_writes;
}

sm::ReadReply R2d2Sm::read(uint32_t, uint32_t reg, uint32_t, uint64_t cycle) {
  const Kind k = kindOf(reg);
  if (k == Kind::Gpr) return sm::ReadReply::hit();
  ++n_.class_reads;
  // Sections 4.3 and 5.4: the parts' sum is a pipelined add after the
  // collector (addedLatency), not collector hold time.
  if (k == Kind::Lr) return sm::ReadReply::availableAt(cycle + 1 + c_.idcalc_cycles);
  if (c_.idcalc_cycles) return sm::ReadReply::availableAt(cycle + 1 + c_.idcalc_cycles);
  return sm::ReadReply::hit();
}

bool R2d2Sm::flags(const func::DInstr& d) const {
  return d.in && (lin_.get(*d.in) != 0 || (d.in->op == ptx::Op::Ext && (d.in->ext == end_op_ || d.in->ext == wait_op_)));
}

bool R2d2Sm::holdsPair(const func::DInstr& d) const { return d.in->op == ptx::Op::Ext; }

bool R2d2Sm::mayIssue(uint32_t slot, const func::DInstr& d, uint64_t) {
  if (d.in->op != ptx::Op::Ext) return true;
  const Warp& w = warps_[slot];
  bool ok = true;
  if (d.in->ext == end_op_) {
    // The block's values are all written before its flag goes up.
    ok = sm_.warpInflight(slot) == 0;
    if (d.in->nsrc && d.in->src[0].imm == 2) ok = ok && tr_done_;
  } else if (d.in->ext == wait_op_) {
    ok = tr_done_ && br_done_[w.cta];
  }
  if (!ok) ++n_.marker_waits;
  return ok;
}

void R2d2Sm::issued(uint32_t slot, const func::DInstr& d, const func::StepInfo&, uint64_t now) {
  Warp& w = warps_[slot];
  if (fetchLogic(slot, d)) {
    ++n_.fetch_logic_ops;
  } else {
    ++n_.linear_instrs;
    if (w.phase == 0) ++n_.coef_instrs;
    else if (w.phase == 1) ++n_.tr_instrs;
    else ++n_.br_instrs;
  }
  // The copy of the thread-index block ends in the branch to the body.
  if (w.role == kTr && d.in->op == ptx::Op::Bra) leaveLinear(w);
  if (d.in->op != ptx::Op::Ext || d.in->ext != end_op_) return;
  w.phase = w.role == kTr ? 1 : static_cast<uint32_t>(d.in->src[0].imm) + 1;  // the copy's wait and branch: still 1
  if (w.phase == 3) leaveLinear(w);
  switch (d.in->src[0].imm) {
    case 0:
      coef_done_ = true;
      ++n_.coef_blocks;
      break;
    case 1:
      ++n_.tr_blocks;
      if (++tr_count_ == first_cta_warps_) {
        tr_done_ = true;
        n_.startup_cycles += now - first_launch_;
      }
      break;
    case 2:
      ++n_.br_blocks;
      br_done_[w.cta] = true;
      n_.br_cycles += now - cta_launched_[w.cta];
      break;
    default:
      break;
  }
}

void R2d2Sm::leaveLinear(Warp& w) {
  if (!w.linear) return;
  w.linear = false;
  if (--linear_warps_ == 0) sm_.setRoundRobin(false);
}

std::string R2d2Sm::describe() const {
  std::string s = fmt::format("  r2d2: coefficients {}, thread-index parts {} ({} of {} warps of CTA slot {}), "
                              "block-index parts done in CTA slots:",
                              coef_done_ ? "done" : "pending", tr_done_ ? "done" : "pending", tr_count_,
                              first_cta_warps_, first_cta_);
  for (size_t i = 0; i < br_done_.size(); ++i)
    if (br_done_[i]) s += fmt::format(" {}", i);
  return s + "\n";
}

bool R2d2Sm::allocate(uint32_t block_slot, uint32_t slot, uint32_t local, uint32_t regs_per_thread, uint32_t& base) {
  if (block_slot >= lay_.blocks || local >= lay_.warps_per_cta)
    throw Error(fmt::format("r2d2: CTA slot {} warp {} outside the layout's {} blocks of {} warps", block_slot,
                            local, lay_.blocks, lay_.warps_per_cta));
  Warp& w = warps_.at(slot);
  w = {};
  w.cta = block_slot;
  w.local = local;
  w.id = block_slot * lay_.warps_per_cta + local;
  // Alone, the rows come from the register ID calculation, not a base;
  // stacked, the general registers are the other mechanism's: LTRF keeps
  // them at the baseline's rows (below R2D2's), CARS gives its own base.
  base = stacked_ ? slot * regs_per_thread : 0;
  return true;
}

uint32_t R2d2Sm::onWarpLaunch(uint32_t slot, rt::Dim3, uint32_t local) {
  Warp& w = warps_[slot];
  const uint64_t now = sm_.currentCycle();
  w.launched = now;
  if (first_cta_ < 0) {
    first_cta_ = static_cast<int32_t>(w.cta);
    first_cta_warps_ = lay_.warps_per_cta;
    first_launch_ = now;
  }
  if (local == 0) {
    br_done_[w.cta] = false;
    cta_launched_[w.cta] = now;
  }
  const bool first_block = static_cast<int32_t>(w.cta) == first_cta_ && !tr_done_;
  w.role = first_block ? (local == 0 ? kCoef : kTr) : (local == 0 ? kBr : kBody);
  w.phase = w.role == kCoef ? 0 : w.role == kTr ? 1 : w.role == kBr ? 2 : 3;
  if (w.phase < 3 && c_.linear_round_robin) {
    w.linear = true;
    if (linear_warps_++ == 0) {
      sm_.setRoundRobin(true);
      ++n_.rr_switches;
    }
  }
  return w.role;
}

uint32_t R2d2Sm::startPc(uint32_t slot, const func::BlockStepper& block, uint32_t) {
  switch (warps_[slot].role) {
    case kCoef: return block.pcOfLabel(kCoefLabel);
    case kTr: return block.pcOfLabel(kTr2Label);
    case kBr: return block.pcOfLabel(kBrLabel);
    default: return block.pcOfLabel(plan_.body_label);
  }
}

bool R2d2Sm::flagsFor(uint32_t slot) const {
  const Warp& w = warps_[slot];
  switch (w.role) {
    case kCoef: return true;
    case kTr:
    case kBr: return coef_done_;
    default: return tr_done_ && br_done_[w.cta];
  }
}

bool R2d2Sm::ready(uint32_t slot) const {
  const Warp& w = warps_[slot];
  if (c_.fetch_cycles) {
    // Section 5.4: the starting-PC table and the flags lengthen the warp's
    // first fetch; the SM asks once the first instructions arrived, so the
    // cycles add to that fetch instead of hiding behind it.
    const uint64_t now = sm_.currentCycle();
    if (w.fetch_ready_at == UINT64_MAX) w.fetch_ready_at = now + c_.fetch_cycles;
    if (now < w.fetch_ready_at) return false;
  }
  return flagsFor(slot);
}

sm::Stall R2d2Sm::waitStall(uint32_t slot) const {
  const Warp& w = warps_[slot];
  if (c_.fetch_cycles && sm_.currentCycle() < w.fetch_ready_at) return sm::Stall::IbufferEmpty;  // its first fetch
  return sm::Stall::Barrier;
}

uint64_t R2d2Sm::nextEventCycle(uint64_t now) const {
  if (!c_.fetch_cycles) return UINT64_MAX;
  uint64_t n = UINT64_MAX;
  for (const Warp& w : warps_)
    if (w.fetch_ready_at != UINT64_MAX && w.fetch_ready_at > now) n = std::min(n, w.fetch_ready_at);
  return n;
}

}  // namespace rfsim::mech::r2d2
