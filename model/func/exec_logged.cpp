// The global loads, stores and atomics of a block that runs beside other
// blocks of its launch (BlockExecutor::setLog; parallel_blocks.cpp): what it
// reads and writes goes to its BlockLog (block_log.h). On one thread log_
// is null and none of this runs.
#include <algorithm>
#include <cstring>

#include "func/executor.h"

namespace rfsim::func {

using ptx::Space;

namespace {

// A lane's address that reaches global memory (or host memory mapped into
// the device): global space, or a generic address below the windows of
// code, parameters, shared and local memory. Constant memory is left out:
// kernels never write it.
inline bool globalAddress(Space s, uint64_t addr) {
  return s == Space::Global || ((s == Space::Generic || s == Space::None) && addr < kCodeWindow);
}

// The bytes the global lanes of an access of `bytes` per lane reach: each
// run of lanes whose ranges touch, in lane order, to `emit(lo, hi)` (a warp
// over two rows of a tile gives two runs, not the rows between), and their
// hull in [lo, hi); false when no lane is global.
template <class Emit>
bool globalSpan(Space s, const uint64_t* p, uint32_t stride, uint64_t add, uint32_t act, unsigned bytes,
                uint64_t& lo, uint64_t& hi, Emit&& emit) {
  if (s != Space::Global && s != Space::Generic && s != Space::None) return false;
  lo = ~0ull, hi = 0;
  uint64_t rlo = 0, rhi = 0;
  bool run = false;
  for (uint32_t m = act; m; m &= m - 1) {
    const uint64_t x = p[__builtin_ctz(m) * stride] + add;
    if (!globalAddress(s, x)) continue;
    lo = std::min(lo, x);
    hi = std::max(hi, x + bytes);
    if (run && x <= rhi && x + bytes >= rlo) {
      rlo = std::min(rlo, x);
      rhi = std::max(rhi, x + bytes);
      continue;
    }
    if (run) emit(rlo, rhi);
    rlo = x, rhi = x + bytes, run = true;
  }
  if (run) emit(rlo, rhi);
  return hi > lo;
}

}  // namespace

uint8_t* BlockExecutor::logLoad(Space space, const Column& a, uint32_t act, unsigned bytes, uint8_t* base) {
  if (!log_->speculative()) return base;  // no block before this one is running
  uint64_t lo, hi;
  if (!globalSpan(space, a.p, a.stride, a.add, act, bytes, lo, hi,
                  [&](uint64_t l, uint64_t h) { log_->noteRead(l, h); }))
    return base;
  return log_->ownWrites(lo, hi) ? nullptr : base;
}

const uint8_t* BlockExecutor::logLoadLane(Space space, uint64_t addr, const uint8_t* p, unsigned bytes,
                                          uint8_t* buf) {
  if (!log_->speculative() || !globalAddress(space, addr) || !log_->ownWrites(addr, addr + bytes)) return p;
  log_->overlay(addr, p, buf, bytes);
  return buf;
}

uint8_t* BlockExecutor::logStore(Space space, const Column& a, uint32_t act, unsigned bytes, uint8_t* base) {
  staged_.lanes = 0;
  staged_.n = bytes;
  uint64_t lo, hi;
  if (!globalSpan(space, a.p, a.stride, a.add, act, bytes, lo, hi,
                  [&](uint64_t l, uint64_t h) { log_->noteWrite(l, h); }))
    return base;
  return log_->speculative() ? nullptr : base;
}

uint8_t* BlockExecutor::logStoreLane(Space space, uint64_t addr, uint8_t* p, [[maybe_unused]] unsigned bytes, uint32_t lane) {
  if (!log_->speculative() || !globalAddress(space, addr)) return p;
  staged_.lanes |= 1u << lane;
  staged_.addr[lane] = addr;
  return staged_.bytes[lane].data();
}

void BlockExecutor::logStoreDone() {
  // In lane order: the last of the lanes storing to one address wins.
  for (uint32_t m = staged_.lanes; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    log_->store(staged_.addr[l], staged_.bytes[l].data(), staged_.n);
  }
  staged_.lanes = 0;
}

bool BlockExecutor::logAtomic(const DInstr& d, Space space, uint64_t addr, uint64_t b, uint64_t c) {
  if (!globalAddress(space, addr)) return false;
  log_->noteWrite(addr, addr + d.bytes);
  if (!log_->speculative()) return false;  // the block updates memory itself
  // The old value depends on the blocks before this one: the block runs
  // again once they have committed (Program::blockOrderDependence keeps
  // such kernels on one thread, so this is a safety net).
  if (d.cls == Cls::Atom && d.dst[0].kind != DKind::None) throw NeedsSerial{};
  log_->reduce(addr, d.bytes, d.in->mods.atom, d.in->type, b, c);
  return true;
}

}  // namespace rfsim::func
