// The SM's resident warps: the blocks launched on it, each with its
// functional model (func::BlockStepper), and the warp slots their warps
// occupy. Sm::launch fills a block's slots; the SM frees a slot once its
// warp is done and nothing of it is in flight, and retires the block with
// its last slot. The stages find a warp's functional state through here.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "func/stepper.h"

namespace rfsim::sm {

struct WarpSlot {
  bool used = false;
  int32_t block = -1;           // the block's id (WarpSlots::block)
  uint32_t local = 0;           // warp index in its block
  uint32_t role = 0;            // WarpLaunchHook's tag
  uint32_t inflight = 0, mem_pending = 0;  // instructions issued and not written back, of them memory accesses
  uint64_t age = 0;             // launch order on this SM
};

struct ResidentBlock {
  std::unique_ptr<func::BlockStepper> stepper;
  std::vector<uint32_t> slots;  // warp slot of each warp of the block
  uint32_t live = 0;            // slots not yet freed
};

class WarpSlots {
 public:
  explicit WarpSlots(uint32_t max_warps) : slots_(max_warps) {}

  uint32_t size() const { return static_cast<uint32_t>(slots_.size()); }
  WarpSlot& operator[](uint32_t slot) { return slots_[slot]; }
  const WarpSlot& operator[](uint32_t slot) const { return slots_[slot]; }
  // Range-checked (std::out_of_range).
  const WarpSlot& at(uint32_t slot) const { return slots_.at(slot); }
  // The functional model of a used slot's block.
  func::BlockStepper& stepper(const WarpSlot& ws) const { return *blocks_[ws.block]->stepper; }

  // Block ids: reserve one for a block being launched, give it back when
  // the launch fails, place the block under it, retire it when its last
  // slot is freed (the id is reused).
  int32_t reserveBlock() {
    if (!free_ids_.empty()) {
      const int32_t id = free_ids_.back();
      free_ids_.pop_back();
      return id;
    }
    blocks_.emplace_back();
    return static_cast<int32_t>(blocks_.size() - 1);
  }
  void unreserveBlock(int32_t id) { free_ids_.push_back(id); }
  void placeBlock(int32_t id, std::unique_ptr<ResidentBlock> b) { blocks_[id] = std::move(b); }
  ResidentBlock& block(int32_t id) const { return *blocks_[id]; }
  // Whether block `id` is resident (not yet retired).
  bool blockLive(int32_t id) const { return blocks_[id] != nullptr; }
  // Calls f(ResidentBlock&) for every resident block.
  template <class F>
  void forEachBlock(F&& f) const {
    for (const std::unique_ptr<ResidentBlock>& b : blocks_)
      if (b) f(*b);
  }
  void retireBlock(int32_t id) {
    blocks_[id].reset();
    free_ids_.push_back(id);
  }

 private:
  std::vector<WarpSlot> slots_;
  std::vector<std::unique_ptr<ResidentBlock>> blocks_;  // indexed by block id; null when retired
  std::vector<int32_t> free_ids_;
};

}  // namespace rfsim::sm
