// Three matrix products in the style of PolyBench/GPU's 3MM (R2D2 suite):
//   E = A * B,  F = C * D,  G = E * F
// one kernel, out = in1 * in2 (row-major; in1: ni x nk, in2: nk x nj,
// out: ni x nj), launched three times by the host. One thread per output
// element, the sum accumulated in the output element itself as the original
// does. 2-D grid: x along the output's columns j, y along its rows i.
extern "C" __global__ void r2_3mm_kernel(int ni, int nj, int nk, float* in1, float* in2, float* out) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < ni && j < nj) {
    out[i * nj + j] = 0.0f;
    for (int k = 0; k < nk; k++) {
      out[i * nj + j] += in1[i * nk + k] * in2[k * nj + j];
    }
  }
}
