#include "common/folder_lock.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/error.h"

namespace fs = std::filesystem;

namespace rfsim {

namespace {

// The holder's process id as it wrote it; it may not have written it yet.
std::string holderOf(int fd) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    char buf[32] = {};
    const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    std::string pid(buf, n > 0 ? size_t(n) : 0);
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    if (!pid.empty()) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "unknown";
}

}  // namespace

FolderLock::FolderLock(const fs::path& folder) {
  file_ = folder.has_filename() ? folder : folder.parent_path();  // "dir/" is dir
  file_ += ".lock";
  std::error_code ec;
  if (file_.has_parent_path()) fs::create_directories(file_.parent_path(), ec);
  // The holder removes the file when it lets go: a file locked after that is
  // no longer the one at the path, so take the lock again on the new one.
  for (;;) {
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error(fmt::format("{}: cannot create the lock file of {}: {}", file_.string(), folder.string(),
                              std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string pid = err == EWOULDBLOCK ? holderOf(fd_) : "";
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK)
        throw Error(fmt::format("{}: in use by process {} (it holds {}); wait for it to finish or choose another --out",
                                folder.string(), pid, file_.string()));
      throw Error(fmt::format("{}: cannot lock: {}", file_.string(), std::strerror(err)));
    }
    struct stat held {}, now {};
    if (::fstat(fd_, &held) == 0 && ::stat(file_.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev)
      break;
    ::close(fd_);
    fd_ = -1;
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
    // The lock holds without the id; a second writer then names it "unknown".
  }
}

FolderLock::~FolderLock() {
  if (fd_ < 0) return;
  ::unlink(file_.c_str());  // while still held: no one can lock the old file and believe it current
  ::close(fd_);
}

}  // namespace rfsim
