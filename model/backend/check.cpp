// The allocation checker (check.h): a forward data-flow pass over the machine
// function that tracks, for every physical register and every R1-relative
// stack slot, a token naming what it holds (a pre-allocation value, what the
// register held on entry, "clobbered by a call", "paths disagree",
// "undefined"), then compares each use with the value the instruction read
// before allocation.
//
// The pass iterates to a fixpoint first without reporting, then walks every
// block once more from its converged entry state and reports; so each
// error is reported once however often its block was visited.
#include "backend/check.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <deque>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "backend/check_copies.h"
#include "backend/check_state.h"
#include "backend/mfunction.h"
#include "ptx/isa_ext.h"
#include "ptx/analysis/printer.h"

namespace rfsim::backend {

namespace {

namespace mach = ptx::mach;
using ptx::kNoReg;

constexpr int64_t kSharedKey = int64_t{1} << 40;  // demoted registers' shared slots among the stack's
// The first register a register-stack push renames (ptx::ExtRegEffect): the
// ABI's first callee-saved register.
constexpr uint32_t kStackBase = 16;

using checkdetail::CopySets;
using checkdetail::entryToken;
using checkdetail::kClobbered;
using checkdetail::kConflict;
using checkdetail::kCopyBase;
using checkdetail::kEntryBase;
using checkdetail::kUndef;
using checkdetail::State;
using checkdetail::ValueIndex;

// One register slot of an instruction, copied out of forEachSlot.
struct SlotRef {
  uint32_t reg;
  unsigned mbits;
  bool def;
  int operand;
  uint32_t value;  // expected pre-allocation value, or kNoReg
};

// The physical register ids a slot covers: a pair covers two.
unsigned coverCount(const SlotRef& s) { return (s.mbits == 64 && mach::isGpr(s.reg)) ? 2 : 1; }
// What the k-th register of a slot holds: a virtual value fills both halves
// of a pair; a physical value names each register (physId(r), physId(r+1)),
// as call and entry registers are listed one per 32-bit register.
uint32_t expectAt(uint32_t value, unsigned k) { return isPhysId(value) ? value + k : value; }

bool isSpillStore(const ptx::Instr& in) {
  return in.op == ptx::Op::St && in.nsrc >= 2 && in.src[0].kind == ptx::OperandKind::Addr &&
         in.src[1].kind == ptx::OperandKind::Reg && in.src[1].regs[0] < mach::kNumRegIds;
}
bool isSpillLoad(const ptx::Instr& in) {
  return in.op == ptx::Op::Ld && in.nsrc >= 1 && in.ndst >= 1 && in.src[0].kind == ptx::OperandKind::Addr &&
         in.dst[0].kind == ptx::OperandKind::Reg && in.dst[0].regs[0] < mach::kNumRegIds;
}

class Checker {
 public:
  Checker(const ptx::Function& fn, const SlotValues& values, const mach::Abi& abi, const std::vector<std::string>& names)
      : fn_(fn), values_(values), abi_(abi), names_(names), index_(values) {}

  CheckResult run() {
    if (values_.size() != fn_.blocks.size()) {
      report_ = true;
      error(fmt::format("{} {}: the slot values cover {} blocks, the function has {}", kind(), fn_.name,
                        values_.size(), fn_.blocks.size()));
      return std::move(result_);
    }
    if (fn_.blocks.empty()) return std::move(result_);
    const bool settled = solve();
    report_ = true;
    if (!settled) {
      cur_instr_ = nullptr;
      error(fmt::format("{} {}: the value-following checker's data flow did not settle", kind(), fn_.name));
      return std::move(result_);
    }
    for (uint32_t b = 0; b < fn_.blocks.size(); ++b) {
      State s = in_[b];
      reached_ = s.reached;
      walkBlock(b, s);
    }
    return std::move(result_);
  }

 private:
  const ptx::Function& fn_;
  const SlotValues& values_;
  const mach::Abi& abi_;
  const std::vector<std::string>& names_;
  const ValueIndex index_;
  CopySets copies_;
  CheckResult result_;
  std::vector<State> in_, out_;
  bool report_ = false;   // the final pass: record errors and counts
  bool reached_ = true;   // the block being walked is reachable (else only structural checks)
  // Where the walk is, for messages.
  uint32_t cur_block_ = 0, cur_index_ = 0;
  const ptx::Instr* cur_instr_ = nullptr;
  std::vector<SlotRef> slots_;
  // A copy of the function with the machine register names and no body, for
  // the printer (built on the first error).
  std::unique_ptr<ptx::Function> shell_;
  ptx::Module empty_module_;

  const char* kind() const { return fn_.is_entry ? "kernel" : "function"; }

  State entryState() const {
    State s;
    s.reached = true;
    s.defined.assign(index_.words(), 0);
    for (uint32_t r = 0; r < mach::kNumRegIds; ++r) s.regs[r] = entryToken(r);
    // R1 holds the stack pointer on entry: the physical value every [R1+off]
    // reads; a ret checks it is still there.
    s.regs[mach::kSP] = physId(mach::kSP);
    s.regs[mach::kRZ] = physId(mach::kRZ);
    for (uint32_t r : fn_.machine_args)
      if (r < mach::kNumRegIds) {
        s.regs[r] = physId(r);
        s.define(index_.of(physId(r)));
      }
    s.define(index_.of(physId(mach::kSP)));
    // An extension class's register holds what its mechanism put there
    // (written by another warp, block or launch, as a mechanism's
    // precomputed index registers are): its own value, defined, on entry.
    for (uint32_t r = mach::kExtRegBase; r < mach::kNumRegIds; ++r) {
      s.regs[r] = physId(r);
      s.define(index_.of(physId(r)));
    }
    return s;
  }

  static void widen(State& in, const State& old) {
    for (size_t r = 0; r < in.regs.size(); ++r)
      if (in.regs[r] != old.regs[r]) in.regs[r] = kConflict;
    for (auto& [off, tok] : in.slots)
      if (tok != old.slot(off)) tok = kConflict;
    for (const auto& [off, tok] : old.slots)
      if (!in.slots.count(off)) in.slots[off] = kConflict;
    if (in.stacked.size() != old.stacked.size())
      in.stacked.assign(std::max(in.stacked.size(), old.stacked.size()), kConflict);
    else
      for (size_t i = 0; i < in.stacked.size(); ++i)
        if (in.stacked[i] != old.stacked[i]) in.stacked[i] = kConflict;
  }

  bool solve() {
    const size_t n = fn_.blocks.size();
    in_.assign(n, State{});
    out_.assign(n, State{});
    std::vector<bool> queued(n, false), done(n, false);
    std::deque<uint32_t> work{0};
    queued[0] = true;
    const State entry = entryState();
    // Every block settles after a few visits; a meet that never does is
    // reported (run()) instead of hanging.
    for (uint64_t visits = 0; !work.empty(); ++visits) {
      if (visits > uint64_t{n} * 256 + 4096) return false;
      const uint32_t b = work.front();
      work.pop_front();
      queued[b] = false;
      State in = b == 0 ? entry : State{};
      for (uint32_t p : fn_.blocks[b].preds)
        if (p < n) meetInto(in, out_[p], index_, copies_);
      if (!in.reached) continue;
      // Widening, a safety net: the meet and the transfer are monotone (see
      // meetToken), so the flow settles by itself; CUB's largest kernels
      // take up to 17 visits per block. Should anything still change at a
      // block's entry after 64 visits per block, it is a conflict there and
      // stays one.
      if (done[b] && visits > uint64_t{n} * 64) widen(in, in_[b]);
      if (done[b] && in == in_[b]) continue;
      in_[b] = in;
      done[b] = true;
      State out = in;
      walkBlock(b, out);
      if (out != out_[b]) {
        out_[b] = std::move(out);
        for (uint32_t s : fn_.blocks[b].succs)
          if (s < n && !queued[s]) {
            queued[s] = true;
            work.push_back(s);
          }
      }
    }
    return true;
  }

  void walkBlock(uint32_t b, State& s) {
    const auto& instrs = fn_.blocks[b].instrs;
    cur_block_ = b;
    if (report_ && values_[b].size() != instrs.size()) {
      cur_instr_ = nullptr;
      error(fmt::format("{} {}, block {}: the slot values cover {} instructions, the block has {}", kind(), fn_.name,
                        b, values_[b].size(), instrs.size()));
    }
    static const std::vector<uint32_t> kNone;
    for (uint32_t i = 0; i < instrs.size(); ++i) {
      cur_index_ = i;
      cur_instr_ = &instrs[i];
      step(s, instrs[i], i < values_[b].size() ? values_[b][i] : kNone);
    }
  }

  // ---- the transfer function ------------------------------------------------

  void step(State& s, const ptx::Instr& in, const std::vector<uint32_t>& vals) {
    collectSlots(in, vals);
    if (report_) structural(in);
    const bool check = reached_;

    // Uses first: every register a use covers holds the value it expects.
    for (const SlotRef& u : slots_) {
      if (u.def || u.reg >= mach::kNumRegIds || u.value == kNoReg) continue;
      if (report_ && check) ++result_.uses_checked;
      for (unsigned k = 0; k < coverCount(u); ++k) {
        const uint32_t r = u.reg + k;
        if (r >= mach::kNumRegIds) continue;
        const uint32_t want = expectAt(u.value, k);
        if (!copies_.holds(s.regs[r], want) && s.isDefined(index_.of(want)) && check)
          error(fmt::format("{} holds {}, expected {}", mach::regName(r), tokenName(s.regs[r], r), tokenName(want)));
      }
    }

    // Stack slots: spills and saves copy registers out, fills and restores back.
    bool loaded = false;  // the def of a fill/restore is done here
    const bool spill_like = in.role == ptx::MRole::Spill || in.role == ptx::MRole::Save;
    const bool fill_like = in.role == ptx::MRole::Fill || in.role == ptx::MRole::Restore;
    if (spill_like && isSpillStore(in)) {
      const int64_t off = in.src[0].imm;
      const ptx::Operand& v = in.src[1];
      const unsigned n = (v.mbits == 64 && mach::isGpr(v.regs[0])) ? 2 : 1;
      for (unsigned k = 0; k < n; ++k) {
        const uint32_t r = v.regs[0] + k;
        s.slots[off + 4 * k] = r < mach::kNumRegIds ? s.regs[r] : kUndef;
      }
    } else if (fill_like && isSpillLoad(in)) {
      const int64_t off = in.src[0].imm;
      const ptx::Operand& d = in.dst[0];
      const unsigned n = (d.mbits == 64 && mach::isGpr(d.regs[0])) ? 2 : 1;
      uint32_t expect = kNoReg;
      for (const SlotRef& sl : slots_)
        if (sl.def && sl.operand == 10) expect = sl.value;
      for (unsigned k = 0; k < n; ++k) {
        const uint32_t r = d.regs[0] + k;
        const uint32_t tok = s.slot(off + 4 * k);
        if (in.role == ptx::MRole::Fill && expect != kNoReg && !copies_.holds(tok, expect) &&
            s.isDefined(index_.of(expect)) && check)
          error(fmt::format("the fill reads {}, which holds {}, expected {}", slotName(off + 4 * k), tokenName(tok),
                            tokenName(expect)));
        if (r < mach::kNumRegIds && r != mach::kRZ) s.regs[r] = tok;
      }
      loaded = true;
    }
    // Demoted registers: st.shared copies a word to its shared slot
    // (keyed kSharedKey + offset), ld.shared brings it back for the read after.
    if (in.role == ptx::MRole::DemStore && isSpillStore(in)) {
      const uint32_t r = in.src[1].regs[0];
      s.slots[kSharedKey + in.src[0].imm] = r < mach::kNumRegIds ? s.regs[r] : kUndef;
    } else if (in.role == ptx::MRole::DemLoad && isSpillLoad(in)) {
      const uint32_t r = in.dst[0].regs[0];
      if (r < mach::kNumRegIds && r != mach::kRZ) s.regs[r] = s.slot(kSharedKey + in.src[0].imm);
      loaded = true;
    }

    // A register stack (ptx::ExtRegEffect): push renames R16.. to fresh,
    // undefined registers and keeps their values; pop brings them back.
    if (in.op == ptx::Op::Ext && in.nsrc >= 1 && in.src[0].kind == ptx::OperandKind::Imm) {
      const ptx::ExtRegEffect fx = ptx::extOp(in.ext).reg_effect;
      const auto n = static_cast<uint32_t>(in.src[0].imm);
      if (fx == ptx::ExtRegEffect::StackPush) {
        for (uint32_t k = 0; k < n && kStackBase + k < mach::kRZ; ++k) {
          s.stacked.push_back(s.regs[kStackBase + k]);
          s.regs[kStackBase + k] = kUndef;
        }
      } else if (fx == ptx::ExtRegEffect::StackPop) {
        if (n > s.stacked.size()) {
          if (check) error(fmt::format("pops {} registers, {} are pushed", n, s.stacked.size()));
          s.stacked.assign(n, kConflict);
        }
        for (uint32_t k = n; k-- > 0;) {
          if (kStackBase + k < mach::kRZ) s.regs[kStackBase + k] = s.stacked.back();
          s.stacked.pop_back();
        }
      }
    }

    // A call changes every register the ABI lets it change, then defines its results.
    if (in.op == ptx::Op::Call) {
      const ptx::CallInfo* c = in.call < fn_.calls.size() ? &fn_.calls[in.call] : nullptr;
      if (c && c->clobbers_known) {
        for (uint32_t r : c->machine_clobbers)
          if (r < mach::kNumRegIds && r != mach::kRZ) s.regs[r] = kClobbered;
      } else {
        for (uint32_t r = 0; r < mach::kNumRegIds; ++r)
          if (abi_.clobberedByCall(r)) s.regs[r] = kClobbered;
      }
    }

    // A move within one register: it now holds both values.
    if (in.op == ptx::Op::Mov && in.guard.kind != ptx::OperandKind::Reg && in.ndst == 1 && in.nsrc == 1 &&
        in.dst[0].kind == ptx::OperandKind::Reg && in.src[0].kind == ptx::OperandKind::Reg &&
        in.dst[0].regs[0] == in.src[0].regs[0] && in.dst[0].mbits == in.src[0].mbits) {
      uint32_t src_value = kNoReg, dst_value = kNoReg;
      for (const SlotRef& sl : slots_) (sl.def ? dst_value : src_value) = sl.value;
      const SlotRef* d = nullptr;
      for (const SlotRef& sl : slots_)
        if (sl.def) d = &sl;
      if (d && dst_value != kNoReg && d->reg < mach::kRZ) {
        if (reached_) s.define(index_.of(dst_value));
        for (unsigned k = 0; k < coverCount(*d); ++k) {
          const uint32_t r = d->reg + k;
          if (src_value != kNoReg && copies_.holds(s.regs[r], expectAt(src_value, k))) {
            std::vector<uint32_t> m = copies_.members(s.regs[r]);
            m.push_back(expectAt(dst_value, k));
            s.regs[r] = copies_.token(m);
          } else {
            s.regs[r] = expectAt(dst_value, k);
          }
        }
        if (in.op == ptx::Op::Ret) atRet(s);
        return;
      }
    }

    // Defs.
    for (const SlotRef& d : slots_) {
      if (!d.def || d.reg >= mach::kNumRegIds) continue;
      // A fill or restore defines nothing: it brings back what the slot
      // holds, and a value it expects that no path has defined yet is still
      // undefined after it (so the register may be read as that value).
      if (loaded && d.operand == 10) continue;
      if (reached_) s.define(index_.of(d.value));
      for (unsigned k = 0; k < coverCount(d); ++k) {
        const uint32_t r = d.reg + k;
        if (r >= mach::kNumRegIds || r == mach::kRZ) continue;  // RZ drops writes (reported as structural)
        if (r == mach::kSP && in.role == ptx::MRole::StackAdj) continue;  // the frame moves, SP stays SP
        s.regs[r] = d.value == kNoReg ? kUndef : expectAt(d.value, k);
      }
    }

    if (in.op == ptx::Op::Ret) atRet(s);
  }

  // A ret reads the results, and in a called function gives the caller back
  // its callee-saved registers and its stack pointer.
  void atRet(const State& s) {
    if (!reached_) return;
    for (uint32_t r : fn_.machine_rets) {
      if (r >= mach::kNumRegIds) continue;
      if (report_) ++result_.uses_checked;
      if (!copies_.holds(s.regs[r], physId(r)))
        error(fmt::format("{} holds {}, expected the function's result in {}", mach::regName(r), tokenName(s.regs[r], r),
                          mach::regName(r)));
    }
    if (!s.stacked.empty())
      error(fmt::format("returns with {} registers still pushed on the register stack", s.stacked.size()));
    if (fn_.is_entry) return;
    if (!copies_.holds(s.regs[mach::kSP], physId(mach::kSP)))
      error(fmt::format("R1 (the stack pointer) holds {}, expected its value on entry", tokenName(s.regs[mach::kSP], 1)));
    for (uint32_t r = 0; r < mach::kNumGpr; ++r)
      if (abi_.calleeSaved(r) && !copies_.holds(s.regs[r], entryToken(r)))
        error(fmt::format("callee-saved {} holds {}, expected its value on entry (not saved and restored)",
                          mach::regName(r), tokenName(s.regs[r], r)));
  }

  void collectSlots(const ptx::Instr& in, const std::vector<uint32_t>& vals) {
    slots_.clear();
    // forEachSlot only hands out references; nothing is written through them.
    forEachSlot(const_cast<ptx::Instr&>(in), const_cast<ptx::Function&>(fn_), [&](const Slot& sl) {
      const size_t k = slots_.size();
      slots_.push_back({*sl.reg, sl.mbits, sl.def, sl.operand, k < vals.size() ? vals[k] : kNoReg});
    });
    if (report_ && vals.size() != slots_.size())
      error(fmt::format("the slot values list {} slots, the instruction has {}", vals.size(), slots_.size()));
  }

  // Register classes, alignment, the register count, RZ and R1.
  void structural(const ptx::Instr& in) {
    for (const SlotRef& sl : slots_) {
      const uint32_t r = sl.reg;
      if (r >= mach::kNumRegIds) {
        error(fmt::format("register id {} is not a machine register", r));
        continue;
      }
      if (sl.mbits == 1 && !mach::isPred(r))
        error(fmt::format("a predicate is in {}", mach::regName(r)));
      if (sl.mbits > 1 && mach::isPred(r)) error(fmt::format("a {}-bit value is in {}", sl.mbits, mach::regName(r)));
      if (sl.mbits == 64 && mach::isGpr(r) && r % 2 != 0)
        error(fmt::format("the 64-bit pair {}:{} starts at an odd register", mach::regName(r), mach::regName(r + 1)));
      if (mach::isGpr(r) && r != mach::kRZ) {
        const uint32_t last = r + coverCount(sl) - 1;
        if (last >= fn_.machine_regs)
          error(fmt::format("{} is at or above the function's register count {}", mach::regName(last),
                            fn_.machine_regs));
      }
      if (!sl.def) continue;
      for (unsigned k = 0; k < coverCount(sl); ++k) {
        if (r + k == mach::kRZ) error("RZ is written");
        if (r + k == mach::kSP && in.role != ptx::MRole::StackAdj)
          error(fmt::format("R1 (the stack pointer) is written by a {} instruction", ptx::mroleName(in.role)));
      }
    }
    const bool spill_like = in.role == ptx::MRole::Spill || in.role == ptx::MRole::Save;
    const bool fill_like = in.role == ptx::MRole::Fill || in.role == ptx::MRole::Restore;
    if (spill_like && !isSpillStore(in))
      error(fmt::format("a {} that is not `st.local [R1+off], R`", ptx::mroleName(in.role)));
    if (fill_like && !isSpillLoad(in))
      error(fmt::format("a {} that is not `ld.local R, [R1+off]`", ptx::mroleName(in.role)));
    if ((spill_like && isSpillStore(in)) || (fill_like && isSpillLoad(in))) {
      if (in.src[0].regs[0] != mach::kSP)
        error(fmt::format("a {} addressed from {}, not from R1", ptx::mroleName(in.role),
                          in.src[0].regs[0] == kNoReg ? std::string("a symbol") : mach::regName(in.src[0].regs[0])));
    }
  }

  // ---- messages -------------------------------------------------------------

  // `reg`: the register holding the token, when known, to say where it came from at a join.
  std::string tokenName(uint32_t t, uint32_t reg = kNoReg) const {
    if (reg != kNoReg) return tokenName(t) + conflictDetail(reg, t);
    if (t == kClobbered) return "a value clobbered by a call";
    if (t == kUndef) return "no value";
    if (t == kConflict) return "different values on different paths";
    if (copies_.isSet(t)) {
      std::string all;
      for (uint32_t m : copies_.members(t)) all += (all.empty() ? "" : " = ") + tokenName(m);
      return all;
    }
    if (t >= kEntryBase && t < kEntryBase + mach::kNumRegIds) return "the entry value of " + mach::regName(t - kEntryBase);
    if (isPhysId(t) && physOf(t) < mach::kNumRegIds) return mach::regName(physOf(t));
    if (t < names_.size() && !names_[t].empty()) return names_[t];
    return fmt::format("%v{}", t);
  }

  // When `reg` still holds what the block started with and the predecessors
  // left different things there, what each of them left.
  std::string conflictDetail(uint32_t reg, uint32_t token) const {
    if (!report_ || reg >= mach::kNumRegIds || cur_block_ >= in_.size()) return "";
    if (in_[cur_block_].regs[reg] != token) return "";
    std::vector<std::pair<std::string, uint32_t>> from;
    for (uint32_t p : fn_.blocks[cur_block_].preds)
      if (p < out_.size() && out_[p].reached) from.push_back({fmt::format("block {}", p), out_[p].regs[reg]});
    if (cur_block_ == 0) from.push_back({"entry", entryState().regs[reg]});
    bool differ = false;
    for (const auto& f : from) differ |= f.second != from[0].second;
    if (!differ) return "";
    std::string s;
    for (const auto& [where, t] : from)
      s += fmt::format("{}{}: {}", s.empty() ? "" : "; ", where, t == kConflict ? std::string("different values") : tokenName(t));
    return " (" + s + ")";
  }

  static std::string slotName(int64_t off) {
    if (off >= kSharedKey / 2) return fmt::format("shared [RDA+{}]", off - kSharedKey);
    return off < 0 ? fmt::format("[R1-{}]", -off) : fmt::format("[R1+{}]", off);
  }

  std::string instrText(const ptx::Instr& in) {
    try {
      if (!shell_) {
        shell_ = std::make_unique<ptx::Function>();
        shell_->name = fn_.name;
        shell_->is_entry = fn_.is_entry;
        shell_->calls = fn_.calls;
        shell_->regs.resize(mach::kNumRegIds);
        for (uint32_t r = 0; r < mach::kNumRegIds; ++r) shell_->regs[r].name = mach::regName(r);
        shell_->blocks.resize(fn_.blocks.size());
        for (size_t b = 0; b < fn_.blocks.size(); ++b) shell_->blocks[b].label = fn_.blocks[b].label;
      }
      return ptx::printInstr(empty_module_, *shell_, in);
    } catch (const std::exception&) {
      return ptx::opName(in.op);
    }
  }

  void error(const std::string& what) {
    if (!report_) return;
    if (!cur_instr_) {
      result_.errors.push_back(what);
      return;
    }
    const std::string where = cur_instr_->loc.line ? fmt::format("line {}", cur_instr_->loc.line)
                                                   : fmt::format("instruction {}", cur_index_);
    result_.errors.push_back(fmt::format("{} {}, block {} ({}) `{}`: {}", kind(), fn_.name, cur_block_, where,
                                         instrText(*cur_instr_), what));
  }
};

}  // namespace

CheckResult checkAllocation(const ptx::Function& fn, const SlotValues& values, const ptx::mach::Abi& abi,
                            const std::vector<std::string>& names) {
  return Checker(fn, values, abi, names).run();
}

}  // namespace rfsim::backend
