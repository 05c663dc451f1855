// Every workload's nvcc-generated PTX passes load-time validation (every
// instruction supported by the executor or the lane semantics).
#include <catch2/catch.hpp>

#include <filesystem>
#include <vector>

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
      // A workload's separately compiled units (lib/*.ptx) are linked with its
      // kernels' module; the fully inlined compilation is one whole program.
      std::vector<std::filesystem::path> mods{f.path()};
      const bool inlined = f.path().stem().extension() == ".inlined";
      if (!inlined && std::filesystem::is_directory(dir.path() / "lib"))
        for (const auto& l : std::filesystem::directory_iterator(dir.path() / "lib"))
          if (l.path().extension() == ".ptx") mods.push_back(l.path());
      rt::Device dev;
      CHECK_NOTHROW(dev.loadModules(mods));
      ++n;
    }
  }
  CHECK(n >= 19);
}

TEST_CASE("a module that calls into another unit does not load alone", "[func]") {
  rt::Device dev;
  CHECK_THROWS_WITH(dev.loadModule(std::filesystem::path(RFSIM_SOURCE_DIR) / "workloads/mlchain/mlchain.ptx"),
                    Catch::Contains("call to external function") && Catch::Contains("has no body"));
}
