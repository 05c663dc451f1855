#include "common/results_dir.h"

#include <chrono>
#include <ctime>
#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/stop_signals.h"

namespace fs = std::filesystem;

namespace rfsim {

void writeFileAtomic(const fs::path& path, const std::string& contents) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(fmt::format("{}: cannot open for writing", tmp.string()));
    out << contents;
    out.flush();
    if (!out) throw Error(fmt::format("{}: write failed", tmp.string()));
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw Error(fmt::format("{}: cannot rename into place: {}", path.string(), ec.message()));
}

ResultsDir::ResultsDir(fs::path final_dir, bool overwrite)
    : lock_(final_dir), final_(std::move(final_dir)), overwrite_(overwrite) {
  if (fs::exists(final_) && !overwrite_) {
    throw Error(fmt::format("{}: results folder exists; choose another --out or pass --overwrite",
                            final_.string()));
  }
  work_ = final_;
  work_ += ".partial";
  std::error_code ec;
  fs::remove_all(work_, ec);
  fs::create_directories(work_, ec);
  if (ec) throw Error(fmt::format("{}: cannot create folder: {}", work_.string(), ec.message()));
  stop_slot_ = rememberStopFile((fs::absolute(work_) / "INCOMPLETE").string());
}

ResultsDir::~ResultsDir() {
  if (!committed_) abandon("the run stopped before its results were complete");
  forgetStopFile(stop_slot_);
}

void ResultsDir::writeFile(const std::string& name, const std::string& contents) {
  writeFileAtomic(work_ / name, contents);
  addFile(name);
}

void ResultsDir::addFile(const std::string& name) {
  for (const auto& f : files_)
    if (f == name) return;
  files_.push_back(name);
}

void ResultsDir::commit() {
  nlohmann::json manifest;
  manifest["status"] = "complete";
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  manifest["written"] = stamp;
  for (const auto& f : files_) {
    std::error_code ec;
    auto size = fs::file_size(work_ / f, ec);
    if (ec) throw Error(fmt::format("{}: listed result file is missing", (work_ / f).string()));
    manifest["files"].push_back({{"name", f}, {"bytes", size}});
  }
  writeFileAtomic(work_ / "manifest.json", manifest.dump(2) + "\n");

  std::error_code ec;
  fs::path old;
  if (fs::exists(final_)) {
    old = final_;
    old += ".old";
    fs::remove_all(old, ec);
    fs::rename(final_, old, ec);
    if (ec) throw Error(fmt::format("{}: cannot move the previous results aside: {}", final_.string(), ec.message()));
  }
  fs::rename(work_, final_, ec);
  if (ec) throw Error(fmt::format("{}: cannot move results into place: {}", final_.string(), ec.message()));
  if (!old.empty()) fs::remove_all(old, ec);
  committed_ = true;
  forgetStopFile(stop_slot_);
  stop_slot_ = -1;
}

void ResultsDir::abandon(const std::string& reason) noexcept {
  if (committed_ || abandoned_) return;
  abandoned_ = true;
  try {
    std::ofstream out(work_ / "INCOMPLETE");
    out << reason << "\n";
  } catch (...) {
  }
}

}  // namespace rfsim
