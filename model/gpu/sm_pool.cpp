#include "gpu/sm_pool.h"

#include <algorithm>
#include <chrono>

namespace rfsim::gpu {

namespace {

// How long a thread spins before it sleeps on a condition variable, for
// the next run (a worker) or for the last worker (the caller). Each thread
// adapts its own: a wait that ends while spinning doubles it, up to kMaxSpin
// (longer than a phase usually takes); one that outlasts it halves it, down
// to kMinSpin. On a host with a core for each thread the waits end while
// spinning and no wake-up is paid; on a host whose cores other work holds,
// the thread waited for is often not running, the waits outlast the spin
// and it shrinks to a brief one, so the pool takes no core it cannot use.
// (With std::this_thread::yield() in the loop instead, a spinning thread gave
// its core to other processes for a whole time slice each time: 22 s
// instead of 0.3 for bfs on 2 threads of a loaded 2-core host.)
constexpr std::chrono::nanoseconds kMaxSpin = std::chrono::microseconds(200);
constexpr std::chrono::nanoseconds kMinSpin = std::chrono::microseconds(2);

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

template <typename Done>
bool spinUntil(Done done, std::chrono::nanoseconds& limit) {
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t i = 0;; ++i) {
    if (done()) {
      limit = std::min(kMaxSpin, limit * 2);
      return true;
    }
    if ((i & 63) == 63 && std::chrono::steady_clock::now() - start > limit) {
      limit = std::max(kMinSpin, limit / 2);
      return false;
    }
    cpuRelax();
  }
}

}  // namespace

SmPool::SmPool(uint32_t threads) {
  for (uint32_t i = 1; i < std::max(1u, threads); ++i) workers_.emplace_back([this] { work(); });
}

SmPool::~SmPool() {
  {
    std::lock_guard<std::mutex> l(m_);
    stop_.store(true);
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void SmPool::drain() {
  for (uint32_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n_;) (*job_)(i);
}

void SmPool::work() {
  uint64_t seen = 0;
  std::chrono::nanoseconds spin = kMaxSpin;
  for (;;) {
    const auto ready = [&] { return stop_.load() || generation_.load(std::memory_order_acquire) != seen; };
    if (!spinUntil(ready, spin)) {
      std::unique_lock<std::mutex> l(m_);
      start_.wait(l, ready);
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    drain();
    if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == workers_.size()) {
      std::lock_guard<std::mutex> l(m_);  // the caller checks under the lock before it sleeps
      done_.notify_one();
    }
  }
}

void SmPool::run(uint32_t n, const std::function<void(uint32_t)>& job) {
  if (workers_.empty() || n < 2) {
    for (uint32_t i = 0; i < n; ++i) job(i);
    return;
  }
  // Every worker is done with the last run (it counted itself finished),
  // so none reads these while they change.
  job_ = &job;
  n_ = n;
  next_.store(0, std::memory_order_relaxed);
  finished_.store(0, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> l(m_);  // a worker going to sleep checks under the lock
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  drain();
  // Every worker takes part in every run, so none is left behind to find
  // the next run's jobs half set up.
  const auto all = [&] { return finished_.load(std::memory_order_acquire) == workers_.size(); };
  if (!spinUntil(all, spin_)) {
    std::unique_lock<std::mutex> l(m_);
    done_.wait(l, all);
  }
  job_ = nullptr;
}

}  // namespace rfsim::gpu
