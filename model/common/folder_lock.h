// One writer per results folder.
//
// A FolderLock holds an exclusive flock(2) on "<folder>.lock", beside the
// folder, for its lifetime, and writes its process id into the file. A second
// writer of the same folder (rfsim run, exec, cost, demo, or rfsim compare,
// which takes the same lock in Python) stops at once with an Error naming
// the holder's process id. The operating system releases the lock when the
// process ends however it ends, so a killed writer leaves no stale lock; the
// file itself is removed on a normal release.
#pragma once

#include <filesystem>

namespace rfsim {

class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& folder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

}  // namespace rfsim
