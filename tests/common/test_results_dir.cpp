#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/results_dir.h"

namespace fs = std::filesystem;
using namespace rfsim;

namespace {
fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("rfsim-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::remove_all(fs::path(p.string() + ".partial"));
  return p;
}
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("a committed results folder has every file and a manifest", "[common][results]") {
  const fs::path out = scratch("ok");
  {
    ResultsDir d(out, false);
    d.writeFile("a.txt", "hello\n");
    CHECK_FALSE(fs::exists(out));  // nothing under the final name until commit
    d.commit();
  }
  REQUIRE(fs::exists(out / "manifest.json"));
  const auto m = nlohmann::json::parse(slurp(out / "manifest.json"));
  CHECK(m["status"] == "complete");
  CHECK(m["files"][0]["name"] == "a.txt");
  CHECK(m["files"][0]["bytes"] == 6);
  CHECK_FALSE(fs::exists(out.string() + ".partial"));
  fs::remove_all(out);
}

TEST_CASE("a failed run leaves a .partial folder marked INCOMPLETE, never a final one", "[common][results]") {
  const fs::path out = scratch("fail");
  try {
    ResultsDir d(out, false);
    d.writeFile("stats.json", "{}");
    throw Error("simulated failure");
  } catch (const Error&) {
  }
  CHECK_FALSE(fs::exists(out));
  CHECK(fs::exists(out.string() + ".partial/INCOMPLETE"));
  CHECK_FALSE(fs::exists(out.string() + ".partial/manifest.json"));
  fs::remove_all(out.string() + ".partial");
}

TEST_CASE("existing results are kept unless overwrite, and replaced only when complete", "[common][results]") {
  const fs::path out = scratch("keep");
  {
    ResultsDir d(out, false);
    d.writeFile("v.txt", "1");
    d.commit();
  }
  CHECK_THROWS_WITH(ResultsDir(out, false), Catch::Contains("exists"));
  try {
    ResultsDir d(out, true);
    d.writeFile("v.txt", "2");
    throw Error("failure while replacing");
  } catch (const Error&) {
  }
  CHECK(slurp(out / "v.txt") == "1");  // the old results survive a failed replacement
  {
    ResultsDir d(out, true);
    d.writeFile("v.txt", "3");
    d.commit();
  }
  CHECK(slurp(out / "v.txt") == "3");
  fs::remove_all(out);
  fs::remove_all(out.string() + ".partial");
}
