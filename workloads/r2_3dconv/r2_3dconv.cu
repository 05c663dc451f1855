// 3-D convolution in the style of PolyBench/GPU's 3DConvolution (R2D2
// suite): B = an 11-point stencil of A with fixed coefficients on an
// ni x nj x nk row-major volume (k fastest). The host launches the kernel
// once per interior i-plane; a launch's 2-D grid covers the (k, j) plane:
// x along k, y along j. Points on the volume's border are left as they are.
// Taps: the centre and the two (j, k) diagonal neighbours (-1,-1), (+1,+1)
// in the planes i-1 and i+1, and the five-point cross in the plane i.
extern "C" __global__ void r2_3dconv(int ni, int nj, int nk, float* A, float* B, int i) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;

  const float p0 = 0.2f, p1 = -0.35f, p2 = 0.15f;   // plane i-1: (j-1,k-1), (j,k), (j+1,k+1)
  const float m0 = -0.4f, m1 = 0.55f, m2 = -0.25f;  // plane i: (j-1,k), (j,k-1), (j,k)
  const float m3 = 0.45f, m4 = -0.65f;              // plane i: (j,k+1), (j+1,k)
  const float q0 = 0.7f, q1 = -0.1f, q2 = 0.3f;     // plane i+1: (j-1,k-1), (j,k), (j+1,k+1)

  if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1 && k > 0 && k < nk - 1) {
    B[i * (nj * nk) + j * nk + k] =
        p0 * A[(i - 1) * (nj * nk) + (j - 1) * nk + (k - 1)] + p1 * A[(i - 1) * (nj * nk) + j * nk + k] +
        p2 * A[(i - 1) * (nj * nk) + (j + 1) * nk + (k + 1)] + m0 * A[i * (nj * nk) + (j - 1) * nk + k] +
        m1 * A[i * (nj * nk) + j * nk + (k - 1)] + m2 * A[i * (nj * nk) + j * nk + k] +
        m3 * A[i * (nj * nk) + j * nk + (k + 1)] + m4 * A[i * (nj * nk) + (j + 1) * nk + k] +
        q0 * A[(i + 1) * (nj * nk) + (j - 1) * nk + (k - 1)] + q1 * A[(i + 1) * (nj * nk) + j * nk + k] +
        q2 * A[(i + 1) * (nj * nk) + (j + 1) * nk + (k + 1)];
  }
}
