// Typed configuration of the memory side: the caches (L1I, L1D, L2), shared
// memory, the crossbar and DRAM. Part of GpuConfig (config/gpu_config.h);
// each struct lists its fields once, in visit(), as there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/gpu_config_fields.h"

namespace rfsim::config {

struct CacheConfig {
  uint32_t size_kb = 0;
  uint32_t assoc = 4;
  uint32_t line_bytes = 128;
  uint32_t latency = 1;

  template <class V> void visit(V& v) {
    v.integer("size_kb", size_kb, IntRange{0, 1 << 20}, "KiB", "capacity (per SM for L1s, total for L2)");
    v.integer("assoc", assoc, IntRange{1, 64}, "way", "associativity");
    v.integer("line_bytes", line_bytes, IntRange{32, 256}, "byte", "line size");
    v.integer("latency", latency, IntRange{1, 2000}, "cycle", "hit latency");
  }
};

enum class IPrefetch : uint8_t { None, NextLine, Stream };
inline const Choices& choiceNames(IPrefetch) {
  static const Choices names{"none", "next_line", "stream"};
  return names;
}

// How instructions lie in memory, which sets how many a cache line holds
// (Jia et al. 2018, "Dissecting the NVIDIA Volta GPU Architecture via
// Microbenchmarking", chapter 2, "Instruction encoding"): Volta and later
// encode each instruction, its control information included, in 128 bits;
// Maxwell and Pascal encode instructions in 64 bits and put one 64-bit
// control instruction before every three (a 32-byte bundle).
enum class IEncoding : uint8_t { Bits128, Bits64Ctrl3 };
inline const Choices& choiceNames(IEncoding) {
  static const Choices names{"bits128", "bits64_ctrl3"};
  return names;
}

// The instruction caches (model/sm/core/icache.h, fetch_stage.h): an L0 per
// sub-core (sm.sub_cores) in front of the SM's L1I, both set-associative
// LRU; an L1I miss costs pipeline.l1i_miss_latency (an L2 hit) and merges
// with a miss to the same line already in flight. The prefetcher fills the
// first level (L0, or the L1I without one): next_line fetches the
// `prefetch_degree` lines after a line that missed; stream also does so when
// a fetch first uses a prefetched line (tagged prefetch), so it runs ahead
// of straight-line code.
struct L1iConfig : CacheConfig {
  uint32_t l0_size_kb = 12;  // Jia et al. 2018 Table 3.1 (Volta); 0: no L0, fetches go to the L1I
  uint32_t l0_assoc = 6;
  uint32_t l0_latency = 1;
  IPrefetch prefetch = IPrefetch::Stream;
  uint32_t prefetch_degree = 8;
  IEncoding encoding = IEncoding::Bits128;

  template <class V> void visit(V& v) {
    CacheConfig::visit(v);
    v.choice("encoding", encoding,
             "instruction encoding, which sets the code's size: bits128 (Volta and later: 16 bytes an instruction); "
             "bits64_ctrl3 (Maxwell, Pascal: 8 bytes an instruction and an 8-byte control word before every three, "
             "32 bytes per three)");
    v.integer("l0_size_kb", l0_size_kb, IntRange{0, 1024}, "KiB",
              "L0 instruction cache per sub-core (0: none, the warps fetch from the L1I); its lines are line_bytes");
    v.integer("l0_assoc", l0_assoc, IntRange{1, 64}, "way", "L0 associativity");
    v.integer("l0_latency", l0_latency, IntRange{1, 2000}, "cycle",
              "L0 hit latency (an I-buffer fill); an L0 miss that hits the L1I costs latency");
    v.choice("prefetch", prefetch,
             "instruction prefetch into the first level: none; next_line (the prefetch_degree lines after a line "
             "that missed); stream (also after the first use of a prefetched line)");
    v.integer("prefetch_degree", prefetch_degree, IntRange{1, 16}, "line", "lines fetched ahead per prefetch");
  }
};

enum class L1dWrite : uint8_t { WriteEvict, WriteBack };
inline const Choices& choiceNames(L1dWrite) {
  static const Choices names{"write_evict", "write_back"};
  return names;
}

// The L1 data cache: a CacheConfig plus its MSHRs and write policies
// (model/mem/cache.h, l1d_memory.h).
struct L1dConfig : CacheConfig {
  uint32_t mshr_entries = 512;  // GPGPU-Sim SM7_QV100 gpgpu_cache:dl1 A:512:8
  uint32_t mshr_merge = 8;
  L1dWrite global_write = L1dWrite::WriteEvict;  // Volta: write-through, no allocate, evict on a hit
  L1dWrite local_write = L1dWrite::WriteBack;    // spills and stack: write-back, allocate
  // Kang et al.'s ALL-HIT baseline (docs/memory.md): every local access
  // (spills, fills, the stack) hits without traversing the cache: it pays
  // the hit latency and an access slot of the L1D port, and neither looks
  // up, fills nor evicts a line.
  bool local_all_hit = false;
  uint32_t ports = 1;  // line requests the L1D takes per cycle (Kang et al. Fig. 17 scale it 2x, 4x, 8x)
  // The L1D and shared memory as one array of size_kb + shared.size_kb KiB
  // (Volta: 32 + 96 = the 128 KB unified data cache of the CUDA C++
  // Programming Guide, compute capability 7.x), divided per launch by the
  // driver's carve-out (shared.carveout_kb, config/carveout.h): size_kb is
  // the L1D beside the largest carve-out and fixes the sets; a launch's L1D
  // takes the rest of the array in ways of the same sets. false: separate
  // arrays of size_kb and shared.size_kb.
  bool unified = true;

  template <class V> void visit(V& v) {
    CacheConfig::visit(v);
    v.integer("mshr_entries", mshr_entries, IntRange{1, 4096}, "entry", "miss status holding registers (one per line)");
    v.integer("mshr_merge", mshr_merge, IntRange{1, 64}, "request", "requests one MSHR entry holds, the first included");
    v.choice("global_write", global_write,
             "global stores: write-through without allocation, evicting a hit line; or write-back with allocation");
    v.choice("local_write", local_write, "local stores (spills, stack): as global_write");
    v.integer("ports", ports, IntRange{1, 16}, "request", "line requests the L1D accepts per cycle");
    v.boolean("local_all_hit", local_all_hit,
              "every local access hits without using the cache (hit latency and a port slot only): the ALL-HIT "
              "baseline of Kang et al.");
    v.boolean("unified", unified,
              "L1D and shared memory are one array of size_kb + shared.size_kb, divided per launch by the driver's "
              "carve-out (shared.carveout_kb): size_kb is the L1D beside the largest carve-out and gives the sets, "
              "and a launch's L1D takes what its shared capacity leaves, in whole ways of those sets; false: "
              "separate arrays of size_kb and shared.size_kb");
  }
};

struct SharedMemConfig {
  uint32_t size_kb = 96;
  uint32_t num_banks = 32;
  uint32_t latency = 19;  // V100: Jia et al. 2018 measure 19 cycles; GPGPU-Sim SM7_QV100 smem_latency 19
  uint32_t pass_cycles = 1;
  uint32_t max_per_block_kb = 96;  // V100 with the opt-in attribute; 0: a block may take the whole SM's
  // The shared-memory capacities the driver may give a launch out of the
  // unified array (l1d.unified), ascending; the largest is size_kb.
  // Volta: 0, 8, 16, 32, 64 or 96 KB (CUDA C++ Programming Guide, compute
  // capability 7.x, "Shared Memory"). Separate arrays: one, size_kb.
  std::vector<uint32_t> carveout_kb{0, 8, 16, 32, 64, 96};

  template <class V> void visit(V& v) {
    v.integer("size_kb", size_kb, IntRange{0, 1024}, "KiB",
              "shared memory per SM; with l1d.unified, the largest carve-out (what the device reports and the "
              "back end plans for)");
    v.integers("carveout_kb", carveout_kb, IntRange{0, 1024}, "KiB",
               "the shared-memory capacities the driver chooses from per launch, ascending (the smallest that keeps "
               "the kernel's full occupancy, or the application's preferred carve-out; docs/memory.md); one "
               "(size_kb) without l1d.unified");
    v.integer("max_per_block_kb", max_per_block_kb, IntRange{0, 1024}, "KiB",
              "shared memory one block may use (0: the SM's size_kb)");
    v.integer("num_banks", num_banks, IntRange{1, 64}, "bank", "shared memory banks");
    v.integer("latency", latency, IntRange{1, 1000}, "cycle", "access latency without conflicts");
    v.integer("pass_cycles", pass_cycles, IntRange{1, 64}, "cycle",
              "cycles per pass a bank conflict adds: an access takes one pass per 128-byte phase (1 for 4-byte "
              "lanes, 2 for 8, 4 for 16), a cycle each, and each further pass of a bank conflict takes pass_cycles; "
              "the passes are serial, add to the latency and hold the LD/ST unit (as GPGPU-Sim's LD/ST unit stalls "
              "for each further pass)");
  }
};

// How an L2 slice picks a line's set (mem/cache.h CacheParams::hashed_sets).
enum class SetIndex : uint8_t { Linear, Ipoly };
inline const Choices& choiceNames(SetIndex) {
  static const Choices names{"linear", "ipoly"};
  return names;
}

struct L2Config {
  CacheConfig cache{6144, 24, 128, 120};
  uint32_t num_slices = 64;
  SetIndex set_index = SetIndex::Ipoly;  // SM7_QV100 gpgpu_cache:dl2 ...,L:B:m:L:P ('P': HASH_IPOLY_FUNCTION)
  uint32_t mshr_entries = 192;   // GPGPU-Sim SM7_QV100 gpgpu_cache:dl2 A:192:4, per slice
  uint32_t mshr_merge = 4;
  uint32_t bytes_per_cycle = 32;  // one 32-byte sector per slice per cycle

  template <class V> void visit(V& v) {
    cache.visit(v);
    v.integer("num_slices", num_slices, IntRange{1, 256}, "slice", "L2 slices (address-hashed)");
    v.choice("set_index", set_index,
             "a slice's set for a line: linear, the low bits of the line's number in the slice; ipoly, that number "
             "modulo an irreducible polynomial over GF(2), every higher bit XOR-folded in, so that lines a "
             "power-of-two stride apart (the same stack slot of every warp) spread over the sets");
    v.integer("mshr_entries", mshr_entries, IntRange{1, 4096}, "entry", "MSHR entries per slice");
    v.integer("mshr_merge", mshr_merge, IntRange{1, 64}, "request", "requests one L2 MSHR entry holds");
    v.integer("bytes_per_cycle", bytes_per_cycle, IntRange{1, 1024}, "byte",
              "data bandwidth of one slice per core cycle (a request occupies it bytes / this cycles)");
  }
};

// The crossbar between the SMs and the L2 slices.
struct IcntConfig {
  uint32_t latency = 22;          // one way, core cycles
  uint32_t bytes_per_cycle = 32;  // per SM port and per slice port, each direction

  template <class V> void visit(V& v) {
    v.integer("latency", latency, IntRange{0, 2000}, "cycle", "one-way latency of the crossbar, without queueing");
    v.integer("bytes_per_cycle", bytes_per_cycle, IntRange{1, 1024}, "byte",
              "bytes an SM port (replies) and a slice port (requests) move per core cycle");
  }
};

// The GPU's link to host memory (PCIe, or NVLink-C2C on a Grace Hopper):
// what a kernel's loads, stores and atomics to mapped host memory
// (cudaHostAlloc with cudaHostAllocMapped, cudaHostRegister with
// cudaHostRegisterMapped) cross instead of the L2 and DRAM (mem/tlm/host_link.h).
struct HostLinkConfig {
  double latency_ns = 1000.0;  // a read's round trip, without queueing
  double bytes_per_ns = 12.0;  // GB/s each direction, effective (after packet overhead)

  template <class V> void visit(V& v) {
    v.real("latency_ns", latency_ns, RealRange{0.0, 1000000.0}, "ns",
           "round trip of a read from the GPU's end of the link to host memory and back, without queueing");
    v.real("bytes_per_ns", bytes_per_ns, RealRange{0.001, 100000.0}, "GB/s",
           "data the link moves per nanosecond in each direction, after packet overhead");
  }
};

enum class DramScheduler : uint8_t { FrFcfs, Fcfs };
inline const Choices& choiceNames(DramScheduler) {
  static const Choices names{"frfcfs", "fcfs"};
  return names;
}

// How a channel's line stripes (a row's worth of lines) map onto its banks
// (mem/tlm/dram_controller.cpp, DramController::place).
enum class DramBankMap : uint8_t { Rotate, Xor };
inline const Choices& choiceNames(DramBankMap) {
  static const Choices names{"rotate", "xor"};
  return names;
}

// A DRAM channel (mem/tlm/dram_channel.h): its bus, banks with row buffers
// and timings, and the controller's scheduler. The t_* timings are in DRAM
// clocks (clock_mhz). Defaults: V100's HBM2 at 850 MHz, GPGPU-Sim's
// SM7_QV100 gpgpu_dram_timing_opt (configs/v100.yaml cites each).
struct DramConfig {
  uint32_t num_channels = 32;
  double clock_mhz = 850.0;
  uint32_t bus_bytes = 32;  // bytes per channel per DRAM clock (both edges counted): V100 HBM2, 128-bit DDR
  uint32_t latency = 100;   // cycles of the core clock: controller and PHY, beyond the DRAM timing
  uint32_t banks = 16;
  uint32_t bank_groups = 4;
  uint32_t row_bytes = 2048;
  uint32_t t_rcd = 12;
  uint32_t t_rp = 12;
  uint32_t t_ras = 28;
  uint32_t t_cl = 12;
  uint32_t t_cwl = 2;
  uint32_t t_ccd_s = 1;
  uint32_t t_ccd_l = 2;
  uint32_t t_rrd = 3;
  uint32_t t_faw = 14;
  uint32_t t_wtr = 3;
  uint32_t t_rtw = 2;
  uint32_t t_wr = 10;
  uint32_t t_rtp = 3;
  uint32_t queue_depth = 64;
  DramScheduler scheduler = DramScheduler::FrFcfs;
  DramBankMap bank_map = DramBankMap::Xor;

  template <class V> void visit(V& v) {
    v.integer("num_channels", num_channels, IntRange{1, 64}, "channel", "DRAM channels");
    v.real("clock_mhz", clock_mhz, RealRange{1.0, 20000.0}, "MHz", "DRAM command clock");
    v.integer("bus_bytes", bus_bytes, IntRange{1, 256}, "byte", "bytes per channel per DRAM clock");
    v.integer("latency", latency, IntRange{1, 5000}, "cycle",
              "core cycles the memory controller and PHY add to every access, beyond the DRAM timing below");
    v.integer("banks", banks, IntRange{1, 64}, "bank", "banks per channel, each with one row buffer");
    v.integer("bank_groups", bank_groups, IntRange{1, 16}, "group",
              "bank groups per channel (bank b in group b % bank_groups); 1: none");
    v.integer("row_bytes", row_bytes, IntRange{32, 65536}, "byte", "row (page) size of a bank");
    v.integer("t_rcd", t_rcd, IntRange{0, 1000}, "DRAM clock", "tRCD: activate to column command");
    v.integer("t_rp", t_rp, IntRange{0, 1000}, "DRAM clock", "tRP: precharge to activate");
    v.integer("t_ras", t_ras, IntRange{0, 1000}, "DRAM clock", "tRAS: activate to precharge");
    v.integer("t_cl", t_cl, IntRange{0, 1000}, "DRAM clock", "CL: read command to its data");
    v.integer("t_cwl", t_cwl, IntRange{0, 1000}, "DRAM clock", "CWL: write command to its data");
    v.integer("t_ccd_s", t_ccd_s, IntRange{0, 1000}, "DRAM clock",
              "tCCD_S: column command to column command (the data bus is held at least this long)");
    v.integer("t_ccd_l", t_ccd_l, IntRange{0, 1000}, "DRAM clock",
              "tCCD_L: column command to column command in the same bank group");
    v.integer("t_rrd", t_rrd, IntRange{0, 1000}, "DRAM clock", "tRRD: activate to activate, any two banks");
    v.integer("t_faw", t_faw, IntRange{0, 10000}, "DRAM clock", "tFAW: at most four activates in this window");
    v.integer("t_wtr", t_wtr, IntRange{0, 1000}, "DRAM clock", "tWTR: end of write data to a read command");
    v.integer("t_rtw", t_rtw, IntRange{0, 1000}, "DRAM clock",
              "read-to-write turnaround: idle bus clocks between read data and write data");
    v.integer("t_wr", t_wr, IntRange{0, 1000}, "DRAM clock", "tWR: end of write data to precharge");
    v.integer("t_rtp", t_rtp, IntRange{0, 1000}, "DRAM clock", "tRTP: read command to precharge");
    v.integer("queue_depth", queue_depth, IntRange{1, 4096}, "request",
              "requests the controller holds for its scheduler; more wait for one to leave");
    v.choice("scheduler", scheduler,
             "frfcfs: row hits first, then the oldest (Rixner et al. 2000); fcfs: column commands in arrival order");
    v.choice("bank_map", bank_map,
             "rotate: bank = (stripe + row) mod banks; xor: the stripe's bank bits XORed with every bank-sized digit "
             "of the row (permutation-based interleaving over all the row bits, Zhang et al. MICRO 2000)");
  }
};

}  // namespace rfsim::config
