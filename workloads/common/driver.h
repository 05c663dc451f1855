// What every workload driver needs besides the runtime: reproducible inputs,
// device buffers that free themselves, and comparisons against a CPU
// reference that say in the Check what was compared.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "runtime/runtime.h"
#include "workloads/workload.h"

namespace rfsim::workloads {

// xorshift64* (Vigna 2016). The standard <random> distributions are
// implementation-defined, so inputs would differ between standard libraries;
// this generator and the conversions below are the same everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed ? seed : 0x9e3779b97f4a7c15ull) {}
  uint64_t next64() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545f4914f6cdd1dull;
  }
  uint32_t next32() { return static_cast<uint32_t>(next64() >> 32); }
  // [0, n), n > 0 (the modulo bias is irrelevant for test data).
  uint32_t below(uint32_t n) { return next32() % n; }
  // [lo, hi): 24 random mantissa bits, exact in float.
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * (static_cast<float>(next32() >> 8) * (1.0f / 16777216.0f));
  }

 private:
  uint64_t s_;
};

inline uint32_t ceilDiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// A device allocation that is freed when it goes out of scope, also when a
// launch throws.
class DeviceBuffer {
 public:
  DeviceBuffer(rt::Device& dev, size_t bytes) : dev_(dev), bytes_(bytes), addr_(dev.malloc(bytes)) {}
  template <typename T>
  DeviceBuffer(rt::Device& dev, const std::vector<T>& host) : DeviceBuffer(dev, host.size() * sizeof(T)) {
    dev_.memcpyHtoD(addr_, host.data(), bytes_);
  }
  ~DeviceBuffer() {
    try {
      dev_.free(addr_);
    } catch (...) {  // a destructor must not throw; the device is being torn down anyway
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  uint64_t addr() const { return addr_; }
  size_t bytes() const { return bytes_; }
  template <typename T>
  void upload(const std::vector<T>& host) {
    dev_.memcpyHtoD(addr_, host.data(), std::min(bytes_, host.size() * sizeof(T)));
  }
  template <typename T>
  std::vector<T> download(size_t count) const {
    std::vector<T> host(count);
    dev_.memcpyDtoH(host.data(), addr_, count * sizeof(T));
    return host;
  }
  void zero() { dev_.memset(addr_, 0, bytes_); }

 private:
  rt::Device& dev_;
  size_t bytes_;
  uint64_t addr_;
};

// Float results against a reference computed in double: element i passes when
// |got - ref| <= atol + rtol * |ref| (atol = rtol = 0: exactly equal). The
// detail reports the largest absolute and relative errors, or the first
// element that failed.
inline Check compareFloats(const std::vector<float>& got, const std::vector<double>& ref, double rtol,
                           double atol, const std::string& what) {
  Check c;
  if (got.size() != ref.size()) {
    c.detail = fmt::format("{}: {} results, expected {}", what, got.size(), ref.size());
    return c;
  }
  if (rtol == 0.0 && atol == 0.0) {
    for (size_t i = 0; i < got.size(); ++i) {
      if (!(double(got[i]) == ref[i])) {
        c.detail = fmt::format("{}: element {} is {:.9g}, expected exactly {:.9g}", what, i, got[i], ref[i]);
        return c;
      }
    }
    c.passed = true;
    c.detail = fmt::format("{} {}, exact match", got.size(), what);
    return c;
  }
  // The relative error alone says little where the expected value is near
  // zero, so the detail also gives the worst error as a share of its
  // element's tolerance.
  double max_abs = 0.0, max_rel = 0.0, worst_share = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], r = ref[i];
    double err = std::fabs(g - r);
    double tol = atol + rtol * std::fabs(r);
    if (!(err <= tol)) {  // also catches NaN
      c.detail = fmt::format("{}: element {} is {:.9g}, expected {:.9g} (|error| {:.3g} > {:g} + {:g}*|expected|)",
                             what, i, g, r, err, atol, rtol);
      return c;
    }
    max_abs = std::max(max_abs, err);
    if (r != 0.0) max_rel = std::max(max_rel, err / std::fabs(r));
    if (err > 0.0) worst_share = std::max(worst_share, err / tol);
  }
  c.passed = true;
  c.detail = fmt::format(
      "{} {}, max abs error {:.2g}, max rel error {:.2g}, worst element at {:.0f}% of its tolerance "
      "({:g} + {:g}*|expected|)",
      got.size(), what, max_abs, max_rel, 100.0 * worst_share, atol, rtol);
  return c;
}

// Results that must match exactly: integers, or floats whose operations and
// their order the reference reproduces.
template <typename T>
Check compareExact(const std::vector<T>& got, const std::vector<T>& ref, const std::string& what) {
  Check c;
  if (got.size() != ref.size()) {
    c.detail = fmt::format("{}: {} results, expected {}", what, got.size(), ref.size());
    return c;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != ref[i]) {
      c.detail = fmt::format("{}: element {} is {}, expected {}", what, i, got[i], ref[i]);
      return c;
    }
  }
  c.passed = true;
  c.detail = fmt::format("{} {}, exact match", got.size(), what);
  return c;
}

}  // namespace rfsim::workloads
