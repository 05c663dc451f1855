#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "common/error.h"
#include "common/folder_lock.h"
#include "common/results_dir.h"

namespace fs = std::filesystem;
using namespace rfsim;

namespace {
fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("rfsim-test-lock-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::remove_all(fs::path(p.string() + ".partial"));
  fs::remove(fs::path(p.string() + ".lock"));
  return p;
}
}  // namespace

// flock(2) locks belong to an open file: a second lock in the same process
// conflicts like one in another process.
TEST_CASE("a held folder stops a second writer at once, naming the holder", "[common][lock]") {
  const fs::path out = scratch("held");
  {
    ResultsDir first(out, false);
    first.writeFile("a.txt", "x\n");
    CHECK(fs::exists(out.string() + ".lock"));
    try {
      ResultsDir second(out, true);
      FAIL("a second writer of the same folder was let in");
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find(out.string() + ": in use by process " + std::to_string(::getpid())) != std::string::npos);
    }
    // The second writer touched nothing: the first one's work is there.
    CHECK(fs::exists(out.string() + ".partial/a.txt"));
    first.commit();
  }
  CHECK(fs::exists(out / "manifest.json"));
  CHECK_FALSE(fs::exists(out.string() + ".lock"));  // removed on release
  ResultsDir again(out, true);  // free again
  again.commit();
  fs::remove_all(out);
}

TEST_CASE("a lock file left by a killed writer does not hold the folder", "[common][lock]") {
  const fs::path out = scratch("stale");
  std::ofstream(out.string() + ".lock") << "999999\n";  // its holder is gone: no flock on it
  {
    FolderLock lock(out);
    std::ifstream f(lock.file());
    std::string pid;
    f >> pid;
    CHECK(pid == std::to_string(::getpid()));
  }
  CHECK_FALSE(fs::exists(out.string() + ".lock"));
}
