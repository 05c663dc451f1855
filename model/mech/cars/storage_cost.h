// Storage CARS adds to an SM (CARS paper, section IV-C), as a function of the
// warps per SM (W) and the warp-registers per SM (R), beside the storage the
// rename unit in rtl/cars_rename.sv actually holds.
//
// Paper, W = 64, R = 2048:
//   stalled-warp list      W x log2(W)        =   384 b =  48 B
//   free-register counters log2(R/W) x W      =   320 b =  40 B
//   RFP + RSP              2 x W x log2(R)    = 1 408 b = 176 B
//   total                                       2 112 b = 264 B
// The RTL also keeps each warp's Base, which the paper counts as baseline
// hardware, and leaves the stalled-warp list to the issue stage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rfsim::cars {

struct StorageItem {
  std::string name;         // "stalled-warp list"
  std::string formula;      // "W x log2(W) = 64 x 6"
  std::string description;  // what it holds and where it lives
  uint64_t bits = 0;
  double bytes = 0.0;       // bits / 8; fractional for tiny configurations
};

struct StorageCost {
  uint32_t warps = 0;           // W
  uint32_t warp_registers = 0;  // R
  std::vector<StorageItem> items;
  uint64_t total_bits = 0;
  double total_bytes = 0.0;
};

// The paper's three items and their total. W and R must be powers of two with
// W >= 1 and R >= W; anything else throws rfsim::Error.
StorageCost paperStorageCost(uint32_t warps, uint32_t warp_registers);

// Flops of the rename unit as the RTL is written: per warp Base, RFP, RSP
// (log2 R bits each), the free-register counter and the stack size K (FreeW
// = log2(R) bits each: any allotment, where the paper's log2(R/W) bits per
// warp are a pool shared by the resident warps); once per SM the base
// allotment F (log2 R bits).
struct RtlStorage {
  uint32_t warps = 0;           // NumWarps
  uint32_t warp_registers = 0;  // NumRegs
  uint32_t index_bits = 0;      // log2(R)
  uint32_t free_bits = 0;       // FreeW
  uint32_t flops_per_warp = 0;  // 3 x log2(R) + 2 x FreeW
  std::vector<StorageItem> items;  // Base, RFP + RSP, free-register counters, stack sizes, F
  uint64_t total_bits = 0;      // flops of the whole unit
  double total_bytes = 0.0;
};

// The RTL's legal parameters (rtl/cars_rename.sv assertions): W and R powers of
// two, W >= 2, FreeW >= 1 (R >= 2W); anything else throws rfsim::Error.
RtlStorage rtlStorage(uint32_t warps, uint32_t warp_registers);

// log2 of a power of two; throws rfsim::Error naming `what` otherwise.
uint32_t exactLog2(uint64_t value, const std::string& what);

}  // namespace rfsim::cars
