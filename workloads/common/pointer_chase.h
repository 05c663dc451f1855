// One pointer chase of the `mem_chase` kernel (workloads/ubench_mem_latency/
// ubench_mem_latency.cu): one thread follows a chain of dependent 64-bit
// loads through a region, one word per visited position, `warm` untimed
// loads and then `timed` ones between two reads of %clock64. Used by
// ubench_mem_latency (L1-, L2- and DRAM-sized chains) and ubench_dram_rows
// (DRAM lines in address order and in random order).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "workloads/common/driver.h"

namespace rfsim::workloads {

struct Chase {
  const char* level;  // what the detail calls it: "L1", "DRAM in order", ...
  const char* key;    // stats.json's measured.latency_<key>
  uint64_t bytes;     // the region the chain's words lie in
  uint64_t spacing;   // bytes between the chain's words
  int warm, timed;    // loads before and between the clock reads (multiples of UNROLL, 32)
  bool in_order;      // the words in address order; else one random cycle (Sattolo)
  bool first_touch;   // every load touches a word for the first time (warm + timed < words)
};

namespace chase_detail {

// Runs `c` with `mem_chase`; checks where the chase ended and the clock
// delta. On success adds "<level> x.x" to `line`, the chain's description to
// `detail` and its cycles per load to `measured`; otherwise returns the
// failure.
inline Check runChase(rt::Device& dev, const Chase& c, Rng& rng, std::string& line, std::string& detail,
                      std::vector<Measured>& measured) {
  constexpr int kUnroll = 32;  // UNROLL in ubench_mem_latency.cu
  const uint32_t words = static_cast<uint32_t>(c.bytes / c.spacing);
  std::vector<uint32_t> next(words);
  if (c.in_order) {
    for (uint32_t i = 0; i < words; ++i) next[i] = (i + 1) % words;
  } else {
    for (uint32_t i = 0; i < words; ++i) next[i] = i;
    for (uint32_t i = words - 1; i > 0; --i) std::swap(next[i], next[rng.below(i)]);
  }
  if (c.warm % kUnroll || c.timed % kUnroll)
    return Check{false, fmt::format("{} chain: {} + {} loads, not multiples of {}", c.level, c.warm, c.timed, kUnroll)};
  if (c.first_touch && static_cast<uint32_t>(c.warm + c.timed) >= words)
    return Check{false, fmt::format("{} chain: {} loads over {} words would revisit a line", c.level, c.warm + c.timed,
                                    words)};

  DeviceBuffer d_chain(dev, c.bytes), d_end(dev, 8), d_clk(dev, 8), d_cpl(dev, 8);
  const uint64_t step = c.spacing / 8;  // in 64-bit words
  std::vector<uint64_t> chain(c.bytes / 8, 0);
  for (uint32_t i = 0; i < words; ++i) chain[i * step] = d_chain.addr() + uint64_t{next[i]} * c.spacing;
  d_chain.upload(chain);
  dev.launch("mem_chase", {1}, {1},
             rt::KernelArgs()
                 .ptr(d_chain.addr())
                 .ptr(d_end.addr())
                 .ptr(d_clk.addr())
                 .ptr(d_cpl.addr())
                 .i32(c.warm)
                 .i32(c.timed));

  uint32_t p = 0;
  for (int k = 0; k < c.warm + c.timed; ++k) p = next[p];
  const uint64_t expected = d_chain.addr() + uint64_t{p} * c.spacing;
  const uint64_t got = d_end.download<uint64_t>(1)[0];
  if (got != expected)
    return Check{false, fmt::format("{} chase ({} + {} loads over {} KiB) ended at 0x{:x}, expected 0x{:x}", c.level,
                                    c.warm, c.timed, c.bytes >> 10, got, expected)};
  const uint64_t clk = d_clk.download<uint64_t>(1)[0];
  const double per_load = d_cpl.download<double>(1)[0];
  if (clk == 0 || per_load != static_cast<double>(clk) / c.timed)
    return Check{false, fmt::format("{} chase: clock delta {}, {} per load: expected a positive delta / {}", c.level,
                                    clk, per_load, c.timed)};
  const bool timing = dev.options().timing;
  line += fmt::format("{}{} {:.1f}", line.empty() ? "" : ", ", c.level, per_load);
  measured.push_back({std::string("latency_") + c.key, timing ? "cycle" : "count",
                      fmt::format("%clock64 delta per timed load of the {} chain ({})", c.level,
                                  timing ? "cycles" : "the functional model: warp instructions"),
                      per_load});
  detail += fmt::format("; {}: {} KiB, a word every {} B{}, {} + {} timed loads, {} clocks", c.level, c.bytes >> 10,
                        c.spacing, c.in_order ? " in address order" : "", c.warm, c.timed, clk);
  return Check{true, "", {}};
}

}  // namespace chase_detail

// Runs the chains in order (their random cycles drawn from one generator
// seeded `seed`): the workload's Check, with every chain's cycles per load
// in the detail and in measured, or the first chain's failure.
inline Check runChases(rt::Device& dev, const std::vector<Chase>& chains, uint64_t seed) {
  Rng rng(seed);
  std::string detail, line;
  std::vector<Measured> measured;
  for (const Chase& c : chains) {
    const Check r = chase_detail::runChase(dev, c, rng, line, detail, measured);
    if (!r.passed) return r;
  }
  return Check{true,
               line + " cycles/load" +
                   (dev.options().timing ? "" : " (functional model: %clock64 counts warp instructions, not cycles)") +
                   fmt::format("; {} chase end addresses exact", chains.size()) + detail,
               measured};
}

}  // namespace rfsim::workloads
