// A launch's thread blocks on several host threads (Program::launch): which
// kernels may run that way, and the run itself.
//
// Blocks of one launch may run in any order and at once on a GPU; a
// program whose result depends on their order or interleaving uses
// atomics, ordered or volatile accesses, or reads the clock. A kernel that
// does none of these, beyond integer reductions whose result it does not
// read (red, or atom with no destination: add, min, max, and, or, xor,
// which commute), computes the same memory in any order. Those kernels run
// on `Limits::threads` host threads, each block whole on one thread, with
// the results of a run on one: the same memory (the reductions as host
// atomics), the same statistics (sums), and, when blocks fail, the error of
// the first failing block in the order one thread runs them (x fastest,
// then y, then z). The rest run on one thread (docs/functional.md,
// "Parallel blocks").
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "func/executor.h"
#include "func/program.h"

namespace rfsim::func {

namespace {

bool commutes(const ptx::Instr& in) {
  using ptx::AtomOp;
  const bool integer = !ptx::isFloat(in.type);
  switch (in.mods.atom) {
    case AtomOp::Add: case AtomOp::Min: case AtomOp::Max: return integer;
    case AtomOp::And: case AtomOp::Or: case AtomOp::Xor: return true;
    default: return false;
  }
}

bool readsClock(const DOperand& o) {
  return o.kind == DKind::SReg &&
         (o.sreg == ptx::SReg::Clock || o.sreg == ptx::SReg::Clock64 || o.sreg == ptx::SReg::GlobalTimer);
}

// Why instruction `d` of `f` makes the result depend on the blocks' order
// (empty: it does not).
std::string orderDependence(const DFunction& f, const DInstr& d) {
  const ptx::Instr& in = *d.in;
  const auto at = [&](const std::string& what) {
    return fmt::format("{} at line {} of {}", what, in.loc.line, f.fn->name);
  };
  const bool shared = in.space == ptx::Space::Shared;
  if ((d.cls == Cls::Atom || d.cls == Cls::Red) && !shared) {
    if (!commutes(in)) return at("an atomic whose result depends on the order of blocks");
    if (d.cls == Cls::Atom && d.dst[0].kind != DKind::None) return at("an atomic whose old value is read");
  }
  if ((d.cls == Cls::Ld || d.cls == Cls::St) && !shared && (in.mods.volatile_ || in.mods.relaxed_or_stronger))
    return at("a volatile or ordered access");
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

void Program::runBlocksConcurrently(const LaunchSetup& setup, rt::LaunchStats& stats, unsigned threads,
                                    const std::function<void(uint64_t)>& progress) {
  const rt::Dim3 g = setup.grid;
  const uint64_t total = g.count();
  std::atomic<uint64_t> next{0}, done{0};
  // The lowest-numbered block that failed so far: blocks after it are not
  // started (one thread would not have run them), blocks before it are.
  std::atomic<uint64_t> first_failed{UINT64_MAX};
  std::mutex mu;
  std::vector<std::pair<uint64_t, std::exception_ptr>> failures;
  std::vector<rt::LaunchStats> part(threads);
  const auto work = [&](unsigned t) {
    rt::LaunchStats& s = part[t];
    s.warp_instrs_by_op.assign(stats.warp_instrs_by_op.size(), 0);
    BlockExecutor exec(*this, setup, s);
    exec.runConcurrently();
    for (;;) {
      const uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= total || i > first_failed.load(std::memory_order_relaxed)) break;
      const rt::Dim3 ctaid{static_cast<uint32_t>(i % g.x), static_cast<uint32_t>(i / g.x % g.y),
                           static_cast<uint32_t>(i / (uint64_t{g.x} * g.y))};
      try {
        exec.run(ctaid);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        failures.emplace_back(i, std::current_exception());
        uint64_t f = first_failed.load();
        while (i < f && !first_failed.compare_exchange_weak(f, i)) {
        }
      }
      const uint64_t n = done.fetch_add(1, std::memory_order_relaxed) + 1;
      if (t == 0 && progress) progress(n);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);  // this thread is one of them (and shows the progress)
  for (std::thread& th : pool) th.join();
  if (!failures.empty()) {
    std::sort(failures.begin(), failures.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::rethrow_exception(failures.front().second);
  }
  for (const rt::LaunchStats& s : part) stats += s;
}

}  // namespace rfsim::func
