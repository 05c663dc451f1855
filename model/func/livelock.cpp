// The livelock proof (executor.h, armProofs): a warp whose whole state comes
// back within one epoch repeats forever, because between two backward
// branches a warp's execution depends only on its own state and on memory
// that, within the epoch, nobody has written.
//
// What the hash covers is everything a warp's next instructions read of its
// own: the SIMT stack, the call frames, the registers of every frame, the
// local memory, the carry flags and the lanes that have exited. Shared and
// global memory, the parameters and the constants are inputs that do not
// change within an epoch; %clock moves, so a warp that reads it never
// repeats and is left to the livelock window (pipeline.livelock_cycles).
// Brent's algorithm finds the cycle from one saved state: the saved state is
// replaced each time the count of samples since it reaches a power of two,
// so a cycle of k samples is found within about 3k samples of entering it.
// Once 2047 samples have shown no repeat, a warp is sampled at a quarter of
// its rate each further 2047 samples, so that a long computation costs about
// 2047 hashes per factor of 4 in its length.
// A 64-bit hash stands in for the state; two different states would have
// to collide for a proof to be wrong.
#include <functional>
#include <string_view>

#include "func/executor.h"

namespace rfsim::func {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  // boost::hash_combine's step, on 64 bits.
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 12) + (h >> 4));
}

template <class T>
uint64_t bytesHash(const std::vector<T>& v) {
  return std::hash<std::string_view>{}(
      std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)));
}

}  // namespace

uint64_t BlockExecutor::stateHash(const Warp& w) const {
  uint64_t h = mix(bytesHash(w.regs), bytesHash(w.local));
  h = mix(h, w.carry);
  h = mix(h, w.exited);
  for (const SimtEntry& e : w.stack) {
    h = mix(h, e.pc);
    h = mix(h, e.rpc);
    h = mix(h, (uint64_t{e.mask} << 1) | e.call);
  }
  for (const Frame& f : w.frames) {
    h = mix(h, reinterpret_cast<uintptr_t>(f.fn));
    h = mix(h, (uint64_t{f.reg_base} << 32) | f.stack_base);
    h = mix(h, (uint64_t{f.stack_top} << 32) | f.caller_stack_base);
    h = mix(h, reinterpret_cast<uintptr_t>(f.call));
  }
  return h;
}

void BlockExecutor::armProofs(bool on) {
  armed_ = on;
  watch_.assign(on ? nwarps_ : 0, CycleWatch{});
}

void BlockExecutor::sampleCycle(const Warp& w) {
  CycleWatch& c = watch_[w.id];
  const uint64_t dev = *dev_writes_;
  if (c.dev != dev || c.blk != block_events_) {
    c = CycleWatch{};
    c.dev = dev;
    c.blk = block_events_;
  }
  if (c.proven || ++c.skip < c.every) return;
  c.skip = 0;
  const uint64_t h = stateHash(w);
  if (c.fresh) {
    c.saved = h;
    c.fresh = false;
  } else if (h == c.saved) {
    c.proven = true;
  } else if (++c.steps == c.power) {
    c.saved = h;
    c.steps = 0;
    if (c.power < kMaxPower) {
      c.power *= 2;
    } else if (c.every < (1u << 24)) {
      // 2047 samples without a repeat: a computation rather than a spin.
      // From here on every 4th sample of the last rate only: the states
      // one in `every` backward branches apart follow each other just as
      // deterministically, so a cycle still shows, at a quarter the cost.
      c.every *= 4;
      c.power = 1;
      c.fresh = true;
    }
  }
}

bool BlockExecutor::allCycling() const {
  if (!armed_) return false;
  const uint64_t dev = *dev_writes_;
  bool any = false;
  for (uint32_t i = 0; i < nwarps_; ++i) {
    const Warp& w = warps_[i];
    if (w.state == WarpState::Done) continue;
    const CycleWatch& c = watch_[i];
    const bool proven = c.proven && c.dev == dev && c.blk == block_events_;
    if (proven) {
      any = true;
    } else if (w.state != WarpState::Blocked) {
      return false;
    }
  }
  return any;
}

}  // namespace rfsim::func
