// One Jacobi step of the 7-point Laplacian-style stencil on an nx * ny * nz
// grid (x fastest): interior points become c0 * centre + c1 * (sum of the six
// face neighbours); boundary points are copied. One thread per point on a 3D
// grid of 3D blocks.
extern "C" __global__ void stencil7(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                                   float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;

  int stride_y = nx;
  int stride_z = nx * ny;
  int i = z * stride_z + y * stride_y + x;
  if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
    out[i] = in[i];
    return;
  }
  float neighbours = in[i - 1] + in[i + 1] + in[i - stride_y] + in[i + stride_y] + in[i - stride_z] + in[i + stride_z];
  out[i] = c0 * in[i] + c1 * neighbours;
}
