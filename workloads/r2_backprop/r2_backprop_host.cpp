#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// Rodinia backprop: 16 hidden units (WIDTH), 16 input units per block
// (HEIGHT), one output unit; ETA and MOMENTUM are the kernel's.
constexpr int kHid = 16;
constexpr int kHeight = 16;
constexpr float kEta = 0.3f;
constexpr float kMomentum = 0.3f;

float squash(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// One training step of `in` input units: grid (1, in/16) of 16x16 blocks.
// Two launches: the layer forward, then (after the host has done the output
// layer and the errors, as Rodinia's bpnn_train_cuda does) the weight update.
Check trainStep(rt::Device& dev, int in) {
  const int blocks = in / kHeight;
  const size_t wcount = size_t(in + 1) * (kHid + 1);
  auto at = [](int row, int col) { return size_t(row) * (kHid + 1) + col; };
  Rng rng(201);
  std::vector<float> input(in + 1), weights(wcount), oldw(wcount), hidden_weights(kHid + 1);
  for (auto& v : input) v = rng.uniform(0.0f, 1.0f);
  for (auto& v : weights) v = rng.uniform(-0.1f, 0.1f);  // small: the hidden sums stay in the sigmoid's range
  for (auto& v : oldw) v = rng.uniform(-0.01f, 0.01f);
  for (auto& v : hidden_weights) v = rng.uniform(-1.0f, 1.0f);
  const float target = 0.1f;

  DeviceBuffer d_input(dev, input), d_weights(dev, weights), d_oldw(dev, oldw);
  DeviceBuffer d_output_hidden(dev, (kHid + 1) * sizeof(float));
  DeviceBuffer d_partial(dev, size_t(blocks) * kHid * sizeof(float));
  DeviceBuffer d_delta(dev, (kHid + 1) * sizeof(float));
  const rt::Dim3 grid{1, uint32_t(blocks)}, block{16, kHeight};
  dev.launch("r2_bpnn_layerforward", grid, block,
             rt::KernelArgs()
                 .ptr(d_input.addr())
                 .ptr(d_output_hidden.addr())
                 .ptr(d_weights.addr())
                 .ptr(d_partial.addr())
                 .i32(in)
                 .i32(kHid));
  std::vector<float> partial = d_partial.download<float>(size_t(blocks) * kHid);
  std::vector<float> reduced = d_weights.download<float>(wcount);

  // The layer forward multiplies in shared memory and adds along the same
  // tree (strides 1, 2, 4, 8), each operation rounded to float on its own:
  // this float reference reproduces the device bit for bit, the partial sums
  // and the reduced rows the kernel leaves in the weights.
  std::vector<float> ref_partial(size_t(blocks) * kHid), ref_reduced = weights;
  for (int by = 0; by < blocks; ++by) {
    for (int tx = 0; tx < kHid; ++tx) {
      float m[kHeight];
      for (int ty = 0; ty < kHeight; ++ty) {
        const int row = kHeight * by + ty + 1;
        m[ty] = weights[at(row, tx + 1)] * input[row];
      }
      for (int s = 1; s < kHeight; s *= 2)
        for (int ty = 0; ty < kHeight; ty += 2 * s) m[ty] = m[ty] + m[ty + s];
      for (int ty = 0; ty < kHeight; ++ty) ref_reduced[at(kHeight * by + ty + 1, tx + 1)] = m[ty];
      ref_partial[size_t(by) * kHid + tx] = m[0];
    }
  }
  Check fwd = compareExact(partial, ref_partial, "hidden partial sums (r2_bpnn_layerforward)");
  if (!fwd.passed) return fwd;
  Check red = compareExact(reduced, ref_reduced, "weights after the reduction (r2_bpnn_layerforward)");
  if (!red.passed) return red;

  // The host's part of bpnn_train_cuda, in float: hidden units from the
  // partial sums and the bias weights, the output unit, its error and the
  // hidden deltas. Only an input of the update below, not checked.
  std::vector<float> hidden(kHid + 1), delta(kHid + 1, 0.0f);
  hidden[0] = 1.0f;
  for (int j = 1; j <= kHid; ++j) {
    float sum = weights[at(0, j)];
    for (int k = 0; k < blocks; ++k) sum += partial[size_t(k) * kHid + j - 1];
    hidden[j] = squash(sum);
  }
  float out_sum = 0.0f;
  for (int j = 0; j <= kHid; ++j) out_sum += hidden_weights[j] * hidden[j];
  const float out = squash(out_sum);
  const float out_delta = out * (1.0f - out) * (target - out);
  for (int j = 1; j <= kHid; ++j) delta[j] = hidden[j] * (1.0f - hidden[j]) * hidden_weights[j] * out_delta;

  // As Rodinia, the original weights go up again before the update.
  d_weights.upload(weights);
  d_delta.upload(delta);
  dev.launch("r2_bpnn_adjust_weights", grid, block,
             rt::KernelArgs()
                 .ptr(d_delta.addr())
                 .i32(kHid)
                 .ptr(d_input.addr())
                 .i32(in)
                 .ptr(d_weights.addr())
                 .ptr(d_oldw.addr()));

  // nvcc compiles the change to fma(ETA * delta, ly, MOMENTUM * oldw) (the
  // bias row: fma(delta, ETA, MOMENTUM * oldw)) and w + change: with fmaf
  // the reference rounds the same operations and matches bit for bit.
  std::vector<float> ref_w = weights, ref_oldw = oldw;
  for (int row = 1; row <= in; ++row) {
    for (int col = 1; col <= kHid; ++col) {
      const float dw = std::fmaf(kEta * delta[col], input[row], kMomentum * oldw[at(row, col)]);
      ref_w[at(row, col)] = weights[at(row, col)] + dw;
      ref_oldw[at(row, col)] = dw;
    }
  }
  for (int col = 1; col <= kHid; ++col) {
    const float db = std::fmaf(delta[col], kEta, kMomentum * oldw[at(0, col)]);
    ref_w[at(0, col)] = weights[at(0, col)] + db;
    ref_oldw[at(0, col)] = db;
  }
  Check w = compareExact(d_weights.download<float>(wcount), ref_w, "weights (r2_bpnn_adjust_weights)");
  if (!w.passed) return w;
  Check o = compareExact(d_oldw.download<float>(wcount), ref_oldw, "previous weight changes");
  if (!o.passed) return o;
  o.detail = fmt::format("{} inputs x {} hidden, grid (1, {}) of 16x16, output {:.4f}: {}; {}; {}; {}", in, kHid,
                         blocks, out, fwd.detail, red.detail, w.detail, o.detail);
  return o;
}

// Small: 8192 input units: grid (1, 512) (6.4 blocks per SM of the V100);
// Large: Rodinia's default 65536, grid (1, 4096).
Check runR2Backprop(rt::Device& dev, Size size) { return trainStep(dev, size == Size::Small ? 8192 : 65536); }

// R2D2's Table 3 (section 5.8.1): backprop over the blocks per grid. The
// paper names the points BP_04 ... BP_64 and says "2^k input nodes"; 2^4
// nodes would be a single block, so we read BP_N as N x 1024 input units
// (BP_64 is Rodinia's default, 65536): grids of 256 to 4096 blocks. Both
// sizes run the same input.
template <int N> Check runBp(rt::Device& dev, Size) { return trainStep(dev, N * 1024); }

}  // namespace

RFSIM_WORKLOAD("r2_bp04", "r2_backprop with 4096 input units, grid (1, 256) (R2D2's Table 3: BP_04)",
               "workloads/r2_backprop/r2_backprop.ptx", {"r2d2-table3"}, runBp<4>);
RFSIM_WORKLOAD("r2_bp08", "r2_backprop with 8192 input units, grid (1, 512) (R2D2's Table 3: BP_08)",
               "workloads/r2_backprop/r2_backprop.ptx", {"r2d2-table3"}, runBp<8>);
RFSIM_WORKLOAD("r2_bp16", "r2_backprop with 16384 input units, grid (1, 1024) (R2D2's Table 3: BP_16)",
               "workloads/r2_backprop/r2_backprop.ptx", {"r2d2-table3"}, runBp<16>);
RFSIM_WORKLOAD("r2_bp32", "r2_backprop with 32768 input units, grid (1, 2048) (R2D2's Table 3: BP_32)",
               "workloads/r2_backprop/r2_backprop.ptx", {"r2d2-table3"}, runBp<32>);
RFSIM_WORKLOAD("r2_bp64", "r2_backprop with 65536 input units, grid (1, 4096) (R2D2's Table 3: BP_64)",
               "workloads/r2_backprop/r2_backprop.ptx", {"r2d2-table3"}, runBp<64>);

RFSIM_WORKLOAD("r2_backprop",
               "Rodinia backprop: layer forward with a shared-memory tree reduction and the weight update, "
               "16x16 blocks, grid (1, in/16) (R2D2 suite)",
               "workloads/r2_backprop/r2_backprop.ptx", {"r2d2", "rodinia", "multi-launch"}, runR2Backprop);

}  // namespace rfsim::workloads
