#include "mech/cars/storage_cost.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::cars {

namespace {

StorageItem item(std::string name, std::string formula, std::string description, uint64_t bits) {
  return StorageItem{std::move(name), std::move(formula), std::move(description), bits,
                     static_cast<double>(bits) / 8.0};
}

}  // namespace

uint32_t exactLog2(uint64_t value, const std::string& what) {
  if (value == 0 || (value & (value - 1)) != 0)
    throw Error(fmt::format("cars storage cost: {} = {} is not a power of two", what, value));
  uint32_t log = 0;
  while ((uint64_t{1} << log) < value) ++log;
  return log;
}

StorageCost paperStorageCost(uint32_t warps, uint32_t warp_registers) {
  const uint32_t lw = exactLog2(warps, "warps per SM (W)");
  const uint32_t lr = exactLog2(warp_registers, "warp-registers per SM (R)");
  if (warp_registers < warps)
    throw Error(fmt::format("cars storage cost: {} warp-registers per SM cannot give each of {} warps one",
                            warp_registers, warps));
  const uint32_t lfree = lr - lw;  // log2(R / W)
  const uint64_t w = warps;

  StorageCost c;
  c.warps = warps;
  c.warp_registers = warp_registers;
  // Section IV-C: space for all W warps is allocated even though they cannot
  // all be stalled at once.
  c.items.push_back(item("stalled-warp list", fmt::format("W x log2(W) = {} x {}", w, lw),
                         "IDs of the warps the issue stage has deactivated (per SM)", w * lw));
  // log2(R/W) x W grows monotonically with W, so the largest W is the maximum.
  c.items.push_back(item("free-register counters", fmt::format("log2(R/W) x W = {} x {}", lfree, w),
                         "free stack registers left to each warp (per warp)", w * lfree));
  c.items.push_back(item("RFP + RSP", fmt::format("2 x W x log2(R) = 2 x {} x {}", w, lr),
                         "register frame and stack pointers (per warp)", 2 * w * lr));
  for (const StorageItem& i : c.items) c.total_bits += i.bits;
  c.total_bytes = static_cast<double>(c.total_bits) / 8.0;
  return c;
}

RtlStorage rtlStorage(uint32_t warps, uint32_t warp_registers) {
  const uint32_t lw = exactLog2(warps, "NumWarps");
  const uint32_t lr = exactLog2(warp_registers, "NumRegs");
  if (warps < 2) throw Error(fmt::format("cars storage cost: NumWarps = {} must be >= 2", warps));
  if (lr < lw)
    throw Error(fmt::format("cars storage cost: NumRegs = {} must be at least NumWarps = {}", warp_registers, warps));
  const uint64_t w = warps;

  RtlStorage s;
  s.warps = warps;
  s.warp_registers = warp_registers;
  s.index_bits = lr;
  s.free_bits = lr;  // FreeW = log2(R): any allotment (rtl/cars_rename.sv)
  s.flops_per_warp = 3 * lr + 2 * s.free_bits;
  s.items.push_back(item("Base", fmt::format("W x log2(R) = {} x {}", w, lr),
                         "start of each warp's allotment (baseline hardware in the paper's count)", w * lr));
  s.items.push_back(item("RFP + RSP", fmt::format("2 x W x log2(R) = 2 x {} x {}", w, lr),
                         "register frame and stack pointers", 2 * w * lr));
  s.items.push_back(item("free-register counters", fmt::format("FreeW x W = {} x {}", s.free_bits, w),
                         "free stack registers left to each warp", w * s.free_bits));
  s.items.push_back(item("stack sizes K", fmt::format("FreeW x W = {} x {}", s.free_bits, w),
                         "each warp's circular stack size: where RSP and RFP wrap (overflow trap)",
                         w * s.free_bits));
  s.items.push_back(item("base allotment F", fmt::format("log2(R) = {}", lr),
                         "the launched kernel's FRU: where each warp's stack starts after Base (one per SM)", lr));
  for (const StorageItem& i : s.items) s.total_bits += i.bits;
  s.total_bytes = static_cast<double>(s.total_bits) / 8.0;
  return s;
}

}  // namespace rfsim::cars
