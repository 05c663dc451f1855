// Every workload's nvcc-generated PTX passes load-time validation (every
// instruction supported by the executor or the lane semantics).
#include <catch2/catch.hpp>

#include <filesystem>

#include "runtime/runtime.h"

using namespace rfsim;

TEST_CASE("every workload's PTX loads", "[func]") {
  const std::filesystem::path root = std::filesystem::path(RFSIM_SOURCE_DIR) / "workloads";
  if (!std::filesystem::exists(root)) return;
  int n = 0;
  for (const auto& dir : std::filesystem::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
      if (f.path().extension() != ".ptx") continue;
      INFO(f.path().string());
      rt::Device dev;
      CHECK_NOTHROW(dev.loadModule(f.path()));
      ++n;
    }
  }
  CHECK(n >= 0);
}
