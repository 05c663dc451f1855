// Microbenchmark for RegDem's compile-time predictor (paper eq. 3): f(occupancy),
// the throughput of compute-bound code at a given occupancy, which the paper
// "determined empirically" and does not give (docs/regdem.md).
// Every thread runs one chain of dependent FMAs, `iters` passes of UNROLL, and
// touches memory only before and after the loop, so the SM's issue rate is
// set by how many warps are resident to hide the FMA latency. The occupancy is
// varied from outside without changing the code: the back end's register
// count is padded (compiler.reserved_registers; scripts/regdem_f_occupancy.sh)
// and the kernel is launched with blocks of 64, 128 and 256 threads.

#define UNROLL 32

extern "C" __global__ void __launch_bounds__(256) occ_fma(const float* __restrict__ in, float* __restrict__ out,
                                                          int iters, float b) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[t & 255];
  // The addend comes from memory, so it lives in a register for the whole
  // loop (a kernel parameter would be a constant-bank operand, and an FMA
  // may read only one of those).
  const float c = in[(t + 1) & 255] * 0.001f;
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) x = fmaf(x, b, c);
  }
  out[t] = x;
}
