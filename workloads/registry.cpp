#include "workloads/workload.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace rfsim::workloads {
namespace {

// Function-local static: registrars in other translation units run during
// static initialisation, in an unspecified order, possibly before a
// namespace-scope vector here would have been constructed.
std::vector<Workload>& registry() {
  static std::vector<Workload> workloads;
  return workloads;
}

}  // namespace

// Sorted by name as they register, so the order does not depend on the order
// in which the linker placed the drivers' object files.
const std::vector<Workload>& all() { return registry(); }

const Workload* find(const std::string& name) {
  const auto& w = registry();
  auto it = std::lower_bound(w.begin(), w.end(), name,
                             [](const Workload& a, const std::string& n) { return a.name < n; });
  return it != w.end() && it->name == name ? &*it : nullptr;
}

Registrar::Registrar(Workload w) {
  auto& reg = registry();
  auto it = std::lower_bound(reg.begin(), reg.end(), w.name,
                             [](const Workload& a, const std::string& n) { return a.name < n; });
  // Static initialisation cannot throw usefully: a duplicate name is a
  // programming error, reported and fatal before main() runs.
  if (it != reg.end() && it->name == w.name) {
    std::fprintf(stderr, "rfsim: workload '%s' registered twice\n", w.name.c_str());
    std::abort();
  }
  reg.insert(it, std::move(w));
}

}  // namespace rfsim::workloads
