// 2-D convolution in the style of PolyBench/GPU's 2DConvolution (R2D2
// suite): B = a fixed 3 x 3 stencil of A on an ni x nj row-major image, one
// thread per output element. The stencil's nine coefficients are constants of
// the kernel; points on the image's border are left as they are in B.
// 2-D grid: x along the columns j, y along the rows i.
extern "C" __global__ void r2_2dconv(int ni, int nj, float* A, float* B) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  const float w00 = 0.125f, w01 = -0.25f, w02 = 0.375f;
  const float w10 = -0.5f, w11 = 0.625f, w12 = -0.75f;
  const float w20 = 0.3f, w21 = -0.6f, w22 = 0.9f;

  if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1) {
    B[i * nj + j] = w00 * A[(i - 1) * nj + (j - 1)] + w01 * A[(i - 1) * nj + j] + w02 * A[(i - 1) * nj + (j + 1)] +
                    w10 * A[i * nj + (j - 1)] + w11 * A[i * nj + j] + w12 * A[i * nj + (j + 1)] +
                    w20 * A[(i + 1) * nj + (j - 1)] + w21 * A[(i + 1) * nj + j] + w22 * A[(i + 1) * nj + (j + 1)];
  }
}
