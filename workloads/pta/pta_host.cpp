#include <cstdint>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kWords = 4;                 // pta.cu's WORDS
constexpr int kObjects = 32 * kWords;     // variables 0..127 are the abstract objects
enum Kind { kAddr = 0, kCopy = 1, kLoad = 2, kStore = 3 };

struct Constraints {
  std::vector<int> kind, dst, src;
};

// A program of `vars` variables in modules of 64; most constraints stay in
// their module and use its share of the objects, a few cross modules, so
// the sets grow over several launches without all becoming full.
// Mix: 30% address-of, 40% copy, 18% load, 12% store.
Constraints makeConstraints(int vars, int count, Rng& rng) {
  Constraints c;
  constexpr int kModule = 64;
  const int modules = vars / kModule;
  auto var_in = [&](int m) {
    return rng.below(16) == 0 ? static_cast<int>(rng.below(vars)) : m * kModule + static_cast<int>(rng.below(kModule));
  };
  for (int i = 0; i < count; ++i) {
    int m = static_cast<int>(rng.below(modules));
    uint32_t r = rng.below(100);
    int kind = r < 30 ? kAddr : r < 70 ? kCopy : r < 88 ? kLoad : kStore;
    int p = var_in(m);
    int q = kind == kAddr ? (m * 8 + static_cast<int>(rng.below(12))) % kObjects : var_in(m);
    c.kind.push_back(kind);
    c.dst.push_back(p);
    c.src.push_back(q);
  }
  return c;
}

// Applies every constraint in turn until a pass adds nothing.
std::vector<uint32_t> solve(const Constraints& c, int vars, int& passes) {
  std::vector<uint32_t> pts(size_t(vars) * kWords, 0);
  auto unite = [&](int d, int s) {
    bool changed = false;
    for (int w = 0; w < kWords; ++w) {
      uint32_t before = pts[d * kWords + w];
      pts[d * kWords + w] |= pts[s * kWords + w];
      changed |= pts[d * kWords + w] != before;
    }
    return changed;
  };
  passes = 0;
  for (bool changed = true; changed; ++passes) {
    changed = false;
    for (size_t i = 0; i < c.kind.size(); ++i) {
      int p = c.dst[i], q = c.src[i];
      switch (c.kind[i]) {
        case kAddr: {
          uint32_t& word = pts[p * kWords + q / 32];
          uint32_t before = word;
          word |= 1u << (q % 32);
          changed |= word != before;
          break;
        }
        case kCopy:
          changed |= unite(p, q);
          break;
        case kLoad:
        case kStore: {
          int ptr = c.kind[i] == kLoad ? q : p;
          for (int o = 0; o < kObjects; ++o) {
            if (!(pts[ptr * kWords + o / 32] >> (o % 32) & 1u)) continue;
            changed |= c.kind[i] == kLoad ? unite(p, o) : unite(o, q);
          }
          break;
        }
      }
    }
  }
  return pts;
}

Check runPta(rt::Device& dev, Size size) {
  const int vars = size == Size::Small ? 384 : 8192;
  const int count = size == Size::Small ? 512 : 12288;
  Rng rng(2024);
  Constraints c = makeConstraints(vars, count, rng);

  DeviceBuffer d_kind(dev, c.kind), d_dst(dev, c.dst), d_src(dev, c.src);
  DeviceBuffer d_pts(dev, size_t(vars) * kWords * sizeof(uint32_t)), d_added(dev, sizeof(uint32_t));
  d_pts.zero();

  const uint32_t block = 128;  // pta.cu's BLOCK
  int launches = 0;
  uint64_t added_total = 0;
  for (;;) {
    if (launches > 64 * kObjects) {  // each launch that does not finish adds a bit; this is far past any input here
      return Check{false, fmt::format("no fixed point after {} launches", launches)};
    }
    dev.memset(d_added.addr(), 0, sizeof(uint32_t));
    dev.launch("pta_solve", {ceilDiv(count, block)}, {block},
               rt::KernelArgs()
                   .ptr(d_kind.addr())
                   .ptr(d_dst.addr())
                   .ptr(d_src.addr())
                   .ptr(d_pts.addr())
                   .ptr(d_added.addr())
                   .i32(count));
    ++launches;
    uint32_t added = 0;
    dev.memcpyDtoH(&added, d_added.addr(), sizeof added);
    if (added == 0) break;
    added_total += added;
  }

  int passes = 0;
  std::vector<uint32_t> ref = solve(c, vars, passes);
  uint64_t bits = 0;
  for (uint32_t w : ref) bits += __builtin_popcount(w);
  Check check = compareExact(d_pts.download<uint32_t>(ref.size()), ref, "points-to words");
  if (check.passed && added_total != bits) {
    check.passed = false;
    check.detail = fmt::format("the atomicOrs report {} bits added, the sets hold {}", added_total, bits);
  }
  if (check.passed) {
    int counts[4] = {0, 0, 0, 0};
    for (int k : c.kind) ++counts[k];
    check.detail = fmt::format(
        "{} variables ({} objects, {}-bit sets), {} constraints ({} addr, {} copy, {} load, {} store): "
        "fixed point after {} launches (CPU solver: {} passes), {} points-to facts (mean set {:.1f} of {}); against "
        "the CPU fixed-point solver: {}; the bits the atomicOrs newly set sum to that total",
        vars, kObjects, kObjects, count, counts[0], counts[1], counts[2], counts[3], launches, passes, bits,
        double(bits) / vars, kObjects, check.detail);
  }
  return check;
}

}  // namespace

RFSIM_WORKLOAD("pta",
               "Andersen-style points-to solver (address-of/copy/load/store constraints on 128-bit sets, atomicOr) "
               "with non-inlined helpers, call depth 8 (-rdc, weak linkage: full ABI)",
               "workloads/pta/pta.ptx", {"calls", "atomics", "divergence", "multi-launch"}, runPta,
               {"workloads/pta/lib/pta_lib.ptx"});

}  // namespace rfsim::workloads
