// The `ptxas -v` reports committed beside each workload's PTX: NVIDIA's own
// register allocation for the same PTX, the yardstick of our allocator.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rfsim::backend {

struct PtxasFunction {
  std::string name;
  bool entry = false;
  int32_t registers = -1;       // "Used N registers"; -1 where ptxas prints none (-rdc device functions)
  uint32_t barriers = 0;
  uint32_t stack_frame = 0;     // bytes
  uint32_t spill_stores = 0;    // bytes
  uint32_t spill_loads = 0;     // bytes
  uint32_t cumulative_stack = 0;  // bytes, entries that call functions or spill
  uint32_t shared = 0;          // bytes of static shared memory
};

struct PtxasReport {
  std::string file;
  std::string command;  // the nvcc command line recorded in the report's first comment, if any
  std::vector<PtxasFunction> functions;

  const PtxasFunction* find(const std::string& name) const;
};

// Parses the text ptxas prints with -v. Lines it does not know are skipped;
// a known line with unexpected numbers is an error naming file:line.
PtxasReport parsePtxasReport(const std::string& text, const std::string& file);
PtxasReport readPtxasReport(const std::filesystem::path& file);

}  // namespace rfsim::backend
