// MRI-Q after the Parboil mri-q benchmark: the Q matrix of non-Cartesian
// MRI reconstruction. For every voxel (x, y, z)
//   Q = sum over K-space samples k of |phi_k|^2 * exp(i 2 pi (Kx x + Ky y + Kz z))
// in two kernels: ComputePhiMag squares the magnitudes of the samples'
// coil sensitivities phi, then ComputeQ, one thread per voxel, accumulates
// the samples into the voxel's Qr and Qi. As in Parboil, the host packs the
// samples into (Kx, Ky, Kz, |phi|^2) records and copies them chunk by chunk
// into __constant__ memory, launching ComputeQ once per chunk: every thread
// of a warp reads the same record at the same time, the constant cache's
// broadcast.
//
// The phase is reduced to one turn before the sine and cosine: t - rint(t)
// is exact in float, and the hardware's approximate sine and cosine are
// accurate to 2^-20.5 there.
#define PIx2 6.2831853071795864769252867665590058f
#define K_ELEMS_PER_GRID 16  // samples per ComputeQ launch (one chunk of constant memory)

struct kValues {
  float Kx, Ky, Kz, PhiMag;
};
__constant__ kValues ck[K_ELEMS_PER_GRID];

extern "C" __global__ void __launch_bounds__(256)
    r2_mriq_phimag(const float* __restrict__ phiR, const float* __restrict__ phiI, float* __restrict__ phiMag,
                   int numK) {
  const int indexK = blockIdx.x * blockDim.x + threadIdx.x;
  if (indexK < numK) {
    const float real = phiR[indexK];
    const float imag = phiI[indexK];
    phiMag[indexK] = real * real + imag * imag;
  }
}

// Accumulates samples kGlobalIndex .. min(kGlobalIndex + K_ELEMS_PER_GRID,
// numK) - 1, which the host put into ck[0 ..], into the voxels' Qr and Qi.
extern "C" __global__ void __launch_bounds__(256)
    r2_mriq_q(int numK, int kGlobalIndex, const float* __restrict__ x, const float* __restrict__ y,
              const float* __restrict__ z, float* __restrict__ Qr, float* __restrict__ Qi, int numX) {
  const int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
  if (xIndex >= numX) return;
  const float sX = x[xIndex], sY = y[xIndex], sZ = z[xIndex];
  float sQr = Qr[xIndex], sQi = Qi[xIndex];
  for (int kIndex = 0; kIndex < K_ELEMS_PER_GRID && kGlobalIndex < numK; ++kIndex, ++kGlobalIndex) {
    float turns = ck[kIndex].Kx * sX + ck[kIndex].Ky * sY + ck[kIndex].Kz * sZ;
    turns -= rintf(turns);  // exact: the phase in [-1/2, 1/2] turn
    const float expArg = PIx2 * turns;
    sQr += ck[kIndex].PhiMag * __cosf(expArg);
    sQi += ck[kIndex].PhiMag * __sinf(expArg);
  }
  Qr[xIndex] = sQr;
  Qi[xIndex] = sQi;
}
