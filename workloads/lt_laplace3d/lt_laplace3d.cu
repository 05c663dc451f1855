// One Jacobi sweep of the 3-D Laplace equation on an nx x ny x nz grid
// (LTRF suite, register-sensitive; after the GPGPU-Sim ISPASS-2009 LPS
// benchmark, Giles' laplace3d): every interior point becomes the mean of
// its six neighbours, boundary points keep their (Dirichlet) values. The
// host ping-pongs two grids over the sweeps.
//
// Register blocking along z: a thread owns one (x, y) column of ZB
// consecutive points. It loads the ZB + 2 column values it needs (its ZB
// points and one above and below) once, then the four side neighbours of
// each point, and keeps all ZB results in registers until the end, where it
// stores them: ZB + 2 column values and ZB results live at once. Blocks of
// 32 x 4 columns: a warp reads 128 contiguous bytes of each plane.
#define ZB 16

extern "C" __global__ void __launch_bounds__(128) lt_laplace3d(const float* __restrict__ u, float* __restrict__ v,
                                                               int nx, int ny, int nz) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k0 = blockIdx.z * ZB;
  if (i >= nx || j >= ny) return;
  const int plane = nx * ny;  // grids of fewer than 2^31 points
  const int base = i + j * nx + k0 * plane;
  const bool side_interior = i > 0 && i < nx - 1 && j > 0 && j < ny - 1;

  float c[ZB + 2];  // c[k] is the point at z = k0 + k - 1
#pragma unroll
  for (int k = 0; k < ZB + 2; ++k) {
    const int z = k0 + k - 1;
    c[k] = (z >= 0 && z < nz) ? u[base + (k - 1) * plane] : 0.0f;
  }
  float r[ZB];
#pragma unroll
  for (int k = 0; k < ZB; ++k) {
    const int z = k0 + k;
    const int at = base + k * plane;
    if (side_interior && z > 0 && z < nz - 1) {
      const float sides = (u[at - 1] + u[at + 1]) + (u[at - nx] + u[at + nx]);
      r[k] = ((c[k] + c[k + 2]) + sides) * (1.0f / 6.0f);
    } else {
      r[k] = c[k + 1];
    }
  }
#pragma unroll
  for (int k = 0; k < ZB; ++k)
    if (k0 + k < nz) v[base + k * plane] = r[k];
}
