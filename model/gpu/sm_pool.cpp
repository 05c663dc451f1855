#include "gpu/sm_pool.h"

#include <algorithm>

namespace rfsim::gpu {

SmPool::SmPool(uint32_t threads) {
  for (uint32_t i = 1; i < std::max(1u, threads); ++i) workers_.emplace_back([this] { work(); });
}

SmPool::~SmPool() {
  {
    std::lock_guard<std::mutex> l(m_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void SmPool::drain() {
  for (uint32_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n_;) (*job_)(i);
}

void SmPool::work() {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> l(m_);
      start_.wait(l, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    drain();
    {
      std::lock_guard<std::mutex> l(m_);
      ++finished_;
    }
    done_.notify_one();
  }
}

void SmPool::run(uint32_t n, const std::function<void(uint32_t)>& job) {
  if (workers_.empty() || n < 2) {
    for (uint32_t i = 0; i < n; ++i) job(i);
    return;
  }
  {
    std::lock_guard<std::mutex> l(m_);
    job_ = &job;
    n_ = n;
    next_.store(0, std::memory_order_relaxed);
    finished_ = 0;
    ++generation_;
  }
  start_.notify_all();
  drain();
  // Every worker takes part in every run, so none is left behind to find
  // the next run's jobs half set up.
  std::unique_lock<std::mutex> l(m_);
  done_.wait(l, [&] { return finished_ == workers_.size(); });
  job_ = nullptr;
}

}  // namespace rfsim::gpu
