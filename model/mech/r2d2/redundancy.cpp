// The redundancy baselines (redundancy.h).
#include "mech/r2d2/redundancy.h"

#include "func/stepper.h"
#include "ptx/machine.h"

namespace rfsim::mech::r2d2 {

namespace mach = ptx::mach;
using func::Cls;
using func::DKind;

void RedundancyCounts::add(const RedundancyCounts& o) {
  warp_instrs += o.warp_instrs;
  thread_instrs += o.thread_instrs;
  wp_thread_instrs += o.wp_thread_instrs;
  tb_warp_instrs += o.tb_warp_instrs;
  tb_thread_instrs += o.tb_thread_instrs;
  ln_warp_instrs += o.ln_warp_instrs;
  ln_thread_instrs += o.ln_thread_instrs;
  dac_warp_instrs += o.dac_warp_instrs;
  dac_thread_instrs += o.dac_thread_instrs;
  darsie_warp_instrs += o.darsie_warp_instrs;
  darsie_thread_instrs += o.darsie_thread_instrs;
  scalar_warp_instrs += o.scalar_warp_instrs;
  elided_warp_instrs += o.elided_warp_instrs;
  scalar_pipeline_instrs += o.scalar_pipeline_instrs;
}

namespace {

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

uint64_t blockKey(rt::Dim3 c) { return uint64_t{c.x} | uint64_t{c.y} << 22 | uint64_t{c.z} << 44; }

// Fig. 6's transfer operations, for the dynamic linearity of ideal LN.
bool linearOp(const func::DInstr& d) {
  const ptx::Instr& in = *d.in;
  if (d.has_guard || ptx::isFloat(in.type) || in.type == ptx::Type::Pred) return false;
  switch (in.op) {
    case ptx::Op::Mov: case ptx::Op::Cvt: case ptx::Op::Add: case ptx::Op::Sub: case ptx::Op::Shl:
      return !in.mods.cc && !in.mods.carry_in;
    case ptx::Op::Mul: case ptx::Op::Mad:
      return in.mods.mul == ptx::MulMode::Lo || in.mods.mul == ptx::MulMode::Wide;
    case ptx::Op::Ld:
      return in.space == ptx::Space::Param;
    default:
      return false;
  }
}

}  // namespace

RedundancyObserver::RedundancyObserver(uint32_t max_warps, Elide elide, bool scalar_pipeline)
    : warps_(max_warps), elide_(elide), scalar_pipeline_(scalar_pipeline) {}

void RedundancyObserver::onBlockRetired(rt::Dim3 ctaid, uint64_t) { blocks_.erase(blockKey(ctaid)); }

void RedundancyObserver::before(uint32_t slot, const func::BlockStepper& st, uint32_t local, const func::DInstr& d,
                                const func::Warp& w, const func::MachineColumns& cols) {
  p_ = {};
  const rt::Dim3 c = st.ctaid();
  Block& b = blocks_[blockKey(c)];
  p_.block = &b;
  WarpTrack& t = warps_.at(slot);
  if (t.x != c.x || t.y != c.y || t.z != c.z || t.local != local) {  // a new warp in the slot
    t = {c.x, c.y, c.z, local, std::vector<uint8_t>(mach::kNumRegIds, 0)};
  }
  const uint32_t active = w.stack.empty() ? 0 : w.stack.back().mask & w.live();
  p_.lanes = active;
  if (!active) return;

  // Identity: the pc (the instruction), the lanes, the source values.
  uint64_t h = mix(reinterpret_cast<uintptr_t>(&d), active);
  bool uniform = true, never = false;
  auto lanesOf = [&](uint32_t id) { return w.reg(cols.ofAny(id)); };
  for (unsigned i = 0; i < d.nreads; ++i) {
    const uint64_t* v = lanesOf(d.reads[i]);
    const int first = __builtin_ctz(active);
    for (uint32_t m = active; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      h = mix(h, v[l] & 0xffffffffu);
      uniform = uniform && (v[l] & 0xffffffffu) == (v[first] & 0xffffffffu);
    }
  }
  for (unsigned k = 0; k < d.nsrc; ++k) {
    const func::DOperand& o = d.src[k];
    if (o.kind != DKind::SReg) continue;
    switch (o.sreg) {
      case ptx::SReg::Tid: {
        const auto& tid = o.dim == 0 ? w.tid_x : o.dim == 1 ? w.tid_y : w.tid_z;
        for (uint32_t m = active; m; m &= m - 1) h = mix(h, tid[__builtin_ctz(m)]);
        uniform = uniform && __builtin_popcount(active) == 1;
        break;
      }
      case ptx::SReg::Laneid: case ptx::SReg::LanemaskEq: case ptx::SReg::LanemaskLe: case ptx::SReg::LanemaskLt:
      case ptx::SReg::LanemaskGe: case ptx::SReg::LanemaskGt:
        uniform = uniform && __builtin_popcount(active) == 1;
        h = mix(h, active);
        break;
      case ptx::SReg::Ntid: case ptx::SReg::Nctaid: case ptx::SReg::Ctaid: case ptx::SReg::Nsmid:
      case ptx::SReg::Nwarpid: case ptx::SReg::Gridid:
        break;  // the same in every warp of the block
      default:
        never = true;  // clocks, SM and warp ids, timers
    }
  }
  p_.key = h;
  p_.uniform = uniform && !never;
  // Constant operands (the baseline's scalar pipeline, docs/r2d2.md): every
  // source register holds a value computed, by a converged warp, only from
  // immediates, parameters, constants and the launch's block-uniform
  // special registers (bit 2 of lin, followed dynamically); RZ is one.
  bool cst = !never;
  for (unsigned i = 0; i < d.nreads && cst; ++i) cst = d.reads[i] == mach::kRZ || (t.lin[d.reads[i]] & 4);
  for (unsigned k = 0; k < d.nsrc && cst; ++k)
    if (d.src[k].kind == DKind::SReg)
      cst = d.src[k].sreg == ptx::SReg::Ntid || d.src[k].sreg == ptx::SReg::Nctaid ||
            d.src[k].sreg == ptx::SReg::Ctaid || d.src[k].sreg == ptx::SReg::Gridid;
  p_.constant = cst && active == w.live();

  // What may be skipped (TB, DARSIE) and how a load is ordered.
  const ptx::Space sp = d.in->space;
  switch (d.cls) {
    case Cls::Ld:
      p_.load = true;
      p_.skippable = sp != ptx::Space::Local && !d.in->mods.volatile_;
      // Read-only data cannot depend on the block's stores.
      p_.ordered_load = !(sp == ptx::Space::Param || sp == ptx::Space::Const || d.in->mods.nc);
      break;
    case Cls::St: case Cls::Atom: case Cls::Red: case Cls::Bra: case Cls::Call: case Cls::Ret: case Cls::Exit:
    case Cls::Trap: case Cls::Brkpt: case Cls::Bar: case Cls::Shfl: case Cls::Vote: case Cls::Activemask:
    case Cls::Nop:
      p_.skippable = false;
      break;
    default:
      p_.skippable = d.nwrites > 0;
  }
  if (never) p_.skippable = false;
  if (p_.skippable) {
    p_.tb_seen = !b.tb.insert(h).second;
    const uint64_t hd = p_.ordered_load ? mix(h, b.epoch) : h;
    p_.darsie_seen = !b.darsie.insert(hd).second;
    // DARSIE skips an instruction whose redundancy follows from its inputs'
    // (redundancy.h): a source register this warp computed itself (bit 3)
    // makes a repeat a coincidence of values, which DARSIE's compiler
    // cannot know.
    for (unsigned i = 0; i < d.nreads && p_.darsie_seen; ++i) p_.darsie_seen = !(t.lin[d.reads[i]] & 8);
  }

  // Ideal LN: the destination is linear when a transfer operation reads
  // only linear values (indices, launch dimensions, parameters, immediates).
  if (linearOp(d) && d.nwrites) {
    bool lin = true;
    uint8_t idx = 0, idx_count = 0;
    for (unsigned i = 0; i < d.nreads; ++i) {
      const uint8_t f = t.lin[d.reads[i]];
      lin = lin && (f & 1);
      idx |= f & 2;
    }
    for (unsigned k = 0; k < d.nsrc; ++k) {
      const func::DOperand& o = d.src[k];
      if (o.kind == DKind::SReg) {
        if (o.sreg == ptx::SReg::Tid || o.sreg == ptx::SReg::Ctaid) idx |= 2;
        else if (o.sreg != ptx::SReg::Ntid && o.sreg != ptx::SReg::Nctaid) lin = false;
      }
    }
    // mul, mad, shl: at most one factor may depend on an index.
    if ((d.in->op == ptx::Op::Mul || d.in->op == ptx::Op::Mad || d.in->op == ptx::Op::Shl) && lin) {
      for (unsigned k = 0; k < 2 && k < d.nsrc; ++k) {
        const func::DOperand& o = d.src[k];
        bool dep = o.kind == DKind::SReg && (o.sreg == ptx::SReg::Tid || o.sreg == ptx::SReg::Ctaid);
        if (o.kind == DKind::Reg || o.kind == DKind::RegPair || o.kind == DKind::RegNarrow)
          for (unsigned i = 0; i < d.nreads; ++i)
            if (cols.ofAny(d.reads[i]) == o.reg && (t.lin[d.reads[i]] & 2)) dep = true;
        idx_count += dep;
      }
      if (idx_count > 1) lin = false;
    }
    p_.linear = lin;
    p_.lin_bits = lin ? uint8_t(1 | idx) : 0;
  }
}

void RedundancyObserver::after(uint32_t slot, const func::DInstr& d, const func::StepInfo& info, const func::Warp& w,
                               const func::MachineColumns& cols) {
  const uint32_t active = p_.lanes;
  free_ = false;
  scalar_now_ = false;
  WarpTrack& t = warps_.at(slot);
  // A result is constant when its operands were and it is not loaded from
  // memory other than the parameter or constant banks.
  const bool cst = p_.constant && (!p_.load || d.in->space == ptx::Space::Param || d.in->space == ptx::Space::Const);
  // Bit 3: this warp computed the value itself (not a DARSIE repeat).
  const uint8_t own = p_.darsie_seen ? 0 : 8;
  for (unsigned i = 0; i < d.nwrites; ++i) t.lin[d.writes[i]] = uint8_t(p_.lin_bits | (cst ? 4 : 0) | own);
  if (!active || !p_.block) return;
  Block& b = *p_.block;
  const uint64_t lanes = static_cast<uint64_t>(__builtin_popcount(active));
  ++n_.warp_instrs;
  n_.thread_instrs += lanes;
  n_.wp_thread_instrs += p_.uniform && p_.skippable ? 1 : lanes;
  if (!p_.tb_seen) {
    ++n_.tb_warp_instrs;
    n_.tb_thread_instrs += lanes;
  }
  if (!p_.linear) {
    ++n_.ln_warp_instrs;
    n_.ln_thread_instrs += lanes;
  }
  if (!p_.darsie_seen) {
    ++n_.darsie_warp_instrs;
    n_.darsie_thread_instrs += lanes;
    if (p_.uniform && p_.skippable && !p_.load) ++n_.scalar_warp_instrs;
  }
  // DAC: an affine computation (Fig. 6's operations on the indices, the
  // parameters, the launch dimensions and immediates: what DAC's compiler
  // decouples into the block's affine stream) whose result is consecutive
  // affine values over the active lanes, computed once per block.
  bool affine = p_.skippable && !p_.load && d.nwrites > 0 && p_.linear;
  for (unsigned i = 0; affine && i < d.nwrites; ++i) {
    if (mach::isPred(d.writes[i])) {
      affine = false;
      break;
    }
    const uint64_t* v = w.reg(cols.ofAny(d.writes[i]));
    const int l0 = __builtin_ctz(active);
    const uint32_t rest = active & (active - 1);
    if (!rest) continue;
    const int l1 = __builtin_ctz(rest);
    const uint32_t v0 = uint32_t(v[l0]), stride = (uint32_t(v[l1]) - v0) / uint32_t(l1 - l0);
    for (uint32_t m = active; m && affine; m &= m - 1) {
      const int l = __builtin_ctz(m);
      affine = uint32_t(v[l]) == v0 + stride * uint32_t(l - l0);
    }
  }
  bool dac_free = false;
  if (affine) dac_free = !b.affine.insert(reinterpret_cast<uintptr_t>(&d)).second;
  if (!dac_free) {
    ++n_.dac_warp_instrs;
    n_.dac_thread_instrs += lanes;
  }
  switch (elide_) {
    case Elide::Dac: free_ = dac_free; break;
    case Elide::Darsie: free_ = p_.darsie_seen; break;
    case Elide::DarsieScalar: free_ = p_.darsie_seen; break;
    case Elide::None: break;
  }
  n_.elided_warp_instrs += free_;
  // The baseline's scalar pipeline takes operations on constant operands;
  // DARSIE+Scalar's any whose active lanes read the same values.
  scalar_now_ = !free_ && p_.skippable && !p_.load &&
                ((scalar_pipeline_ && p_.constant) || (elide_ == Elide::DarsieScalar && p_.uniform));
  n_.scalar_pipeline_instrs += scalar_now_;
  // A store, atomic or reduction orders the block's later loads.
  if (d.cls == Cls::St || d.cls == Cls::Atom || d.cls == Cls::Red) ++b.epoch;
  (void)info;
}

}  // namespace rfsim::mech::r2d2
