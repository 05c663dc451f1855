#include "common/progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace rfsim {

std::chrono::milliseconds ProgressLine::first_delay_{1000};

ProgressLine::ProgressLine(bool quiet) : on_(!quiet && ::isatty(2)), first_after_(first_delay_) { begin(); }

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::begin() {
  start_ = last_ = std::chrono::steady_clock::now();
  polls_ = 0;
  fired_ = false;
}

double ProgressLine::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool ProgressLine::dueNow() {
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < first_after_ || (fired_ && now - last_ < std::chrono::milliseconds(500))) return false;
  last_ = now;
  fired_ = true;
  return true;
}

void ProgressLine::show(const std::string& text) {
  if (!on_) return;
  // \r and "erase to the end of the line": the line is rewritten in place.
  std::fprintf(stderr, "\r%s\033[K", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  stopTicker();
  if (!on_ || !shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

void ProgressLine::ticking(const std::string& text) {
  if (!on_) return;
  stopTicker();
  begin();
  stop_ = false;
  tick_text_ = text;
  ticker_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; }))
      show(fmt::format("{} ({:.0f} s)", tick_text_, elapsed()));
  });
}

void ProgressLine::stopTicker() {
  if (!ticker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  ticker_.join();
}

std::string ProgressLine::human(double v) {
  if (v >= 1e9) return fmt::format("{:.2f}G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

}  // namespace rfsim
