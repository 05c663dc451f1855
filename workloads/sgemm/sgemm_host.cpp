#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

Check runSgemm(rt::Device& dev, Size size) {
  // Small is deliberately not a multiple of the 16 x 16 tile, so the guarded
  // loads and the partial tiles are exercised: 5 x 5 blocks, 7 K-tiles.
  // Large: 256 x 256 x 256, 16 x 16 blocks of 16 x 16 threads (the speed
  // benchmark's SGEMM, scripts/bench_gpu.sh).
  const int M = size == Size::Small ? 72 : 256;
  const int N = size == Size::Small ? 80 : 256;
  const int K = size == Size::Small ? 100 : 256;
  const float alpha = 1.5f, beta = -0.5f;
  Rng rng(4);
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
  for (auto& v : A) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : B) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : C) v = rng.uniform(-1.0f, 1.0f);

  DeviceBuffer d_A(dev, A), d_B(dev, B), d_C(dev, C);
  const uint32_t tile = 16;
  dev.launch("sgemm_tiled", {ceilDiv(N, tile), ceilDiv(M, tile)}, {tile, tile},
             rt::KernelArgs().i32(M).i32(N).i32(K).f32(alpha).ptr(d_A.addr()).ptr(d_B.addr()).f32(beta).ptr(
                 d_C.addr()));

  std::vector<double> ref(size_t(M) * N);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
      ref[size_t(i) * N + j] = alpha * acc + beta * C[size_t(i) * N + j];
    }
  }
  // A float dot product of K terms in [-1, 1] errs by up to about K ulps of
  // its partial sums; elements near zero make a purely relative bound
  // meaningless, hence the absolute part scaled with K.
  const double atol = 2e-6 * K;
  return compareFloats(d_C.download<float>(size_t(M) * N), ref, 1e-4, atol,
                       fmt::format("elements of C ({}x{}x{})", M, N, K));
}

}  // namespace

RFSIM_WORKLOAD("sgemm", "C = alpha*A*B + beta*C with 16x16 shared-memory tiles", "workloads/sgemm/sgemm.ptx",
               {"shared", "barrier", "compute"}, runSgemm);

}  // namespace rfsim::workloads
