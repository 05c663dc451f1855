#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kRates = 32;  // NR in the kernel

Check runLibor(rt::Device& dev, Size size) {
  // Small: 16384 paths (128 blocks of 128), 1 step; Large: 262144 paths,
  // 16 steps (half the rates fixed before the swaptions expire).
  const int npath = size == Size::Small ? 16384 : 262144;
  const int nsteps = size == Size::Small ? 1 : 16;
  const float delta = 0.25f;
  Rng rng(31);
  // Volatilities falling with the distance to the current step, a gently
  // rising initial curve, and strikes around the forward swap rates.
  std::vector<float> lambda(kRates), L0(kRates), swaprate(kRates);
  for (int n = 0; n < kRates; ++n) {
    lambda[n] = 0.2f - 0.004f * float(n) + rng.uniform(-0.01f, 0.01f);
    L0[n] = 0.05f + 0.0005f * float(n) + rng.uniform(-0.002f, 0.002f);
    swaprate[n] = 0.05f + rng.uniform(-0.006f, 0.006f);
  }
  // Standard normal increments by Box-Muller on the generator's floats.
  std::vector<float> z(size_t(npath) * nsteps);
  for (size_t i = 0; i < z.size(); i += 2) {
    const double u1 = (double(rng.next32() >> 8) + 1.0) / 16777217.0, u2 = double(rng.next32() >> 8) / 16777216.0;
    const double r = std::sqrt(-2.0 * std::log(u1)), a = 2.0 * M_PI * u2;
    z[i] = float(r * std::cos(a));
    if (i + 1 < z.size()) z[i + 1] = float(r * std::sin(a));
  }
  dev.memcpyHtoD(dev.symbolAddress("c_lambda"), lambda.data(), kRates * sizeof(float));
  dev.memcpyHtoD(dev.symbolAddress("c_L0"), L0.data(), kRates * sizeof(float));
  dev.memcpyHtoD(dev.symbolAddress("c_swaprate"), swaprate.data(), kRates * sizeof(float));
  DeviceBuffer d_z(dev, z), d_payoff(dev, size_t(npath) * sizeof(float)), d_last(dev, size_t(npath) * sizeof(float));
  const uint32_t block = 128;
  dev.launch("lt_libor_path", {ceilDiv(npath, block)}, {block},
             rt::KernelArgs().ptr(d_z.addr()).ptr(d_payoff.addr()).ptr(d_last.addr()).i32(npath).i32(nsteps).f32(delta));

  // The same model in double.
  std::vector<double> want_payoff(npath), want_last(npath);
  const double d = delta;
  for (int p = 0; p < npath; ++p) {
    double L[kRates];
    for (int n = 0; n < kRates; ++n) L[n] = L0[n];
    for (int i = 0; i < nsteps; ++i) {
      const double sqez = std::sqrt(d) * z[size_t(i) * npath + p];
      double v = 0.0;
      for (int n = i + 1; n < kRates; ++n) {
        const double lam = lambda[n - i - 1], con1 = d * lam;
        v += con1 * L[n] / (1.0 + d * L[n]);
        L[n] *= std::exp(con1 * v + lam * (sqez - 0.5 * con1));
      }
    }
    double b = 1.0, s = 0.0, value = 0.0;
    for (int n = nsteps; n < kRates; ++n) {
      b /= 1.0 + d * L[n];
      s += d * b;
      const double swapval = b + swaprate[n] * s - 1.0;
      if (swapval < 0.0) value -= 100.0 * swapval;
    }
    for (int n = 0; n < nsteps; ++n) value /= 1.0 + d * L[n];
    want_payoff[p] = value;
    want_last[p] = L[kRates - 1];
  }
  // The rates: a few dozen float operations each, about 1e-6 relative (expf
  // is within 2 ulps). The portfolio sums up to 28 swaptions of size 100 *
  // |swap value| ~ 1 each, so its absolute error is about 100 * 28 * 1e-6;
  // a swaption at the money (swap value within that of 0) is paid in one
  // and not in the other, which moves the sum by as little.
  Check c = compareFloats(d_last.download<float>(npath), want_last, 1e-5, 1e-7,
                          fmt::format("last forward rates ({} paths, {} step(s), {} rates)", npath, nsteps, kRates));
  if (!c.passed) return c;
  Check v = compareFloats(d_payoff.download<float>(npath), want_payoff, 1e-4, 5e-3, "portfolio values");
  if (!v.passed) return v;
  c.detail += "; " + v.detail;
  return c;
}

}  // namespace

RFSIM_WORKLOAD("lt_libor",
               "LIBOR market model Monte Carlo: one path per thread, 32 forward rates in registers, swaption portfolio (LTRF suite)",
               "workloads/lt_libor/lt_libor.ptx", {"ltrf", "regsens", "constant", "sfu", "compute"}, runLibor);

}  // namespace rfsim::workloads
