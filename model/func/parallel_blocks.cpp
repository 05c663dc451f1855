// A launch's thread blocks on several host threads (Program::launch), with
// the results of a run on one: the same memory, statistics, output and
// errors as when the blocks run one after another in block order (x
// fastest, then y, then z).
//
// Each block runs speculatively on some thread with a BlockLog
// (block_log.h): its global stores and reductions go to the log, and the
// log notes the ranges the block read. Blocks commit strictly in block
// order. Block j, started when the blocks before c_j had committed, may
// have read memory before blocks c_j .. j-1 wrote it; when what it read
// meets what they wrote, or when its speculative run failed or could not be
// logged exactly, it is run again on the committing thread, after all the
// blocks before it committed, writing memory directly (it is then the block
// a run on one thread would run next). Otherwise its log is written to
// memory and its counts added. Reductions applied at commit in block order
// give the bits of one thread, floating-point ones included. A failing
// block's error therefore comes from that run alone, the first failing
// block in block order, and the blocks after it never reach memory.
//
// What the log cannot stand in for keeps a launch on one thread
// (blockOrderDependence): printf (output in block order), malloc and free
// (heap addresses), clock reads (the executor's clock counts the
// instructions of all blocks before), and global atomics whose old value is
// read (they meet every other block's atomic on the same word, so every
// block would run twice).
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "func/executor.h"
#include "func/program.h"

namespace rfsim::func {

namespace {

bool readsClock(const DOperand& o) {
  return o.kind == DKind::SReg &&
         (o.sreg == ptx::SReg::Clock || o.sreg == ptx::SReg::Clock64 || o.sreg == ptx::SReg::GlobalTimer);
}

// Why instruction `d` of `f` keeps a launch on one thread (empty: it does
// not).
std::string orderDependence(const DFunction& f, const DInstr& d) {
  const ptx::Instr& in = *d.in;
  const auto at = [&](const std::string& what) {
    return fmt::format("{} at line {} of {}", what, in.loc.line, f.fn->name);
  };
  if (d.cls == Cls::Atom && in.space != ptx::Space::Shared && d.dst[0].kind != DKind::None)
    return at("a global atomic whose old value is read");
  for (unsigned i = 0; i < d.nsrc; ++i)
    if (readsClock(d.src[i])) return at("a read of the clock");
  return {};
}

}  // namespace

std::string Program::blockOrderDependence(const DFunction& kernel) const {
  // The functions the kernel reaches (every function once an indirect call
  // is among them).
  std::vector<bool> seen(funcs_.size(), false);
  std::vector<uint32_t> todo{kernel.index};
  seen[kernel.index] = true;
  while (!todo.empty()) {
    const DFunction& f = funcs_[todo.back()];
    todo.pop_back();
    if (f.builtin != Builtin::None)
      return fmt::format("it calls {}", f.builtin == Builtin::Vprintf ? "printf" : "malloc or free");
    for (const DInstr& d : f.code) {
      if (std::string why = orderDependence(f, d); !why.empty()) return why;
      if (d.cls != Cls::Call) continue;
      if (d.call && d.call->indirect) {
        for (uint32_t i = 0; i < funcs_.size(); ++i)
          if (!seen[i]) seen[i] = true, todo.push_back(i);
      } else if (d.callee < funcs_.size() && !seen[d.callee]) {
        seen[d.callee] = true;
        todo.push_back(d.callee);
      }
    }
  }
  return {};
}

namespace {

// A block on its way from a thread to its commit.
struct Slot {
  enum class State : uint8_t { Free, Running, Ready } state = State::Free;
  uint64_t block = 0;
  uint64_t start = 0;  // blocks committed when it started
  bool redo = false;   // failed, or not logged exactly: run it again
  BlockLog log;
  rt::LaunchStats stats;
};

// Zero, keeping the per-opcode vector's storage (the executor counts into it).
void clearCounts(rt::LaunchStats& s) {
  std::vector<uint64_t> ops = std::move(s.warp_instrs_by_op);
  std::fill(ops.begin(), ops.end(), 0);
  s = rt::LaunchStats{};
  s.warp_instrs_by_op = std::move(ops);
}

}  // namespace

void Program::runBlocksConcurrently(const LaunchSetup& setup, rt::LaunchStats& stats, unsigned threads,
                                    const std::function<void(uint64_t)>& progress) {
  const rt::Dim3 g = setup.grid;
  const uint64_t total = g.count();
  const auto ctaid = [&](uint64_t i) {
    return rt::Dim3{static_cast<uint32_t>(i % g.x), static_cast<uint32_t>(i / g.x % g.y),
                    static_cast<uint32_t>(i / (uint64_t{g.x} * g.y))};
  };
  // Blocks may run this far ahead of the oldest one not committed.
  const uint64_t window = 4ull * threads;
  std::vector<Slot> slots(window);
  std::mutex mu;
  std::condition_variable moved;
  uint64_t next = 0, committed = 0;
  bool committing = false, stop = false;
  std::exception_ptr failure;
  // Committer only: the write ranges of committed blocks (block history_base
  // first) that blocks still running may have missed.
  std::deque<Ranges> history;
  uint64_t history_base = 0;
  uint64_t reexecuted = 0;
  TranslateCache tc;

  // Commits the ready blocks in order, while this thread holds `committing`
  // (mu held on entry and exit).
  const auto commitReady = [&](std::unique_lock<std::mutex>& lock, BlockExecutor& direct, BlockLog& direct_log) {
    for (;;) {
      Slot& s = slots[committed % window];
      if (stop || s.state != Slot::State::Ready || s.block != committed) break;
      lock.unlock();
      const uint64_t j = s.block;
      bool redo = s.redo;
      for (uint64_t k = s.start; k < j && !redo; ++k) redo = history[k - history_base].meets(s.log.reads());
      if (!redo && stats.warp_instrs + s.stats.warp_instrs > limits_.max_warp_instrs) redo = true;
      Ranges written;
      bool failed = false;
      if (!redo) {
        s.log.apply(memory_, tc);
        stats += s.stats;
        written = s.log.writes();
      } else {
        // Alone: every block before it has committed, none after it writes memory.
        ++reexecuted;
        direct_log.reset(BlockLog::Mode::Direct);
        try {
          direct.run(ctaid(j));
        } catch (...) {
          failure = std::current_exception();
          failed = true;
        }
        direct_log.seal();
        written = direct_log.writes();
      }
      lock.lock();
      if (failed) {
        stop = true;
        moved.notify_all();
        break;
      }
      history.push_back(std::move(written));
      s.state = Slot::State::Free;
      ++committed;
      // The blocks still to commit started after history_base's had committed?
      const Slot& oldest = slots[committed % window];
      const uint64_t keep = oldest.state != Slot::State::Free && oldest.block == committed ? oldest.start : committed;
      while (history_base < keep) history.pop_front(), ++history_base;
      moved.notify_all();
    }
  };

  const auto work = [&](unsigned t) {
    rt::LaunchStats own;
    own.warp_instrs_by_op.assign(stats.warp_instrs_by_op.size(), 0);
    BlockExecutor exec(*this, setup, own);
    exec.runConcurrently();
    BlockExecutor direct(*this, setup, stats);  // counts straight into the launch's (only while committing)
    direct.runConcurrently();
    BlockLog direct_log;
    direct.setLog(&direct_log);
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      moved.wait(lock, [&] { return stop || next >= total || next < committed + window; });
      if (stop || next >= total) break;
      Slot& s = slots[next % window];
      s.state = Slot::State::Running;
      s.block = next++;
      s.start = committed;
      lock.unlock();
      s.log.reset(BlockLog::Mode::Speculative);
      exec.setLog(&s.log);
      s.redo = false;
      try {
        exec.run(ctaid(s.block));
      } catch (...) {
        // An error, or NeedsSerial: the run on its own tells which.
        s.redo = true;
      }
      s.log.seal();
      s.stats = own;
      clearCounts(own);
      exec.discardCounts();  // what a failed run had not yet added
      lock.lock();
      s.state = Slot::State::Ready;
      if (!committing) {
        committing = true;
        commitReady(lock, direct, direct_log);
        committing = false;
        if (t == 0 && progress) {
          const uint64_t n = committed;
          lock.unlock();
          progress(n);
          lock.lock();
        }
      }
    }
    // The last blocks may be ready with no thread left to commit them.
    if (!committing) {
      committing = true;
      commitReady(lock, direct, direct_log);
      committing = false;
    }
    moved.notify_all();
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);  // this thread is one of them (and shows the progress)
  for (std::thread& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  stats.parallel_launches += 1;
  stats.reexecuted_blocks += reexecuted;
}

}  // namespace rfsim::func
