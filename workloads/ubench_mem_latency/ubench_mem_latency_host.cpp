// Global-memory latency per level by pointer chasing (see
// ubench_mem_latency.cu and the Microbenchmarks section of
// docs/workloads.md): three chains, one launch of one thread each, laid out
// so that the timed loads hit the L1D, hit the L2 after missing the L1D, and
// miss both. The CPU check verifies where each chase ended; the %clock64
// delta per timed load is reported (and must be positive), in the detail and
// as stats.json's workloads.ubench_mem_latency.measured.latency_l1, _l2 and
// _dram: under the functional model %clock64 counts the block's warp
// instructions, under the SM timing model it counts cycles.
#include <cctype>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kUnroll = 32;        // UNROLL in ubench_mem_latency.cu: loads per loop pass
constexpr uint64_t kLine = 128;    // one chain word per line: no two consecutive loads share a line

struct Footprint {
  const char* level;   // "L1", "L2", "DRAM"
  uint64_t bytes;      // the region the chain's words lie in
  uint64_t spacing;    // bytes between candidate words (kLine, or more for DRAM)
  int warm, timed;     // loads before and between the clock reads (multiples of kUnroll)
};

// L1: 8 KiB (64 lines) fits the smallest L1D (maxwell: 16 KiB, 4 ways x 32
//   sets, 2 lines per set); one untimed pass fills it, the timed loads go
//   round the cycle again and again.
// L2: the untimed pass touches every line of a region far above any L1D
//   (16-96 KiB) and below the smallest L2 (maxwell: 2 MiB); the timed loads
//   then go round the cycle from the start again: between two visits of a
//   line the chase touches every other line of the region, so under LRU the
//   line has left the L1D but not the L2.
// DRAM: words one every `spacing` bytes of a region above the largest L2
//   (v100: 6 MiB), and warm + timed below the number of words, so every
//   load touches a line for the first time: L1D and L2 misses by
//   construction, whatever the replacement policy. The untimed loads (DRAM
//   misses as well) only bring the loop's code into the L1I.
std::vector<Footprint> footprints(Size size) {
  if (size == Size::Small)
    return {{"L1", 8u << 10, kLine, 64, 512},
            {"L2", 1u << 20, kLine, 8192, 512},
            {"DRAM", 16u << 20, 16u << 10, 64, 512}};
  return {{"L1", 8u << 10, kLine, 64, 4096},
          {"L2", 1u << 20, kLine, 8192, 4096},
          {"DRAM", 32u << 20, 4u << 10, 256, 4096}};
}

Check runMemLatency(rt::Device& dev, Size size) {
  Rng rng(61);
  std::string detail, line;
  std::vector<Measured> measured;
  const bool timing = dev.options().timing;
  for (const Footprint& f : footprints(size)) {
    // One random cycle through all words (Sattolo's algorithm): each word
    // holds the absolute device address of the next, so a load's address is
    // the previous load's value and nothing else.
    const uint32_t words = static_cast<uint32_t>(f.bytes / f.spacing);
    std::vector<uint32_t> next(words);
    for (uint32_t i = 0; i < words; ++i) next[i] = i;
    for (uint32_t i = words - 1; i > 0; --i) std::swap(next[i], next[rng.below(i)]);
    if (f.warm % kUnroll || f.timed % kUnroll)
      return Check{false, fmt::format("{} chain: {} + {} loads, not multiples of {}", f.level, f.warm, f.timed, kUnroll)};
    if (f.level == std::string("DRAM") && static_cast<uint32_t>(f.warm + f.timed) >= words)
      return Check{false, fmt::format("DRAM chain: {} loads over {} words would revisit a line", f.warm + f.timed,
                                      words)};

    DeviceBuffer d_chain(dev, f.bytes), d_end(dev, 8), d_clk(dev, 8), d_cpl(dev, 8);
    const uint64_t step = f.spacing / 8;  // in 64-bit words
    std::vector<uint64_t> chain(f.bytes / 8, 0);
    for (uint32_t i = 0; i < words; ++i) chain[i * step] = d_chain.addr() + uint64_t{next[i]} * f.spacing;
    d_chain.upload(chain);
    dev.launch("mem_chase", {1}, {1},
               rt::KernelArgs()
                   .ptr(d_chain.addr())
                   .ptr(d_end.addr())
                   .ptr(d_clk.addr())
                   .ptr(d_cpl.addr())
                   .i32(f.warm)
                   .i32(f.timed));

    uint32_t p = 0;
    for (int k = 0; k < f.warm + f.timed; ++k) p = next[p];
    const uint64_t expected = d_chain.addr() + uint64_t{p} * f.spacing;
    const uint64_t got = d_end.download<uint64_t>(1)[0];
    if (got != expected)
      return Check{false, fmt::format("{} chase ({} + {} loads over {} KiB) ended at 0x{:x}, expected 0x{:x}", f.level,
                                      f.warm, f.timed, f.bytes >> 10, got, expected)};
    const uint64_t clk = d_clk.download<uint64_t>(1)[0];
    const double per_load = d_cpl.download<double>(1)[0];
    if (clk == 0 || per_load != static_cast<double>(clk) / f.timed)
      return Check{false, fmt::format("{} chase: clock delta {}, {} per load: expected a positive delta / {}", f.level,
                                      clk, per_load, f.timed)};
    line += fmt::format("{}{} {:.1f}", line.empty() ? "" : ", ", f.level, per_load);
    std::string key = f.level;
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    measured.push_back({"latency_" + key, timing ? "cycle" : "count",
                        fmt::format("%clock64 delta per timed load of the {}-sized chain ({})", f.level,
                                    timing ? "cycles" : "the functional model: warp instructions"),
                        per_load});
    detail += fmt::format("; {}: {} KiB, a word every {} B, {} + {} timed loads, {} clocks", f.level, f.bytes >> 10,
                          f.spacing, f.warm, f.timed, clk);
  }
  return Check{true,
               line + " cycles/load" +
                   (timing ? "" : " (functional model: %clock64 counts warp instructions, not cycles)") +
                   "; 3 chase end addresses exact" + detail,
               measured};
}

}  // namespace

RFSIM_WORKLOAD("ubench_mem_latency",
               "microbenchmark: global load latency by pointer chasing over L1-, L2- and DRAM-sized footprints, "
               "timed with %clock64",
               "workloads/ubench_mem_latency/ubench_mem_latency.ptx", {"ubench", "memory"}, runMemLatency);

}  // namespace rfsim::workloads
