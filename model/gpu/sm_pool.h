// The host threads that step the SMs of a quantum side by side
// (sim.parallel_sms with sim.threads > 1; gpu_top.h). The caller is one of
// them: run() hands out the jobs one at a time to whichever thread is free
// and returns when all are done. Which thread runs which SM changes from
// run to run; the SMs of a quantum do not interact, so the results do not.
//
// Runs follow each other closely (two per quantum: the SMs' steps, then the
// phase's per-SM work), so a thread that finds no run spins a while before
// it sleeps, and so does the caller waiting for the others to finish: a
// sleeping thread's wake-up costs microseconds per run. How long each
// spins adapts to how its waits went (sm_pool.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rfsim::gpu {

class SmPool {
 public:
  // `threads` in all, the caller included (at least 1).
  explicit SmPool(uint32_t threads);
  ~SmPool();
  SmPool(const SmPool&) = delete;
  SmPool& operator=(const SmPool&) = delete;

  uint32_t threads() const { return static_cast<uint32_t>(workers_.size()) + 1; }
  // job(0) .. job(n - 1), each once, on the pool's threads. `job` must not
  // throw (a slot keeps its SM's exception, SmSlot::failed).
  void run(uint32_t n, const std::function<void(uint32_t)>& job);

 private:
  void work();
  void drain();

  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable start_, done_;
  std::atomic<uint64_t> generation_{0};  // bumped by each run()
  std::atomic<bool> stop_{false};
  const std::function<void(uint32_t)>* job_ = nullptr;  // published by generation_
  uint32_t n_ = 0;
  std::atomic<uint32_t> next_{0};      // the next job to hand out
  std::atomic<uint32_t> finished_{0};  // workers done with this run
  std::chrono::nanoseconds spin_{std::chrono::microseconds(200)};  // the caller's spin (sm_pool.cpp)
};

}  // namespace rfsim::gpu
