#include "common/stop_signals.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace rfsim {
namespace {

constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;

struct StopFile {
  std::atomic<bool> used{false};
  char path[kPathMax] = {};
};
StopFile g_files[kSlots];
bool g_exit_process = true;

void writeAll(int fd, const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void onStop(int sig) {
  const char* reason = sig == SIGINT ? "interrupted by SIGINT (Ctrl-C) before the results were complete\n"
                                     : "stopped by SIGTERM before the results were complete\n";
  bool any = false;
  for (StopFile& f : g_files) {
    if (!f.used.load()) continue;
    const int fd = ::open(f.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) continue;
    writeAll(fd, reason);
    ::close(fd);
    any = true;
  }
  if (g_exit_process) {
    writeAll(2, sig == SIGINT ? "\nrfsim: interrupted (SIGINT)" : "\nrfsim: stopped (SIGTERM)");
    writeAll(2, any ? "; the results folder is left .partial with INCOMPLETE\n" : "\n");
    ::_exit(128 + sig);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install(int sig) {
  struct sigaction old {};
  if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) return;  // someone else's, or ignored
  struct sigaction sa {};
  sa.sa_handler = onStop;
  sigemptyset(&sa.sa_mask);
  ::sigaction(sig, &sa, nullptr);
}

}  // namespace

void installStopHandlers(bool exit_process) {
  g_exit_process = exit_process;
  install(SIGINT);
  install(SIGTERM);
}

int rememberStopFile(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    StopFile& f = g_files[i];
    if (f.used.load()) continue;
    std::memcpy(f.path, path.c_str(), path.size() + 1);
    f.used.store(true);
    return i;
  }
  return -1;
}

void forgetStopFile(int slot) {
  if (slot >= 0 && slot < kSlots) g_files[slot].used.store(false);
}

}  // namespace rfsim
