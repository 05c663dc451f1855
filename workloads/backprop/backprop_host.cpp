#include <cmath>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// Rodinia backprop: 16 hidden units, one 16x16 block per 16 input units,
// learning rate and momentum of its bpnn_adjust_weights.
constexpr int kHid = 16;
constexpr int kBlock = 16;
constexpr float kEta = 0.3f;
constexpr float kMomentum = 0.3f;

Check runBackprop(rt::Device& dev, Size size) {
  // Rodinia's default input layer is 65536 units; Small keeps 16 blocks.
  const int in = size == Size::Small ? 256 : 65536;
  const int blocks = in / kBlock;
  const size_t wcount = size_t(in + 1) * (kHid + 1);
  Rng rng(11);
  std::vector<float> input(in + 1), weights(wcount), oldw(wcount), delta(kHid + 1);
  for (auto& v : input) v = rng.uniform(0.0f, 1.0f);
  for (auto& v : weights) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : oldw) v = rng.uniform(-0.05f, 0.05f);
  for (auto& v : delta) v = rng.uniform(-0.1f, 0.1f);

  DeviceBuffer d_input(dev, input), d_weights(dev, weights), d_oldw(dev, oldw), d_delta(dev, delta);
  DeviceBuffer d_partial(dev, size_t(blocks) * kHid * sizeof(float));
  const rt::Dim3 grid{1, uint32_t(blocks)}, block{kBlock, kBlock};
  dev.launch("bpnn_layerforward", grid, block,
             rt::KernelArgs().ptr(d_input.addr()).ptr(d_weights.addr()).ptr(d_partial.addr()).i32(kHid));
  dev.launch("bpnn_adjust_weights", grid, block,
             rt::KernelArgs()
                 .ptr(d_delta.addr())
                 .i32(kHid)
                 .ptr(d_input.addr())
                 .ptr(d_weights.addr())
                 .ptr(d_oldw.addr())
                 .f32(kEta)
                 .f32(kMomentum));

  // Layer forward: each product is rounded to float when it is stored to
  // shared memory, and the adds follow the same tree (stride 1, 2, 4, 8), so
  // the float reference below reproduces the device bit for bit.
  auto at = [](int row, int col) { return size_t(row) * (kHid + 1) + col; };
  std::vector<float> ref_partial(size_t(blocks) * kHid);
  for (int by = 0; by < blocks; ++by) {
    for (int tx = 0; tx < kHid; ++tx) {
      float m[kBlock];
      for (int ty = 0; ty < kBlock; ++ty) {
        int row = kBlock * by + ty + 1;
        m[ty] = weights[at(row, tx + 1)] * input[row];
      }
      for (int s = 1; s < kBlock; s *= 2)
        for (int ty = 0; ty < kBlock; ty += 2 * s) m[ty] += m[ty + s];
      ref_partial[size_t(by) * kHid + tx] = m[0];
    }
  }
  Check fwd = compareExact(d_partial.download<float>(ref_partial.size()), ref_partial,
                           "hidden partial sums (bpnn_layerforward)");
  if (!fwd.passed) return fwd;

  // Weight update: nvcc contracts eta*delta*ly + momentum*oldw into an fma
  // and the reference does not, so the change may differ in its last bit,
  // and w + change rounds once more; with |w| <= 1.1 that is a few 1e-7.
  std::vector<double> ref_w(weights.begin(), weights.end()), ref_oldw(oldw.begin(), oldw.end());
  for (int row = 0; row <= in; ++row) {
    for (int col = 1; col <= kHid; ++col) {
      double ly = row == 0 ? 1.0 : input[row];  // the bias row sees a constant input of 1
      double dw = double(kEta) * delta[col] * ly + double(kMomentum) * oldw[at(row, col)];
      ref_w[at(row, col)] += dw;
      ref_oldw[at(row, col)] = dw;
    }
  }
  Check w = compareFloats(d_weights.download<float>(wcount), ref_w, 1e-6, 1e-6, "weights (bpnn_adjust_weights)");
  if (!w.passed) return w;
  Check o = compareFloats(d_oldw.download<float>(wcount), ref_oldw, 1e-6, 1e-6, "previous weight changes");
  if (!o.passed) return o;
  o.detail = fmt::format("{} inputs x {} hidden, {} blocks of 16x16: {}; {}; {}", in, kHid, blocks, fwd.detail,
                         w.detail, o.detail);
  return o;
}

}  // namespace

RFSIM_WORKLOAD("backprop",
               "Rodinia-style backprop layer forward and weight update: 16x16 blocks, 2D linear index arithmetic",
               "workloads/backprop/backprop.ptx", {"shared", "barrier", "multi-launch", "linear-index"}, runBackprop);

}  // namespace rfsim::workloads
