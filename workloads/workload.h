// A workload: a CUDA kernel compiled by nvcc to PTX (committed beside its
// .cu), and a host driver that prepares inputs, launches it through the
// runtime API and checks the output against a CPU reference.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace rfsim::workloads {

enum class Size { Small, Large };  // Small: CI; Large: selectable

// A value a workload measures besides its output (a microbenchmark's cycles
// per load): stats.json's workloads.<w>.measured.<name>, a statistic with
// its unit ("cycle", "byte", "count") and description.
struct Measured {
  std::string name, unit, desc;
  double value = 0.0;
};

struct Check {
  bool passed = false;
  std::string detail;  // e.g. "1048576 elements, max abs error 2.4e-7 (tolerance 1e-5)" or the first mismatch
  std::vector<Measured> measured = {};  // what the workload measured, when it passed
};

struct Workload {
  std::string name;         // "saxpy"
  std::string description;  // one line
  std::string ptx;          // path relative to the repository root: "workloads/saxpy/saxpy.ptx"
  std::vector<std::string> tags;  // "memory", "calls", "atomics", "fp64", "shuffle", "regpressure", ...
  // Loads nothing itself: the caller has already loaded `ptx` (and `link`)
  // into the device.
  std::function<Check(rt::Device&, Size)> run;
  // Further modules compiled separately (nvcc -rdc=true, their own
  // translation units), linked with `ptx` when it is loaded (ptx/link.h).
  std::vector<std::string> link = {};
  // Every module, `ptx` first.
  std::vector<std::string> modules() const {
    std::vector<std::string> m{ptx};
    m.insert(m.end(), link.begin(), link.end());
    return m;
  }
};

// Every workload, in a fixed order. Each driver registers itself with
// RFSIM_WORKLOAD(name, description, ptx, tags, function).
const std::vector<Workload>& all();
const Workload* find(const std::string& name);

struct Registrar {
  explicit Registrar(Workload w);
};

}  // namespace rfsim::workloads

#define RFSIM_WORKLOAD_CAT2(a, b) a##b
#define RFSIM_WORKLOAD_CAT(a, b) RFSIM_WORKLOAD_CAT2(a, b)
#define RFSIM_WORKLOAD(...) \
  static ::rfsim::workloads::Registrar RFSIM_WORKLOAD_CAT(rfsim_workload_, __COUNTER__){::rfsim::workloads::Workload{__VA_ARGS__}}
