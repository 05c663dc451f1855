// A status line on stderr for commands that can run longer than a few
// seconds (rfsim run, exec, cost): shown only on a terminal (isatty on
// stderr) and when the command is not quiet, first after a second, then
// rewritten in place at most twice a second, and cleared when done, so
// that nothing of it ends up in a log or a pipe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace rfsim {

class ProgressLine {
 public:
  // On when `!quiet` and stderr is a terminal.
  explicit ProgressLine(bool quiet);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool on() const { return on_; }
  // Starts timing a new task (a launch, a synthesis step): `due()` is
  // false for its first second.
  void begin();
  // Seconds since begin().
  double elapsed() const;
  // True about twice a second once the task has run for a second; reads
  // the clock only on every (mask + 1)th call (a power of two; hot loops).
  bool due(uint32_t mask = 1023) {
    if (!on_ || (++polls_ & mask) != 0) return false;
    return dueNow();
  }
  // Rewrites the line.
  void show(const std::string& text);
  // Erases the line (before other output, and at the end of a task).
  void clear();
  // A task that blocks (an external tool): `text` is shown with its running
  // seconds appended, refreshed by a thread of its own until the next
  // ticking() or clear().
  void ticking(const std::string& text);

  // How long a task runs before its line first shows, for the lines made
  // after this call (a second unless set; the CUDA runtime library takes it
  // from RFSIM_PROGRESS_AFTER_MS, which its tests set to 0).
  static void setFirstDelay(std::chrono::milliseconds d) { first_delay_ = d; }

  // "1.23M"-style numbers for the line.
  static std::string human(double v);

 private:
  bool dueNow();
  void stopTicker();

  bool on_ = false;
  uint32_t polls_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
  bool shown_ = false;
  static std::chrono::milliseconds first_delay_;
  std::chrono::milliseconds first_after_;
  bool fired_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread ticker_;
  bool stop_ = false;
  std::string tick_text_;
};

}  // namespace rfsim
