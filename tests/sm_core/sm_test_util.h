// Shared by the SM timing-model tests: a PTX file compiled by the back end
// into a Program over its own memory, and the launches the tests build.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../func/machine_helpers.h"  // test::arg
#include "backend/backend.h"
#include "func/memory.h"
#include "func/program.h"
#include "ptx/parser.h"

namespace rfsim::test {

struct Loaded {
  func::GlobalMemory mem;
  std::unique_ptr<func::Program> prog;
  uint32_t tree_regs = 32;
  Loaded(const std::string& ptx_file, const std::string& kernel) {
    backend::CompiledModule cm = backend::compileModule(ptx::parseFile(ptx_file));
    if (const auto* f = cm.find(kernel)) tree_regs = f->tree_regs;
    prog = std::make_unique<func::Program>(std::move(cm.machine), mem);
  }
  explicit Loaded(ptx::Module machine) { prog = std::make_unique<func::Program>(std::move(machine), mem); }
};

inline uint64_t buffer(func::GlobalMemory& mem, const std::vector<uint8_t>& bytes) {
  const uint64_t a = mem.allocate(bytes.size(), func::AllocKind::Malloc);
  mem.write(a, bytes.data(), bytes.size());
  return a;
}
template <class T, class F>
inline std::vector<uint8_t> bytesOf(size_t n, F gen) {
  std::vector<uint8_t> b(n * sizeof(T));
  for (size_t i = 0; i < n; ++i) {
    const T v = gen(i);
    std::memcpy(b.data() + i * sizeof(T), &v, sizeof(T));
  }
  return b;
}

struct Launch {
  std::string kernel;
  rt::Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  std::vector<std::vector<uint8_t>> args;
  std::vector<std::pair<uint64_t, size_t>> outputs;
};
using MakeLaunch = std::function<Launch(func::GlobalMemory&)>;

inline std::vector<std::vector<uint8_t>> readOutputs(func::GlobalMemory& mem, const Launch& l) {
  std::vector<std::vector<uint8_t>> out;
  for (auto [a, n] : l.outputs) {
    out.emplace_back(n);
    mem.read(out.back().data(), a, n);
  }
  return out;
}

inline const std::string kWl = std::string(RFSIM_SOURCE_DIR) + "/workloads/";

}  // namespace rfsim::test
