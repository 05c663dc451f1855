#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// Block tile of regpressure.cu: 16x16 threads, each 8 rows x 16 columns.
constexpr int kBM = 128, kBN = 256, kBK = 8;

Check runRegpressure(rt::Device& dev, Size size) {
  const int m = size == Size::Small ? 256 : 1024;
  const int n = size == Size::Small ? 256 : 1024;
  const int k = size == Size::Small ? 16 : 512;
  static_assert(kBM % 16 == 0 && kBN % 16 == 0, "tile");
  if (m % kBM || n % kBN || k % kBK) return Check{false, "sizes must be multiples of the block tile"};

  // Small integers, so every partial sum (|sum| <= 16 k <= 2^13) is exact in
  // float whatever the order of the fmas: the products can be compared bit
  // for bit, and a single wrong or missing term shows.
  Rng rng(43);
  std::vector<float> a(size_t(m) * k), b(size_t(k) * n);
  for (auto& v : a) v = float(int(rng.below(9)) - 4);
  for (auto& v : b) v = float(int(rng.below(9)) - 4);
  std::vector<float> ref(size_t(m) * n, 0.0f);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) ref[size_t(i) * n + j] += a[size_t(i) * k + p] * b[size_t(p) * n + j];

  DeviceBuffer d_a(dev, a), d_b(dev, b), d_c(dev, ref.size() * sizeof(float));
  std::string detail = fmt::format("C = A*B, {}x{}x{}, integer-valued floats", m, n, k);
  // The same product twice: without a register limit (no spills) and with
  // __launch_bounds__(256, 2) (128 registers, spills to local memory).
  for (const char* kernel : {"sgemm_regtile", "sgemm_regtile_2blocks"}) {
    d_c.zero();
    dev.launch(kernel, {uint32_t(n / kBN), uint32_t(m / kBM)}, {16, 16},
               rt::KernelArgs().ptr(d_a.addr()).ptr(d_b.addr()).ptr(d_c.addr()).i32(m).i32(n).i32(k));
    Check c = compareExact(d_c.download<float>(ref.size()), ref, fmt::format("elements of C ({})", kernel));
    if (!c.passed) return c;
    detail += "; " + c.detail;
  }
  return Check{true, detail};
}

}  // namespace

RFSIM_WORKLOAD("regpressure",
               "register-tiled SGEMM (8x16 outputs per thread, ~200 registers) and a 128-register variant that spills",
               "workloads/regpressure/regpressure.ptx", {"regpressure", "spills", "shared", "barrier", "multi-launch"},
               runRegpressure);

}  // namespace rfsim::workloads
