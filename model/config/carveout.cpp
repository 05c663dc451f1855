#include "config/carveout.h"

#include <algorithm>

#include "common/error.h"

namespace rfsim::config {

namespace {

// The sets of the L1D (l1d.size_kb in l1d.assoc ways of l1d.line_bytes).
uint64_t l1dSets(const GpuConfig& cfg) {
  return uint64_t{cfg.l1d.size_kb} * 1024 / (uint64_t{cfg.l1d.assoc} * cfg.l1d.line_bytes);
}

// The smallest capacity of `options` (KiB, ascending) of at least `bytes`.
std::optional<uint32_t> smallestHolding(const std::vector<uint32_t>& options, uint64_t bytes) {
  for (uint32_t kb : options)
    if (uint64_t{kb} * 1024 >= bytes) return kb;
  return std::nullopt;
}

}  // namespace

Carveout chooseCarveout(const GpuConfig& cfg, const KernelFootprint& k, int preferred_percent,
                        const std::string& kernel) {
  Carveout c;
  if (!cfg.l1d.unified) {
    c.shared_kb = cfg.shared.size_kb;
    c.l1d_kb = cfg.l1d.size_kb;
    c.l1d_assoc = cfg.l1d.assoc;
    return c;
  }
  std::vector<uint32_t> options = cfg.shared.carveout_kb;
  std::sort(options.begin(), options.end());
  // Occupancy with the largest capacity (shared.size_kb): what the smallest
  // sufficient capacity must keep.
  const Occupancy full = computeOccupancy(cfg, k, kernel);
  const uint64_t one_block = full.shared_alloc_per_block;
  std::optional<uint32_t> pick;
  if (preferred_percent >= 0) {
    // A percentage of the largest capacity, rounded up to a capacity.
    const uint64_t wanted = (uint64_t(std::min(preferred_percent, 100)) * cfg.shared.size_kb * 1024 + 99) / 100;
    pick = smallestHolding(options, wanted);
    if (pick && uint64_t{*pick} * 1024 < one_block) pick = smallestHolding(options, one_block);
  } else {
    pick = smallestHolding(options, uint64_t{full.blocks} * one_block);
  }
  // Validation makes the largest option shared.size_kb, which holds what
  // the occupancy allowed.
  if (!pick) pick = options.empty() ? cfg.shared.size_kb : options.back();
  c.shared_kb = *pick;
  c.chosen = true;
  if (cfg.l1d.size_kb == 0) {  // no L1D at any carve-out
    c.l1d_assoc = cfg.l1d.assoc;
    return c;
  }
  // The rest of the array in whole ways of the L1D's sets (rounded down
  // where a carve-out leaves a part of a way, as an L1D resized by
  // --set can).
  const uint64_t sets = std::max<uint64_t>(l1dSets(cfg), 1);
  const uint64_t way_bytes = sets * cfg.l1d.line_bytes;
  const uint64_t rest = (uint64_t{cfg.l1d.size_kb} + cfg.shared.size_kb - c.shared_kb) * 1024;
  uint64_t ways = rest / way_bytes;
  if (way_bytes < 1024) ways -= ways % (1024 / way_bytes);  // a whole KiB (sets and lines are powers of two)
  c.l1d_assoc = static_cast<uint32_t>(ways);
  c.l1d_kb = static_cast<uint32_t>(uint64_t{c.l1d_assoc} * way_bytes / 1024);
  return c;
}

GpuConfig withCarveout(const GpuConfig& cfg, const Carveout& c) {
  GpuConfig out = cfg;
  out.shared.size_kb = c.shared_kb;
  out.l1d.size_kb = c.l1d_kb;
  out.l1d.assoc = std::max(c.l1d_assoc, 1u);
  return out;
}

std::optional<PublishedCarveouts> publishedCarveouts(uint32_t cc) {
  // CUDA C++ Programming Guide, "Compute Capabilities": 7.x, 8.x, 9.0 and
  // 10.0 "Shared Memory"; 5.x and 6.x have an L1/texture cache apart from
  // shared memory.
  if (cc >= 50 && cc < 70) return PublishedCarveouts{0, {}};
  switch (cc) {
    case 70: return PublishedCarveouts{128, {0, 8, 16, 32, 64, 96}};
    case 75: return PublishedCarveouts{96, {32, 64}};
    case 80:
    case 87: return PublishedCarveouts{192, {0, 8, 16, 32, 64, 100, 132, 164}};
    case 86:
    case 89: return PublishedCarveouts{128, {0, 8, 16, 32, 64, 100}};
    case 90:
    case 100: return PublishedCarveouts{256, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}};
    default: return std::nullopt;
  }
}

}  // namespace rfsim::config
