// Field descriptors the configuration structs hand to a visitor (gpu_config.h
// explains the visitor protocol). Separate so that a section declared in its
// own header (energy_config.h, a mechanism's section) needs only this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rfsim::config {

// Field descriptors handed to a visitor. `lo`/`hi` are inclusive bounds.
struct IntRange {
  int64_t lo;
  int64_t hi;
};
struct RealRange {
  double lo;
  double hi;
};
using Choices = std::vector<std::string>;

// A visitor V provides:
//   v.integer(key, uint32_t& / uint64_t& / int& ref, IntRange, unit, desc)
//   v.real(key, double& ref, RealRange, unit, desc)
//   v.boolean(key, bool& ref, desc)
//   v.text(key, std::string& ref, desc)
//   v.choice(key, std::string& ref, const Choices&, desc)
//   v.section(key, Struct& sub, desc)      -- recurses into sub.visit(v)

}  // namespace rfsim::config
