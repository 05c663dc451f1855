#include "func/stepper.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::func {

namespace {

rt::LaunchStats& sized(rt::LaunchStats& stats) {
  // The first stepper of a launch sizes the per-opcode counts; later ones
  // find them sized (a resize would move what earlier steppers point at).
  if (stats.warp_instrs_by_op.size() < static_cast<size_t>(ptx::Op::Count_))
    stats.warp_instrs_by_op.assign(static_cast<size_t>(ptx::Op::Count_), 0);
  return stats;
}

}  // namespace

BlockStepper::BlockStepper(Program& program, const LaunchSetup& setup, rt::LaunchStats& stats, rt::Dim3 ctaid)
    : exec_(program, setup, sized(stats)) {
  exec_.begin(ctaid);
  countDone();
}

BlockStepper::~BlockStepper() {
  if (!flushed_) exec_.finish();
}

void BlockStepper::countDone() {
  uint32_t n = 0;
  for (uint32_t i = 0; i < exec_.numWarps(); ++i) n += exec_.warp(i).state == WarpState::Done;
  done_warps_ = n;
  if (done() && !flushed_) {
    exec_.finish();
    flushed_ = true;
  }
}

WarpStatus BlockStepper::status(uint32_t warp) const {
  switch (exec_.warp(warp).state) {
    case WarpState::Ready: return WarpStatus::Ready;
    case WarpState::Blocked: return WarpStatus::AtBarrier;
    case WarpState::Done: break;
  }
  return WarpStatus::Done;
}

const DInstr* BlockStepper::peek(uint32_t warp) const {
  const Warp& w = exec_.warp(warp);
  if (w.state != WarpState::Ready) return nullptr;
  return &w.frames.back().fn->code[w.stack.back().pc];
}

uint32_t BlockStepper::peekPc(uint32_t warp) const {
  const Warp& w = exec_.warp(warp);
  return w.stack.empty() ? kNoPc : w.stack.back().pc;
}

uint32_t BlockStepper::peekFunc(uint32_t warp) const {
  const Warp& w = exec_.warp(warp);
  return w.frames.empty() ? 0 : w.frames.back().fn->index;
}

uint32_t BlockStepper::activeMask(uint32_t warp) const {
  const Warp& w = exec_.warp(warp);
  return w.stack.empty() ? 0 : w.stack.back().mask;
}

void BlockStepper::step(uint32_t warp, StepInfo& out) {
  const Warp& w = exec_.warp(warp);
  if (w.state != WarpState::Ready) {
    const rt::Dim3 c = exec_.ctaid();
    throw Error(fmt::format("block ({},{},{}): step of warp {}, which is {}", c.x, c.y, c.z, warp,
                            w.state == WarpState::Done ? "done" : "waiting at a barrier"));
  }
  const SimtEntry& e = w.stack.back();
  const DInstr& d = w.frames.back().fn->code[e.pc];
  out.d = &d;
  out.in = d.in;
  out.func = w.frames.back().fn->index;
  out.pc = e.pc;
  out.active = e.mask;
  out.executed = exec_.executedMask(warp, d);
  out.frame_lanes = 0;
  if (d.in->op == ptx::Op::Ext) {
    out.frame_lanes = w.live();
    for (size_t i = w.stack.size(); i-- > 0;)
      if (w.stack[i].call) {
        out.frame_lanes = w.stack[i].mask & ~w.exited;
        break;
      }
  }
  out.is_mem = d.cls == Cls::Ld || d.cls == Cls::St || d.cls == Cls::Atom || d.cls == Cls::Red;
  out.mem.mask = 0;
  out.mem.space = ptx::Space::None;
  if (out.is_mem && out.executed) exec_.describeAccess(warp, d, out.executed, out.mem);
  const uint32_t exited_before = w.exited;
  const size_t depth_before = w.frames.size();
  exec_.issue(warp);
  out.branch = d.cls == Cls::Bra;
  out.divergent = out.branch && out.executed && out.executed != out.active;
  out.call = d.cls == Cls::Call && out.executed;
  out.ret = d.cls == Cls::Ret && out.executed;
  out.exited = w.exited != exited_before;
  out.barrier = w.state == WarpState::Blocked;
  out.simt_depth = static_cast<uint32_t>(w.stack.size());
  const size_t depth_after = w.frames.size();
  const bool entered = out.call && depth_after > depth_before && w.frames.back().call == &d;
  out.callee = entered ? w.frames.back().fn->index : UINT32_MAX;
  out.call_depth = static_cast<uint32_t>(depth_after);
  const size_t grown = depth_before + (entered ? 1 : 0);
  out.frames_released = grown > depth_after ? static_cast<uint32_t>(grown - depth_after) : 0;
  // A step changes other warps' states only by finishing (a barrier may
  // then release) or by releasing a barrier, so Done counts move only here.
  if (w.state == WarpState::Done || out.exited) countDone();
}

std::string BlockStepper::describeWarp(uint32_t warp) const {
  const Warp& w = exec_.warp(warp);
  static const char* const kState[] = {"ready", "at barrier", "done"};
  std::string s = fmt::format("warp {}: {}", warp, kState[static_cast<int>(w.state)]);
  if (w.state == WarpState::Done || w.stack.empty()) return s;
  const SimtEntry& e = w.stack.back();
  const DFunction& f = *w.frames.back().fn;
  const uint32_t line = e.pc < f.code.size() ? f.code[e.pc].in->loc.line : 0;
  s += fmt::format(", {} pc {} (line {}), SIMT top pc {} rpc {} mask {:#010x}, depth {}", f.fn->name, e.pc, line,
                   e.pc, e.rpc == kNoPc ? std::string("exit") : std::to_string(e.rpc), e.mask, w.stack.size());
  if (w.state == WarpState::Blocked) {
    s += fmt::format(", barrier {} (line {}), {} warps arrived", w.bar_id, w.bar_instr ? w.bar_instr->in->loc.line : 0,
                     exec_.barrierArrived(w.bar_id));
    if (exec_.barrierExpected(w.bar_id)) s += fmt::format(" of {} threads expected", exec_.barrierExpected(w.bar_id));
  }
  return s;
}

uint32_t BlockStepper::pcOfLabel(const std::string& label) const {
  const DFunction& k = *exec_.warp(0).frames.front().fn;
  const auto& blocks = k.fn->blocks;
  for (size_t i = 0; i < blocks.size() && i < k.block_pc.size(); ++i)
    if (blocks[i].label == label) return k.block_pc[i];
  throw Error(fmt::format("kernel {} has no label {}", k.fn->name, label));
}

}  // namespace rfsim::func
