#include <algorithm>
#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr int kChunk = 16;  // K_ELEMS_PER_GRID in the kernel: samples per ComputeQ launch
constexpr double kPi = 3.14159265358979323846;

Check runR2Mriq(rt::Device& dev, Size size) {
  // Small: 49152 voxels (192 blocks of 256 for ComputeQ), 24 K-space
  // samples: one ComputePhiMag launch (1 block) and 2 ComputeQ launches
  // (chunks of 16 and 8 samples); Large: 131072 voxels (512 blocks),
  // 256 samples (1 + 16 launches).
  const int numX = size == Size::Small ? 49152 : 131072;
  const int numK = size == Size::Small ? 24 : 256;
  Rng rng(204);
  // Voxel coordinates in [-1/2, 1/2) of the field of view, K-space
  // coordinates in [-8, 8) cycles per field of view, coil values in [-1, 1).
  std::vector<float> x(numX), y(numX), z(numX), kx(numK), ky(numK), kz(numK), phiR(numK), phiI(numK);
  for (int i = 0; i < numX; ++i) {
    x[i] = rng.uniform(-0.5f, 0.5f);
    y[i] = rng.uniform(-0.5f, 0.5f);
    z[i] = rng.uniform(-0.5f, 0.5f);
  }
  for (int k = 0; k < numK; ++k) {
    kx[k] = rng.uniform(-8.0f, 8.0f);
    ky[k] = rng.uniform(-8.0f, 8.0f);
    kz[k] = rng.uniform(-8.0f, 8.0f);
    phiR[k] = rng.uniform(-1.0f, 1.0f);
    phiI[k] = rng.uniform(-1.0f, 1.0f);
  }

  DeviceBuffer d_phiR(dev, phiR), d_phiI(dev, phiI), d_phiMag(dev, numK * sizeof(float));
  const uint32_t block = 256;
  dev.launch("r2_mriq_phimag", {ceilDiv(numK, block)}, {block},
             rt::KernelArgs().ptr(d_phiR.addr()).ptr(d_phiI.addr()).ptr(d_phiMag.addr()).i32(numK));
  // The magnitudes come back to the host, which packs the samples' records.
  const std::vector<float> phiMag = d_phiMag.download<float>(numK);
  std::vector<float> records(size_t(numK) * 4);
  for (int k = 0; k < numK; ++k) {
    records[4 * k + 0] = kx[k];
    records[4 * k + 1] = ky[k];
    records[4 * k + 2] = kz[k];
    records[4 * k + 3] = phiMag[k];
  }

  DeviceBuffer d_x(dev, x), d_y(dev, y), d_z(dev, z), d_qr(dev, numX * sizeof(float)),
      d_qi(dev, numX * sizeof(float));
  d_qr.zero();
  d_qi.zero();
  const uint64_t ck = dev.symbolAddress("ck");
  for (int first = 0; first < numK; first += kChunk) {
    const int count = std::min(kChunk, numK - first);
    // As cudaMemcpyToSymbol would: this chunk's records into the constant array.
    dev.memcpyHtoD(ck, records.data() + size_t(first) * 4, size_t(count) * 4 * sizeof(float));
    dev.launch("r2_mriq_q", {ceilDiv(numX, block)}, {block},
               rt::KernelArgs()
                   .i32(numK)
                   .i32(first)
                   .ptr(d_x.addr())
                   .ptr(d_y.addr())
                   .ptr(d_z.addr())
                   .ptr(d_qr.addr())
                   .ptr(d_qi.addr())
                   .i32(numX));
  }

  // The magnitudes: two products and a sum, rounded at most three times,
  // of values below 1: within 3 u |phi|^2 of the exact value (u = 2^-24).
  const double u = std::ldexp(1.0, -24);
  double phi_sum = 0.0, max_k = 0.0;
  std::vector<double> mag(numK);
  for (int k = 0; k < numK; ++k) {
    mag[k] = double(phiR[k]) * phiR[k] + double(phiI[k]) * phiI[k];
    phi_sum += mag[k];
    max_k = std::max(max_k, std::fabs(double(kx[k])) + std::fabs(double(ky[k])) + std::fabs(double(kz[k])));
  }
  std::vector<double> ref(2 * size_t(numX));
  std::vector<float> got = d_qr.download<float>(numX), got_i = d_qi.download<float>(numX);
  got.insert(got.end(), got_i.begin(), got_i.end());
  for (int i = 0; i < numX; ++i) {
    double qr = 0.0, qi = 0.0;
    for (int k = 0; k < numK; ++k) {
      const double arg = 2.0 * kPi * (double(kx[k]) * x[i] + double(ky[k]) * y[i] + double(kz[k]) * z[i]);
      qr += mag[k] * std::cos(arg);
      qi += mag[k] * std::sin(arg);
    }
    ref[i] = qr;
    ref[numX + i] = qi;
  }
  Check c = compareFloats(phiMag, mag, 3 * u, 0.0, "magnitudes |phi|^2");
  if (!c.passed) return c;
  // Per sample: the turns Kx x + Ky y + Kz z, three roundings of partial
  // sums below max |K| * 1/2, are off by at most 3 u max|K| / 2 turns;
  // rint and the subtraction are exact; the multiplication by the rounded
  // 2 pi adds at most 2 u of a value below pi. So the phase is off by at
  // most e = 2 pi * 1.5 u max|K| + 2 pi u, the sine and cosine by e plus
  // the approximation's 2^-20.5, and the product with |phi|^2 (itself off
  // by 3u relative) by a further 4u relative. The float sums of numK terms
  // each add at most u times the partial sum, below sum |phi|^2. Summed:
  const double phase = 2.0 * kPi * (1.5 * u * max_k + u);
  const double atol = phi_sum * (phase + std::ldexp(1.0, -21) * std::sqrt(2.0) + 4.0 * u) + numK * u * phi_sum;
  c = compareFloats(got, ref, 0.0, atol, fmt::format("values of Qr and Qi ({} voxels, {} samples)", numX, numK));
  return c;
}

}  // namespace

RFSIM_WORKLOAD("r2_mriq",
               "Parboil mri-q (R2D2 suite): ComputePhiMag, then ComputeQ per chunk of K-space samples in "
               "__constant__ memory, one thread per voxel",
               "workloads/r2_mriq/r2_mriq.ptx", {"r2d2", "parboil", "constant", "sfu", "multi-launch"}, runR2Mriq);

}  // namespace rfsim::workloads
