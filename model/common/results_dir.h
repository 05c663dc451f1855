// A results folder that is either whole or visibly not.
//
// Files are written into "<final>.partial" and the folder is renamed to its
// final name only by commit(), after a manifest.json listing every file with
// its size has been written. A run that fails leaves "<final>.partial" with an
// INCOMPLETE file naming the error, never a folder with a manifest. An existing
// final folder is never touched unless `overwrite` is set, and then it is
// replaced only once the new one is complete. A run stopped by SIGINT or
// SIGTERM leaves INCOMPLETE naming the signal (stop_signals.h). One process at
// a time writes it: a second one stops at once (FolderLock).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/folder_lock.h"

namespace rfsim {

class ResultsDir {
 public:
  ResultsDir(std::filesystem::path final_dir, bool overwrite);
  ~ResultsDir();
  ResultsDir(const ResultsDir&) = delete;
  ResultsDir& operator=(const ResultsDir&) = delete;

  // Where files are written until commit().
  const std::filesystem::path& workDir() const { return work_; }
  const std::filesystem::path& finalDir() const { return final_; }
  std::filesystem::path path(const std::string& name) const { return work_ / name; }

  // Writes a whole file (via a temporary and rename) and records it.
  void writeFile(const std::string& name, const std::string& contents);
  // Records a file some other writer (a tracer) created under workDir().
  void addFile(const std::string& name);

  // Writes manifest.json and moves the folder to its final name.
  void commit();
  // Marks the folder incomplete with the reason; called on failure. The
  // first reason stays (the destructor's generic one does not replace it).
  void abandon(const std::string& reason) noexcept;
  bool committed() const { return committed_; }

 private:
  FolderLock lock_;  // first: nothing is touched before it is held
  std::filesystem::path final_;
  std::filesystem::path work_;
  bool overwrite_;
  bool committed_ = false;
  bool abandoned_ = false;  // INCOMPLETE holds a reason already
  int stop_slot_ = -1;      // SIGINT/SIGTERM write INCOMPLETE (stop_signals.h)
  std::vector<std::string> files_;
};

// Writes a file atomically: a temporary beside it, then rename.
void writeFileAtomic(const std::filesystem::path& path, const std::string& contents);

}  // namespace rfsim
