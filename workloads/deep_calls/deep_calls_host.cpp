#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// The device code of deep_calls.cu, on the host.
constexpr int kDepth = 8;
constexpr uint32_t kTableMask = 255;

uint32_t mix(uint32_t h, uint32_t v) {
  h ^= v;
  h *= 0x9E3779B1u;
  return h ^ (h >> 15);
}

uint32_t brev(uint32_t x) {
  uint32_t r = 0;
  for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
  return r;
}

// __funnelshift_l(lo, hi, s): the high word of (hi:lo) << (s & 31).
uint32_t funnelshiftL(uint32_t lo, uint32_t hi, unsigned s) {
  s &= 31;
  return s == 0 ? hi : (hi << s) | (lo >> (32 - s));
}

struct Ref {
  const std::vector<uint32_t>& table;
  uint64_t calls = 0;

  uint32_t level(int l, uint32_t x, uint32_t y) {
    ++calls;
    if (l == kDepth) return mix(x + l, y) ^ table[(x ^ y) & kTableMask];
    uint32_t a0 = x * 3u + l;
    uint32_t a1 = y ^ (x >> 3);
    uint32_t a2 = x + y * 5u;
    uint32_t a3 = brev(x) ^ y;
    uint32_t a4 = funnelshiftL(x, y, l);
    uint32_t a5 = (x | y) - (x & y);
    uint32_t a6 = table[(x + l) & kTableMask];
    uint32_t a7 = table[(y + 3u * l) & kTableMask];
    uint32_t a8 = table[(a0 ^ a1) & kTableMask];
    uint32_t a9 = table[(a2 + a3) & kTableMask];

    uint32_t r = level(l + 1, mix(a0, a6), mix(a1, a7));
    if (a8 & 1u) r ^= level(l + 1, mix(a2, r), a9);

    uint32_t h = r;
    for (uint32_t v : {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9}) h = mix(h, v);
    return h;
  }
};

Check runDeepCalls(rt::Device& dev, Size size) {
  const int n = size == Size::Small ? 256 : 16384;
  const int iters = size == Size::Small ? 2 : 8;
  Rng rng(41);
  std::vector<uint32_t> in(n), table(kTableMask + 1);
  for (auto& v : in) v = rng.next32();
  for (auto& v : table) v = rng.next32();

  DeviceBuffer d_in(dev, in), d_table(dev, table), d_out(dev, n * sizeof(uint32_t));
  const uint32_t block = 128;
  dev.launch("deep_calls", {ceilDiv(n, block)}, {block},
             rt::KernelArgs().ptr(d_in.addr()).ptr(d_table.addr()).ptr(d_out.addr()).i32(n).i32(iters));

  Ref ref_model{table};
  std::vector<uint32_t> ref(n);
  for (int i = 0; i < n; ++i) {
    uint32_t h = in[i];
    for (int it = 0; it < iters; ++it) h = ref_model.level(1, h, uint32_t(it));
    ref[i] = h;
  }
  Check c = compareExact(d_out.download<uint32_t>(n), ref,
                         fmt::format("hashes through an {}-deep call chain ({} iterations per thread)", kDepth, iters));
  c.detail += fmt::format("; {} device-function calls in all", ref_model.calls);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("deep_calls",
               "8-level chain of non-inlined calls keeping ten values live across each call (callee-saved spills)",
               "workloads/deep_calls/deep_calls.ptx", {"calls", "divergence", "spills"}, runDeepCalls,
               {"workloads/deep_calls/lib/deep_calls_lib.ptx"});

}  // namespace rfsim::workloads
