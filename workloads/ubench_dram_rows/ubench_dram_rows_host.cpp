// DRAM row hits against row conflicts (see ubench_dram_rows.cu): one thread
// chases pointers through the lines of a region larger than every L2 of the
// configurations, one word per 128-byte line, each line touched once (an L1D
// and L2 miss by construction). In address order, consecutive lines of a
// DRAM channel share its open row, so most loads are row hits (in the model's
// mapping 15 of the 16 lines of a 2 KiB row; docs/memory.md, "Address
// mapping"); in random order nearly every load opens a row (a row miss, or
// a row conflict where the bank has another one open). The difference is
// what opening a row costs (t_rcd, and t_rp for a conflict). The CPU check
// verifies where each chase ended; the cycles per load are stats.json's
// workloads.ubench_dram_rows.measured.latency_in_order and _random_order.
#include "workloads/common/pointer_chase.h"

namespace rfsim::workloads {
namespace {

constexpr uint64_t kLine = 128;

Check runDramRows(rt::Device& dev, Size size) {
  const uint64_t bytes = size == Size::Small ? 16u << 20 : 64u << 20;
  const int timed = size == Size::Small ? 512 : 4096;
  const std::vector<Chase> chains = {{"in address order", "in_order", bytes, kLine, 64, timed, true, true},
                                     {"in random order", "random_order", bytes, kLine, 64, timed, false, true}};
  return runChases(dev, chains, 83);
}

}  // namespace

RFSIM_WORKLOAD("ubench_dram_rows",
               "microbenchmark: DRAM latency of a pointer chase through lines touched once, in address order (row "
               "hits) and in random order (rows opened), timed with %clock64",
               "workloads/ubench_dram_rows/ubench_dram_rows.ptx", {"ubench", "memory"}, runDramRows);

}  // namespace rfsim::workloads
