// Peak FP32 issue rate: every thread runs 8 independent chains of FMAs, so a
// warp always has an FMA whose operands are ready (8 chains against any
// configuration's FMA latency of at most 6 cycles) and the SM's rate is set
// by its FP32 units, schedulers and collectors, not by latency. The host
// launches a whole wave of the blocks the SMs hold, twice, with `iters` 2 and
// 6: the difference of the two launches' FP32 warp instructions over the
// difference of their cycles is the steady-state rate, start and end
// cancelled (as tests/sm_core/test_fp32_rate.cpp measures it on a hand-made
// kernel).

#define UNROLL 8

extern "C" __global__ void __launch_bounds__(256) fma_peak(const float* __restrict__ in, float* __restrict__ out,
                                                           int iters, float b) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) x[k] = in[(t + k) & 255];
  // The addend comes from memory (a register): an FMA may read only one
  // constant-bank operand, and b is one.
  const float c = in[(t + 8) & 255] * 0.001f;
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
      for (int k = 0; k < 8; ++k) x[k] = fmaf(x[k], b, c);
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += x[k];
  out[t] = s;
}
