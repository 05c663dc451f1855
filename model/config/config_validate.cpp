// Cross-field rules: each concerns values that are fine alone but do not fit
// together. docs/configuration.md lists the same rules for users.
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "config/carveout.h"
#include "config/config_detail.h"

namespace rfsim::config::detail {

namespace {

bool isPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

// A cache is sets x ways x lines: its capacity must be a whole number of
// sets, and with `slices` it is split evenly over them (the L2).
std::optional<Violation> checkCache(const std::string& name, const CacheConfig& c, bool may_be_absent,
                                    uint32_t slices = 1) {
  const std::string size_key = name + ".size_kb";
  if (c.size_kb == 0) {
    if (may_be_absent) return std::nullopt;
    return Violation{size_key, "", fmt::format("size 0 is allowed only for l1d (no L1 data cache); {} needs one", name)};
  }
  if (!isPowerOfTwo(c.line_bytes))
    return Violation{name + ".line_bytes", "", fmt::format("line size {} B is not a power of two", c.line_bytes)};
  const uint64_t bytes = uint64_t{c.size_kb} * 1024;
  const uint64_t set_bytes = uint64_t{c.assoc} * c.line_bytes;
  if (bytes % set_bytes != 0)
    return Violation{size_key, name + ".assoc",
                     fmt::format("{} KiB is not a whole number of sets of {} ways x {} B lines", c.size_kb, c.assoc,
                                 c.line_bytes)};
  if (slices > 1 && (bytes / set_bytes) % slices != 0)
    return Violation{size_key, name + ".num_slices",
                     fmt::format("{} sets of {} ways x {} B do not split evenly over {} slices", bytes / set_bytes,
                                 c.assoc, c.line_bytes, slices)};
  // The set index is a field of address bits (mem/cache.cpp).
  if (const uint64_t sets = bytes / set_bytes / std::max(slices, 1u); !isPowerOfTwo(sets))
    return Violation{size_key, name + ".assoc",
                     fmt::format("{} KiB of {} ways x {} B lines is {} sets{}, not a power of two (the set index is "
                                 "address bits)",
                                 c.size_kb, c.assoc, c.line_bytes, sets, slices > 1 ? " per slice" : "")};
  return std::nullopt;
}

std::optional<Violation> checkSm(const SmConfig& sm) {
  if (sm.max_threads % sm.warp_size != 0)
    return Violation{"sm.max_threads", "sm.warp_size",
                     fmt::format("max_threads {} is not a multiple of warp_size {}", sm.max_threads, sm.warp_size)};
  if (uint64_t{sm.max_threads} > uint64_t{sm.max_warps} * sm.warp_size)
    return Violation{"sm.max_threads", "sm.max_warps",
                     fmt::format("max_threads {} needs {} warps, more than max_warps {}", sm.max_threads,
                                 sm.max_threads / sm.warp_size, sm.max_warps)};
  if (sm.active_warps > sm.max_warps)
    return Violation{"sm.active_warps", "sm.max_warps",
                     fmt::format("active_warps {} exceeds max_warps {}", sm.active_warps, sm.max_warps)};
  // Each scheduler picks from its share of the active pool; an empty share
  // would leave that scheduler idle for the whole run.
  if (sm.scheduler == SchedulerPolicy::TwoLevel && sm.active_warps < sm.num_schedulers)
    return Violation{"sm.active_warps", "sm.num_schedulers",
                     fmt::format("two_level needs at least one active warp per scheduler: active_warps {} < "
                                 "num_schedulers {}",
                                 sm.active_warps, sm.num_schedulers)};
  // Each sub-core has its own schedulers: the schedulers split evenly.
  if (sm.sub_cores > sm.num_schedulers || sm.num_schedulers % sm.sub_cores != 0)
    return Violation{"sm.sub_cores", "sm.num_schedulers",
                     fmt::format("{} sub-cores cannot each have their own schedulers out of {}", sm.sub_cores,
                                 sm.num_schedulers)};
  return std::nullopt;
}

// A DRAM's banks, rows and timings must be those of a device that can work.
std::optional<Violation> checkDram(const DramConfig& d, uint32_t line_bytes) {
  // A row stays open at least until its first read has its data.
  if (d.t_ras < d.t_rcd + d.t_cl)
    return Violation{"dram.t_ras", "dram.t_rcd",
                     fmt::format("t_ras {} is shorter than t_rcd {} + t_cl {}: a row would close before its first "
                                 "read's data",
                                 d.t_ras, d.t_rcd, d.t_cl)};
  if (d.t_ccd_l < d.t_ccd_s)
    return Violation{"dram.t_ccd_l", "dram.t_ccd_s",
                     fmt::format("t_ccd_l {} is shorter than t_ccd_s {}: the same bank group cannot be faster than "
                                 "another",
                                 d.t_ccd_l, d.t_ccd_s)};
  if (d.t_faw != 0 && d.t_faw < d.t_rrd)
    return Violation{"dram.t_faw", "dram.t_rrd",
                     fmt::format("t_faw {} is shorter than t_rrd {}: four activates cannot fit where one gap does not",
                                 d.t_faw, d.t_rrd)};
  if (d.banks % d.bank_groups != 0)
    return Violation{"dram.bank_groups", "dram.banks",
                     fmt::format("{} banks do not split evenly into {} bank groups", d.banks, d.bank_groups)};
  if (d.row_bytes < line_bytes || d.row_bytes % line_bytes != 0)
    return Violation{"dram.row_bytes", "l2.line_bytes",
                     fmt::format("a row of {} B does not hold whole lines of {} B", d.row_bytes, line_bytes)};
  return std::nullopt;
}

std::string kbList(const std::vector<uint32_t>& v) {
  std::string out;
  for (uint32_t x : v) out += fmt::format("{}{}", out.empty() ? "" : ", ", x);
  return out;
}

// The carve-out of the unified L1D/shared array (config/carveout.h).
std::optional<Violation> checkCarveout(const GpuConfig& c) {
  const auto& opts = c.shared.carveout_kb;
  if (opts.empty())
    return Violation{"shared.carveout_kb", "shared.size_kb",
                     fmt::format("no shared-memory capacity to choose from; give at least [{}]", c.shared.size_kb)};
  for (size_t i = 1; i < opts.size(); ++i)
    if (opts[i] <= opts[i - 1])
      return Violation{"shared.carveout_kb", "",
                       fmt::format("[{}] is not in ascending order without repeats", kbList(opts))};
  if (opts.back() != c.shared.size_kb)
    return Violation{"shared.carveout_kb", "shared.size_kb",
                     fmt::format("the largest carve-out, {} KiB, is not the SM's shared memory of {} KiB",
                                 opts.back(), c.shared.size_kb)};
  for (uint32_t kb : opts)
    if ((uint64_t{kb} * 1024) % (4ull * c.shared.num_banks) != 0)
      return Violation{"shared.carveout_kb", "shared.num_banks",
                       fmt::format("{} KiB is not a whole number of rows of {} 4-byte banks", kb, c.shared.num_banks)};
  const uint32_t cc = c.gpu.compute_capability;
  const auto published = publishedCarveouts(cc);
  const std::string arch = fmt::format("compute capability {}.{}", cc / 10, cc % 10);
  if (!c.l1d.unified) {
    if (opts.size() != 1)
      return Violation{"shared.carveout_kb", "l1d.unified",
                       fmt::format("[{}] offers a choice, but without a unified array (l1d.unified false) shared "
                                   "memory is fixed: give [{}]",
                                   kbList(opts), c.shared.size_kb)};
    return std::nullopt;
  }
  if (published && published->unified_kb == 0)
    return Violation{"l1d.unified", "gpu.compute_capability",
                     fmt::format("{} has shared memory apart from the L1 cache (CUDA C++ Programming Guide): no "
                                 "carve-out, l1d.unified must be false",
                                 arch)};
  if (published)
    for (uint32_t kb : opts)
      if (std::find(published->shared_kb.begin(), published->shared_kb.end(), kb) == published->shared_kb.end())
        return Violation{"shared.carveout_kb", "gpu.compute_capability",
                         fmt::format("{} KiB is not a shared-memory capacity {} offers ({} KiB; CUDA C++ "
                                     "Programming Guide)",
                                     kb, arch, kbList(published->shared_kb))};
  return std::nullopt;
}

// sim.parallel_sms defers every reply of the memory side to the quantum's
// end: sound only when no reply can come back inside the quantum its
// request left in, i.e. the quantum is at most the shortest round trip (the
// crossbar both ways and an L2 hit). The block sampler observes the launch
// cycle by cycle across SMs, which this mode does not keep.
std::optional<Violation> checkParallelSms(const GpuConfig& c) {
  if (!c.sim.parallel_sms) return std::nullopt;
  const uint64_t round_trip = 2ull * c.icnt.latency + c.l2.cache.latency;
  if (c.sim.quantum_cycles > round_trip)
    return Violation{"sim.quantum_cycles", "icnt.latency",
                     fmt::format("sim.parallel_sms needs a quantum of at most the shortest memory round trip, "
                                 "2 x icnt.latency + l2.latency = {} cycles; the quantum is {}",
                                 round_trip, c.sim.quantum_cycles)};
  if (c.sim.sample == SampleMode::Blocks || c.sim.sample == SampleMode::All)
    return Violation{"sim.sample", "sim.parallel_sms",
                     "sampling blocks (blocks, all) needs the SMs stepped in turn: use off or launches"};
  if (c.sim.memory != MemoryModel::Hierarchy)
    return Violation{"sim.memory", "sim.parallel_sms", "parallel SMs defer the hierarchy's replies: use hierarchy"};
  return std::nullopt;
}

}  // namespace

std::optional<Violation> firstViolation(const GpuConfig& c) {
  if (auto v = checkSm(c.sm)) return v;

  // size_kb x 1024 is always a whole number of warp registers (128 B at the
  // only warp size, 32), so the rule that matters is the bank split.
  const uint64_t warp_regs = c.warpRegisters();
  // Registers are interleaved over the banks; unequal banks would make the
  // bank of a register depend on more than its index.
  if (warp_regs % c.regfile.num_banks != 0)
    return Violation{"regfile.num_banks", "regfile.size_kb",
                     fmt::format("{} warp registers do not divide evenly over {} banks", warp_regs,
                                 c.regfile.num_banks)};
  // A bank group per scheduler quadrant: equal groups, and a warp's group is
  // its scheduler's (both are warp % n), so the counts must agree.
  if (c.regfile.num_banks % c.regfile.sub_cores != 0)
    return Violation{"regfile.sub_cores", "regfile.num_banks",
                     fmt::format("{} banks do not split evenly into {} groups", c.regfile.num_banks,
                                 c.regfile.sub_cores)};
  // Sub-cores (sm.sub_cores): each has its own banks, collectors and
  // execution units (the LD/ST path is shared), split evenly.
  if (const uint32_t n = c.sm.sub_cores; n > 1) {
    if (c.regfile.sub_cores > 1 && c.regfile.sub_cores != n)
      return Violation{"regfile.sub_cores", "sm.sub_cores",
                       fmt::format("{} bank groups but {} sub-cores: with sub-cores, each has its own banks (set "
                                   "regfile.sub_cores to 1 or {})",
                                   c.regfile.sub_cores, n, n)};
    if (c.regfile.num_banks % n != 0)
      return Violation{"regfile.num_banks", "sm.sub_cores",
                       fmt::format("{} banks do not split evenly over {} sub-cores", c.regfile.num_banks, n)};
    if (c.pipeline.num_collectors % n != 0)
      return Violation{"pipeline.num_collectors", "sm.sub_cores",
                       fmt::format("{} collectors do not split evenly over {} sub-cores", c.pipeline.num_collectors,
                                   n)};
    const std::pair<const char*, uint32_t> units[] = {{"pipeline.sp_units", c.pipeline.sp_units},
                                                      {"pipeline.int_units", c.pipeline.int_units},
                                                      {"pipeline.sfu_units", c.pipeline.sfu_units},
                                                      {"pipeline.dp_units", c.pipeline.dp_units}};
    for (const auto& [key, count] : units)
      if (count % n != 0)
        return Violation{key, "sm.sub_cores",
                         fmt::format("{} units do not split evenly over {} sub-cores (each has its own)", count, n)};
  }
  if (c.regfile.sub_cores > 1 && c.regfile.sub_cores != c.sm.num_schedulers)
    return Violation{"regfile.sub_cores", "sm.num_schedulers",
                     fmt::format("{} bank groups but {} schedulers: each scheduler quadrant has its own group",
                                 c.regfile.sub_cores, c.sm.num_schedulers)};

  if (auto v = checkCache("l1d", c.l1d, true)) return v;
  if (auto v = checkCache("l1i", c.l1i, false)) return v;
  if (c.l1i.l0_size_kb) {
    CacheConfig l0{c.l1i.l0_size_kb, c.l1i.l0_assoc, c.l1i.line_bytes, c.l1i.l0_latency};
    if (auto v = checkCache("l1i.l0", l0, false)) {
      // checkCache names l1i.l0.size_kb / l1i.l0.assoc: the keys are l1i.l0_size_kb / l1i.l0_assoc.
      auto fix = [](std::string k) { return k.empty() ? k : k.replace(k.find("l0.") + 2, 1, "_"); };
      if (v->key == "l1i.l0.line_bytes") v->key = "l1i.line_bytes";
      else v->key = fix(v->key);
      v->other_key = fix(v->other_key);
      return v;
    }
  }
  // Each sub-core's fetch unit starts its own share of the SM's fills.
  if (c.pipeline.fetch_width % c.sm.sub_cores != 0)
    return Violation{"pipeline.fetch_width", "sm.sub_cores",
                     fmt::format("{} fills per cycle do not split evenly over {} sub-cores", c.pipeline.fetch_width,
                                 c.sm.sub_cores)};
  if (auto v = checkCache("l2", c.l2.cache, false, c.l2.num_slices)) return v;
  // Every DRAM channel has the same number of L2 slices in front of it
  // (GPGPU-Sim's sub-partitions per memory channel).
  if (c.l2.num_slices % c.dram.num_channels != 0)
    return Violation{"l2.num_slices", "dram.num_channels",
                     fmt::format("{} slices do not divide evenly over {} channels", c.l2.num_slices,
                                 c.dram.num_channels)};

  // DRAM timing that contradicts itself (mem/tlm/dram_controller.h).
  if (auto v = checkDram(c.dram, c.l2.cache.line_bytes)) return v;

  // Shared memory interleaves 4-byte words over its banks.
  if ((uint64_t{c.shared.size_kb} * 1024) % (4ull * c.shared.num_banks) != 0)
    return Violation{"shared.size_kb", "shared.num_banks",
                     fmt::format("{} KiB is not a whole number of rows of {} 4-byte banks", c.shared.size_kb,
                                 c.shared.num_banks)};
  if (auto v = checkCarveout(c)) return v;
  if (auto v = checkParallelSms(c)) return v;

  // Each mechanism's own rules, on its section.
  const auto& types = mechanismSectionTypes();
  for (const auto& [name, section] : c.mechanisms.sections) {
    for (const auto& t : types) {
      if (t.name != name || !t.check) continue;
      if (auto v = t.check(section)) {
        const std::string p = "mechanisms." + name + ".";
        return Violation{p + v->key, v->other_key.empty() ? "" : p + v->other_key, v->reason};
      }
    }
  }
  return std::nullopt;
}

std::string formatViolation(const std::string& where, const Violation& v) {
  if (v.other_key.empty()) return fmt::format("{}: key '{}': {}", where, v.key, v.reason);
  return fmt::format("{}: keys '{}' and '{}': {}", where, v.key, v.other_key, v.reason);
}

}  // namespace rfsim::config::detail
