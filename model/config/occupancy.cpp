#include "config/occupancy.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::config {

namespace {
uint32_t roundUp(uint32_t v, uint32_t unit) { return unit ? (v + unit - 1) / unit * unit : v; }
uint32_t ceilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
}  // namespace

const char* limiterName(Limiter l) {
  switch (l) {
    case Limiter::Registers: return "registers";
    case Limiter::SharedMemory: return "shared memory";
    case Limiter::Warps: return "warps";
    case Limiter::Blocks: return "block slots";
  }
  return "?";
}

std::string Occupancy::describe() const {
  std::string lim;
  for (Limiter l : limiters) lim += (lim.empty() ? "" : " and ") + std::string(limiterName(l));
  return fmt::format("{} blocks x {} warps = {} warps per SM ({:.0f} %), limited by {}", blocks, warps_per_block,
                     warps, occupancy * 100.0, lim);
}

Occupancy computeOccupancy(const config::GpuConfig& cfg, const KernelFootprint& k, const std::string& kernel) {
  const uint32_t warp = cfg.sm.warp_size;
  const uint32_t regs_per_sm = cfg.regfile.size_kb * 1024u / 4u;  // 32-bit registers
  const uint32_t shared_per_sm = cfg.shared.size_kb * 1024u;
  const uint32_t max_threads = std::min(kMaxThreadsPerBlock, cfg.sm.max_threads);

  if (k.threads_per_block == 0 || k.threads_per_block > max_threads)
    throw Error(fmt::format("{}: {} threads per block; the configuration '{}' allows 1 to {}", kernel,
                            k.threads_per_block, cfg.name, max_threads));
  if (k.regs_per_thread > kMaxRegsPerThread)
    throw Error(fmt::format("{}: {} registers per thread; at most {} can be encoded", kernel, k.regs_per_thread,
                            kMaxRegsPerThread));

  Occupancy o;
  o.warps_per_block = ceilDiv(k.threads_per_block, warp);
  // Registers are allocated per warp in units of regfile.alloc_granularity
  // (256 on compute capability 5.x-7.x, the calculator's "register
  // allocation unit size" with "warp" granularity).
  o.regs_per_warp = roundUp(std::max(k.regs_per_thread, 1u) * warp, cfg.regfile.alloc_granularity);
  o.shared_alloc_per_block = roundUp(k.shared_per_block, kSharedAllocUnit);

  const uint32_t warps_by_regs = regs_per_sm / o.regs_per_warp;
  o.blocks_by_registers = warps_by_regs / o.warps_per_block;
  o.blocks_by_shared = o.shared_alloc_per_block ? shared_per_sm / o.shared_alloc_per_block : cfg.sm.max_blocks;
  o.blocks_by_warps = cfg.sm.max_warps / o.warps_per_block;
  o.blocks_by_slots = cfg.sm.max_blocks;

  if (o.blocks_by_registers == 0)
    throw Error(fmt::format("{}: one block needs {} registers ({} warps x {}), more than the SM's {}", kernel,
                            uint64_t{o.warps_per_block} * o.regs_per_warp, o.warps_per_block, o.regs_per_warp,
                            regs_per_sm));
  const uint32_t per_block_max = cfg.shared.max_per_block_kb ? cfg.shared.max_per_block_kb * 1024u : shared_per_sm;
  if (k.shared_per_block > per_block_max)
    throw Error(fmt::format("{}: one block needs {} bytes of shared memory, more than the {} a block may use", kernel,
                            k.shared_per_block, per_block_max));
  if (o.blocks_by_shared == 0)
    throw Error(fmt::format("{}: one block needs {} bytes of shared memory, more than the SM's {}", kernel,
                            o.shared_alloc_per_block, shared_per_sm));
  if (o.blocks_by_warps == 0)
    throw Error(fmt::format("{}: one block has {} warps, more than the SM's {}", kernel, o.warps_per_block,
                            cfg.sm.max_warps));

  o.blocks = std::min({o.blocks_by_registers, o.blocks_by_shared, o.blocks_by_warps, o.blocks_by_slots});
  o.warps = o.blocks * o.warps_per_block;
  o.occupancy = double(o.warps) / double(cfg.sm.max_warps);
  if (o.blocks_by_registers == o.blocks) o.limiters.push_back(Limiter::Registers);
  if (o.blocks_by_shared == o.blocks && k.shared_per_block) o.limiters.push_back(Limiter::SharedMemory);
  if (o.blocks_by_warps == o.blocks) o.limiters.push_back(Limiter::Warps);
  if (o.blocks_by_slots == o.blocks) o.limiters.push_back(Limiter::Blocks);
  return o;
}

}  // namespace rfsim::config
