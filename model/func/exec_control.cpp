// Branches, calls, returns and exits: the SIMT reconvergence stack (warp.h).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "func/executor.h"

namespace rfsim::func {

namespace {
constexpr size_t kMaxCallDepth = 1u << 16;
}

void BlockExecutor::execBra(Warp& w, const DInstr& d, uint32_t act) {
  SimtEntry& e = w.stack.back();
  const uint32_t mask = e.mask;
  if (act == mask) {
    e.pc = d.target;
  } else if (act == 0) {
    e.pc += 1;
  } else {
    // Divergence: the paths meet again at the immediate post-dominator p.
    const uint32_t p = d.rpc;
    const uint32_t fall = e.pc + 1;
    const uint32_t not_taken = mask & ~act;
    if (e.rpc == p) {
      // This entry already waits for p below it (a loop latch inside the
      // region): replace it rather than stack one entry per iteration.
      w.stack.pop_back();
    } else {
      e.pc = p == kNoPc ? kExitPc : p;
    }
    if (fall != p) w.stack.push_back({fall, p, not_taken, false});
    if (d.target != p) w.stack.push_back({d.target, p, act, false});
  }
  settle(w);
}

void BlockExecutor::settle(Warp& w) {
  for (;;) {
    if (w.stack.empty()) {
      w.state = WarpState::Done;
      ++block_events_;
      checkBarriers();
      return;
    }
    SimtEntry& t = w.stack.back();
    if (t.call) {
      finishCall(w);
      continue;
    }
    if (t.mask == 0 || t.pc == t.rpc) {
      w.stack.pop_back();
      continue;
    }
    if (t.pc == kExitPc)
      throw Error(fmt::format("{}: kernel {}: internal error: warp {} resumed at the virtual exit", prog_.fileName(),
                              setup_.kernel->fn->name, w.id));
    return;
  }
}

void BlockExecutor::finishCall(Warp& w) {
  const uint32_t lanes = w.stack.back().mask;
  w.stack.pop_back();
  const Frame f = w.frames.back();
  const DInstr& d = *f.call;
  const auto& syms = prog_.module().symbols;
  for (size_t i = 0; i < d.ret_off.size() && i < f.fn->ret_off.size(); ++i) {
    const uint32_t n = std::min<uint32_t>(f.fn->ret_size[i], static_cast<uint32_t>(syms[d.call->rets[i]].size));
    for (uint32_t m = lanes; m; m &= m - 1) {
      uint8_t* base = w.lanes(static_cast<uint32_t>(__builtin_ctz(m)));
      std::memcpy(base + f.caller_stack_base + d.ret_off[i], base + f.stack_base + f.fn->ret_off[i], n);
    }
  }
  w.frames.pop_back();
  w.syncCols();
}

void BlockExecutor::callFunction(Warp& w, const DInstr& d, const DFunction& callee, uint32_t lanes) {
  if (callee.builtin != Builtin::None) {
    execBuiltin(w, d, callee.builtin, lanes);
    return;
  }
  if (callee.code.empty()) fail(w, d, __builtin_ctz(lanes), fmt::format("call to '{}' which has no body", callee.fn->name));
  if (machine_) {
    // One register file for every frame and a stack the code manages
    // through R1: a call only records where to come back to.
    if (w.frames.size() >= kMaxCallDepth)
      fail(w, d, __builtin_ctz(lanes), fmt::format("call depth exceeds {} (runaway recursion?)", kMaxCallDepth));
    Frame nf = w.frames.back();
    nf.fn = &callee;
    nf.call = &d;
    w.frames.push_back(nf);
    w.syncCols();
    w.stack.push_back({0, kNoPc, lanes, true});
    w.stack.push_back({0, kNoPc, lanes, false});
    return;
  }
  if (d.arg_off.size() != callee.param_off.size())
    fail(w, d, __builtin_ctz(lanes), fmt::format("call passes {} arguments to '{}' which takes {}", d.arg_off.size(),
                                                  callee.fn->name, callee.param_off.size()));
  if (w.frames.size() >= kMaxCallDepth)
    fail(w, d, __builtin_ctz(lanes), fmt::format("call depth exceeds {} (runaway recursion?)", kMaxCallDepth));
  const Frame& cur = w.frames.back();
  Frame nf;
  nf.fn = &callee;
  nf.reg_base = cur.reg_base + cur.fn->nregs * 32;
  nf.stack_base = cur.stack_top;
  nf.stack_top = cur.stack_top + callee.frame_bytes;
  nf.call = &d;
  nf.caller_stack_base = cur.stack_base;
  if (nf.stack_top > prog_.limits().stack_bytes_per_thread)
    fail(w, d, __builtin_ctz(lanes), fmt::format("local stack overflow: {} bytes needed at call depth {}, the limit is {}",
                                                  nf.stack_top, w.frames.size(), prog_.limits().stack_bytes_per_thread));
  w.growStack(nf.stack_top);
  // Registers start undefined (PTX); the vector only grows, so a call
  // costs no clearing (stale values are deterministic all the same).
  const size_t need = size_t{nf.reg_base} + size_t{callee.nregs} * 32;
  if (w.regs.size() < need) w.regs.resize(need, 0);
  const auto& syms = prog_.module().symbols;
  for (size_t i = 0; i < d.arg_off.size(); ++i) {
    const uint32_t n = std::min<uint32_t>(callee.param_size[i], static_cast<uint32_t>(syms[d.call->args[i]].size));
    for (uint32_t m = lanes; m; m &= m - 1) {
      uint8_t* base = w.lanes(static_cast<uint32_t>(__builtin_ctz(m)));
      std::memcpy(base + nf.stack_base + callee.param_off[i], base + nf.caller_stack_base + d.arg_off[i], n);
    }
  }
  w.frames.push_back(nf);
  w.syncCols();
  w.stack.push_back({0, kNoPc, lanes, true});
  w.stack.push_back({0, kNoPc, lanes, false});
}

void BlockExecutor::execCall(Warp& w, const DInstr& d, uint32_t act) {
  SimtEntry& e = w.stack.back();
  e.pc += 1;  // the caller resumes after the call
  if (act) {
    if (!d.call->indirect) {
      callFunction(w, d, funcs_[d.callee], act);
    } else {
      // Lanes may hold different targets: call one target's lanes at a time,
      // the others waiting at the call (rpc: just after it).
      const uint64_t* t = w.reg(d.call->target_reg);
      std::array<uint64_t, 32> joined;
      if (d.src[0].kind == DKind::RegPair) t = column(w, d.src[0], joined).p;  // machine: a pair
      const uint32_t first = static_cast<uint32_t>(__builtin_ctz(act));
      const uint64_t target = t[first];
      uint32_t group = 0;
      for (uint32_t m = act; m; m &= m - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
        if (t[l] == target) group |= 1u << l;
      }
      const uint64_t idx = (target - kCodeWindow) / 16;
      if (!inWindow(target, kCodeWindow) || (target - kCodeWindow) % 16 || idx >= funcs_.size() ||
          (funcs_[idx].code.empty() && funcs_[idx].builtin == Builtin::None))
        fail(w, d, first, fmt::format("indirect call to {} which is not the address of a function with a body",
                                      hex(target)));
      if (group != act) {
        const uint32_t after = e.pc;
        w.stack.push_back({after - 1, after, act & ~group, false});
      }
      callFunction(w, d, funcs_[idx], group);
    }
  }
  settle(w);
}

void BlockExecutor::execRet(Warp& w, const DInstr& d, uint32_t act) {
  (void)d;
  if (act && w.frames.size() == 1) {
    execExit(w, act);  // ret from the kernel
    return;
  }
  w.stack.back().pc += 1;  // lanes whose guard is false go on
  if (act) {
    for (size_t i = w.stack.size(); i-- > 0 && !w.stack[i].call;) w.stack[i].mask &= ~act;
  }
  settle(w);
}

void BlockExecutor::execExit(Warp& w, uint32_t act) {
  w.exited |= act;
  ++block_events_;
  w.stack.back().pc += 1;
  for (SimtEntry& e : w.stack) e.mask &= ~act;
  settle(w);
  checkBarriers();
}

}  // namespace rfsim::func
