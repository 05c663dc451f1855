#include "func/executor.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::func {

static_assert(static_cast<size_t>(ptx::MRole::DemLoad) + 1 == rt::kNumMRoles, "rt::kNumMRoles counts ptx::MRole");

BlockExecutor::BlockExecutor(Program& program, const LaunchSetup& setup, rt::LaunchStats& stats)
    : prog_(program),
      setup_(setup),
      stats_(stats),
      mem_(program.memory()),
      dev_writes_(&mem_.writeCounter()),
      funcs_(program.functions()),
      by_op_(stats.warp_instrs_by_op.data()),
      machine_(program.module().machine) {
  nthreads_ = static_cast<uint32_t>(setup.block.count());
  nwarps_ = (nthreads_ + 31) / 32;
  warps_.resize(nwarps_);
  // Thread ids: the same in every block of the launch.
  const rt::Dim3 b = setup.block;
  for (uint32_t wi = 0; wi < nwarps_; ++wi) {
    Warp& w = warps_[wi];
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t t = wi * 32 + l;
      w.tid_x[l] = t % b.x;
      w.tid_y[l] = (t / b.x) % b.y;
      w.tid_z[l] = t / (b.x * b.y);
    }
  }
}

void BlockExecutor::resetBlock(rt::Dim3 ctaid) {
  ctaid_ = ctaid;
  const DFunction& k = *setup_.kernel;
  const uint32_t base = prog_.moduleLocalBytes();
  for (uint32_t wi = 0; wi < nwarps_; ++wi) {
    Warp& w = warps_[wi];
    w.id = wi;
    const uint32_t first = wi * 32;
    const uint32_t n = std::min<uint32_t>(32, nthreads_ - first);
    w.valid = n == 32 ? ~0u : (1u << n) - 1;
    w.exited = 0;
    w.carry = 0;
    w.stack.clear();
    w.stack.push_back({0, kNoPc, w.valid, false});
    w.frames.clear();
    Frame f;
    f.fn = &k;
    f.reg_base = 0;
    f.stack_base = base;
    f.stack_top = base + k.frame_bytes;
    if (machine_) f.stack_base = f.stack_top = prog_.limits().stack_bytes_per_thread;
    w.frames.push_back(f);
    // Registers and local memory are undefined at thread start (PTX): here
    // they start at zero in every block (the stack at its first access), so that no block sees what another
    // left, whichever executor ran it before (parallel_blocks.cpp).
    const size_t nregs = size_t{k.nregs} * 32;
    if (w.regs.size() < nregs) w.regs.resize(nregs, 0);
    std::fill(w.regs.begin(), w.regs.end(), 0);
    w.syncCols();
    w.local_stale = true;
    if (machine_) {
      // One register file for every frame; R1, the stack pointer, starts at
      // the top of the thread's stack, which grows down on demand.
      std::fill_n(w.reg(ptx::mach::kSP), 32, uint64_t{f.stack_top});
      w.growStackDown(f.stack_top - std::min<uint32_t>(f.stack_top, 256), f.stack_top);
    } else {
      w.growStack(f.stack_top);
    }
    w.state = WarpState::Ready;
    w.bar_instr = nullptr;
    w.instrs = 0;
  }
  last_moves_ = moves_;
  moved_at_ = 0;
  armProofs(false);
  epoch_seen_ = UINT64_MAX;
  epoch_at_ = 0;
  shared_.assign(setup_.shared_window, 0);
  for (Barrier& bar : bars_) bar.reset();
  bars_busy_ = 0;
}

void BlockExecutor::run(rt::Dim3 ctaid) {
  resetBlock(ctaid);
  const uint64_t quantum = prog_.limits().warp_quantum;
  for (;;) {
    bool ran = false, left = false;
    for (Warp& w : warps_) {
      if (w.state == WarpState::Done) continue;
      left = true;
      if (w.state == WarpState::Blocked) continue;
      ran = true;
      runWarp(w, quantum);
    }
    if (!left) break;
    if (!ran) deadlock();
    checkRunaway();
  }
  finish();
}

void BlockExecutor::checkRunaway() {
  const Limits& lim = prog_.limits();
  std::string why;
  // The livelock proof (livelock.cpp), armed once the epoch has been quiet
  // for Limits::livelock_proof_warp_instrs. The block runs alone, so a
  // block whose warps all cycle never ends.
  const uint64_t epoch = *dev_writes_ + block_events_;
  if (epoch != epoch_seen_) {
    epoch_seen_ = epoch;
    epoch_at_ = warp_instrs_;
    if (armed_) armProofs(false);
  } else if (!armed_ && warp_instrs_ - epoch_at_ >= lim.livelock_proof_warp_instrs) {
    armProofs(true);
  }
  if (allCycling()) {
    why = fmt::format("livelock: each live warp is proven to repeat the same state forever (each came back to a "
                      "state it had, with no write to memory other threads can see, no barrier and no exit in "
                      "between; looked for after {} warp instructions without one, pipeline.livelock_proof_cycles)",
                      lim.livelock_proof_warp_instrs);
  } else if (moves_ != last_moves_) {
    last_moves_ = moves_;
    moved_at_ = warp_instrs_;
  } else if (warp_instrs_ - moved_at_ > lim.livelock_warp_instrs) {
    why = fmt::format("livelock: its warps issued {} warp instructions since the block last stored, updated memory "
                      "atomically, arrived at a barrier or exited (pipeline.livelock_cycles {})",
                      warp_instrs_ - moved_at_, lim.livelock_warp_instrs);
  }
  const uint64_t launch = stats_.warp_instrs + warp_instrs_;
  if (why.empty() && launch <= lim.max_warp_instrs) return;
  if (why.empty())
    why = fmt::format("the launch reached sim.max_instructions ({} warp instructions; raise it with "
                      "--max-instructions if the kernel is meant to run that long)",
                      lim.max_warp_instrs);
  std::string warps;
  for (const Warp& w : warps_) {
    if (w.state == WarpState::Done || w.stack.empty()) continue;
    const SimtEntry& e = w.stack.back();
    const DFunction& f = *w.frames.back().fn;
    warps += fmt::format("\n  warp {}: {} pc {} (line {}){}", w.id, f.fn->name, e.pc,
                         e.pc < f.code.size() ? f.code[e.pc].in->loc.line : 0,
                         w.state == WarpState::Blocked ? ", at a barrier" : "");
  }
  if (warps.empty()) warps = " none (the block's warps have all exited)";
  throw Error(fmt::format("{}: kernel {} block ({},{},{}): stopped as a runaway kernel after {} warp instructions of "
                          "the launch: {}; its live warps:{}",
                          prog_.fileName(), setup_.kernel->fn->name, ctaid_.x, ctaid_.y, ctaid_.z, launch, why,
                          warps));
}

void BlockExecutor::finish() {
  stats_.warp_instrs += warp_instrs_;
  stats_.thread_instrs += thread_instrs_;
  // Code: everything the back end did not add.
  uint64_t role_w = 0, role_t = 0;
  for (size_t i = 1; i < rt::kNumMRoles; ++i) {
    stats_.warp_instrs_by_role[i] += role_warp_[i];
    stats_.thread_instrs_by_role[i] += role_thread_[i];
    role_w += role_warp_[i];
    role_t += role_thread_[i];
  }
  stats_.warp_instrs_by_role[0] += warp_instrs_ - role_w;
  stats_.thread_instrs_by_role[0] += thread_instrs_ - role_t;
  role_warp_.fill(0);
  role_thread_.fill(0);
  warp_instrs_ = thread_instrs_ = 0;
}

uint32_t BlockExecutor::guardMask(Warp& w, const DInstr& d) {
  const uint64_t* p = w.reg(d.guard_reg);
  uint32_t m = 0;
#if defined(__SSE2__)
  // Bit 0 of two lanes at a time into the sign bits, collected by movmskpd.
  for (uint32_t l = 0; l < 32; l += 2) {
    const __m128i v = _mm_slli_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + l)), 63);
    m |= static_cast<uint32_t>(_mm_movemask_pd(_mm_castsi128_pd(v))) << l;
  }
#else
  for (uint32_t l = 0; l < 32; ++l) m |= static_cast<uint32_t>(p[l] & 1) << l;
#endif
  return d.guard_neg ? ~m : m;
}

// One warp instruction: the only place instructions are dispatched, inlined
// into both run()'s loop (runWarp) and a stepper's issue().
[[gnu::always_inline]] inline void BlockExecutor::stepWarp(Warp& w) {
  {
    SimtEntry& e = w.stack.back();
    const DInstr& d = w.frames.back().fn->code[e.pc];
    // The next instruction's header and first operands (a DInstr spans
    // several cache lines; the code of a loop body seldom stays in L1).
    {
      const char* next = reinterpret_cast<const char*>(&d + 1);
      __builtin_prefetch(next);
      __builtin_prefetch(next + 64);
      __builtin_prefetch(next + 128);
      __builtin_prefetch(next + 192);
    }
    const uint32_t mask = e.mask;
    const uint32_t act = d.has_guard ? mask & guardMask(w, d) : mask;
    ++by_op_[static_cast<size_t>(d.op)];
    ++warp_instrs_;
    thread_instrs_ += popc32(mask);
    if (d.role) {
      ++role_warp_[d.role];
      role_thread_[d.role] += popc32(mask);
    }
    ++clock_;
    switch (d.cls) {
      case Cls::Lane:
        if (act) execLane(w, d, act);
        break;
      case Cls::MovVec:
        if (act) execMovVec(w, d, act);
        break;
      case Cls::Ld:
        if (act) {
          if (sink_) [[unlikely]] tellSink(w, d, act);
          execLd(w, d, act);
        }
        break;
      case Cls::St:
        if (act) {
          if (sink_) [[unlikely]] tellSink(w, d, act);
          execSt(w, d, act);
          if (d.in->space != ptx::Space::Local) ++*dev_writes_;
        }
        ++moves_;
        break;
      case Cls::Atom: case Cls::Red:
        if (act) {
          if (sink_) [[unlikely]] tellSink(w, d, act);
          execAtom(w, d, act);
          ++*dev_writes_;
        }
        ++moves_;
        break;
      case Cls::Cvta:
        if (act) execCvta(w, d, act);
        break;
      case Cls::Shfl:
        if (act) execShfl(w, d, act);
        break;
      case Cls::Vote:
        if (act) execVote(w, d, act);
        break;
      case Cls::Activemask:
        for (uint32_t m = act; m; m &= m - 1) write(w, d.dst[0], __builtin_ctz(m), act);
        break;
      case Cls::Nop:
        break;
      case Cls::Trap:
        if (act) fail(w, d, __builtin_ctz(act), "trap");
        break;
      case Cls::Brkpt:
        if (act) fail(w, d, __builtin_ctz(act), "brkpt (breakpoint) reached");
        break;
      case Cls::Bra: {
        const uint32_t at = e.pc;
        execBra(w, d, act);
        if (armed_) [[unlikely]]
          if (!w.stack.empty() && w.stack.back().pc <= at) sampleCycle(w);
        return;
      }
      case Cls::Call:
        execCall(w, d, act);
        return;
      case Cls::Ret:
        ++moves_;
        execRet(w, d, act);
        return;
      case Cls::Exit:
        if (!act) break;
        ++moves_;
        execExit(w, act);
        return;
      case Cls::Bar:
        ++moves_;
        execBar(w, d, act);
        return;
    }
    // Data and memory instructions leave the SIMT stack alone.
    if (++e.pc == e.rpc) settle(w);
  }
}

void BlockExecutor::runWarp(Warp& w, uint64_t budget) {
  while (budget-- && w.state == WarpState::Ready) stepWarp(w);
}

void BlockExecutor::issue(uint32_t warp) { stepWarp(warps_[warp]); }

void BlockExecutor::fail(const Warp& w, const DInstr& d, int lane, const std::string& msg) const {
  const ptx::Function& k = *setup_.kernel->fn;
  std::string where = fmt::format("{}:{}: kernel {} block ({},{},{})", prog_.fileName(), d.in->loc.line, k.name,
                                  ctaid_.x, ctaid_.y, ctaid_.z);
  if (lane >= 0)
    where += fmt::format(" thread ({},{},{})", w.tid_x[lane], w.tid_y[lane], w.tid_z[lane]);
  const ptx::Function& f = *w.frames.back().fn->fn;
  if (&f != &k) where += fmt::format(" in {}", f.name);
  throw Error(where + ": " + msg);
}

void BlockExecutor::deadlock() const {
  std::string detail;
  const Warp* first = nullptr;
  for (const Warp& w : warps_) {
    if (w.state != WarpState::Blocked) continue;
    if (!first) first = &w;
    const Barrier& b = bars_[w.bar_id];
    detail += fmt::format("; warp {} waits at barrier {} (line {})", w.id, w.bar_id,
                          w.bar_instr ? w.bar_instr->in->loc.line : 0);
    if (b.expected_threads)
      detail += fmt::format(" expecting {} threads, {} arrived", b.expected_threads, b.arrived_threads);
  }
  uint32_t live = 0, blocked = 0;
  for (const Warp& w : warps_) {
    live += w.state != WarpState::Done;
    blocked += w.state == WarpState::Blocked;
  }
  const ptx::Function& k = *setup_.kernel->fn;
  throw Error(fmt::format("{}:{}: kernel {} block ({},{},{}): deadlock: {} of {} live warps wait at a barrier that "
                          "can never complete ({} warps have exited){}",
                          prog_.fileName(), first && first->bar_instr ? first->bar_instr->in->loc.line : 0, k.name,
                          ctaid_.x, ctaid_.y, ctaid_.z, blocked, live, nwarps_ - live, detail));
}

void BlockExecutor::setStartPc(uint32_t warp, uint32_t pc) {
  if (warp >= nwarps_) throw Error(fmt::format("setStartPc: warp {} of a block of {} warps", warp, nwarps_));
  Warp& w = warps_[warp];
  const DFunction& k = *setup_.kernel;
  if (w.instrs != 0 || w.stack.size() != 1 || w.frames.size() != 1)
    throw Error(fmt::format("setStartPc: warp {} of kernel {} has already issued", warp, k.fn->name));
  if (pc >= k.code.size())
    throw Error(fmt::format("setStartPc: pc {} is outside kernel {} ({} instructions)", pc, k.fn->name, k.code.size()));
  w.stack.back().pc = pc;
}

}  // namespace rfsim::func
