// Speckle-reducing anisotropic diffusion on an image, the two-pass shape of
// the ultrasound-imaging benchmark:
//   srad_coeffs  per pixel: the four directional differences (north, south,
//                west, east, through precomputed neighbour index arrays that
//                clamp at the border), the normalised gradient and Laplacian,
//                the instantaneous coefficient of variation against the
//                speckle scale q0^2, and the diffusion coefficient clamped to
//                [0, 1]; differences and coefficient go to five arrays;
//   srad_update  per pixel: divergence from the own and the south/east
//                neighbours' coefficients, J += lambda/4 * divergence.
// Column-major rows x cols image, as in the original.

extern "C" __global__ void srad_coeffs(const float* __restrict__ J, const int* __restrict__ iN,
                                       const int* __restrict__ iS, const int* __restrict__ jW,
                                       const int* __restrict__ jE, float* __restrict__ dN, float* __restrict__ dS,
                                       float* __restrict__ dW, float* __restrict__ dE, float* __restrict__ C, int rows,
                                       int cols, float q0sqr) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= rows * cols) return;
  const int row = k % rows;
  const int col = k / rows;

  const float jc = J[k];
  const float n = J[iN[row] + rows * col] - jc;
  const float s = J[iS[row] + rows * col] - jc;
  const float w = J[row + rows * jW[col]] - jc;
  const float e = J[row + rows * jE[col]] - jc;

  const float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  const float l = (n + s + w + e) / jc;
  const float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  float den = 1.0f + 0.25f * l;
  const float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + den);
  c = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);

  dN[k] = n;
  dS[k] = s;
  dW[k] = w;
  dE[k] = e;
  C[k] = c;
}

extern "C" __global__ void srad_update(float* __restrict__ J, const int* __restrict__ iS, const int* __restrict__ jE,
                                       const float* __restrict__ dN, const float* __restrict__ dS,
                                       const float* __restrict__ dW, const float* __restrict__ dE,
                                       const float* __restrict__ C, int rows, int cols, float lambda) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= rows * cols) return;
  const int row = k % rows;
  const int col = k / rows;

  const float cN = C[k];
  const float cS = C[iS[row] + rows * col];
  const float cW = C[k];
  const float cE = C[row + rows * jE[col]];
  const float div = cN * dN[k] + cS * dS[k] + cW * dW[k] + cE * dE[k];
  J[k] = J[k] + 0.25f * lambda * div;
}
