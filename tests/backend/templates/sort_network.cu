// A segmented key-value sort's tiles (tests/backend/templates/README.md):
// float keys and int values sorted in registers by a fully unrolled bitonic
// network (selects between float and int registers), a warp exchange, and
// the sorted items written only by tiles that hold a segment, after a
// barrier. __launch_bounds__(128, 8) leaves 64 registers, so the items
// are spilled across the barrier.
template <int N>
__device__ __forceinline__ void net(float (&k)[N], int (&v)[N]) {
#pragma unroll
  for (int size = 2; size <= N; size <<= 1)
#pragma unroll
    for (int stride = size / 2; stride > 0; stride >>= 1)
#pragma unroll
      for (int i = 0; i < N; ++i) {
        int j = i ^ stride;
        if (j > i) {
          bool up = (i & size) == 0;
          float a = k[i], b = k[j];
          int va = v[i], vb = v[j];
          bool sw = (a > b) == up;
          k[i] = sw ? b : a; k[j] = sw ? a : b;
          v[i] = sw ? vb : va; v[j] = sw ? va : vb;
        }
      }
}
template <int N, int MINB>
__global__ void __launch_bounds__(128, MINB)
seg_sort_tiles(const float* keys, const int* vals, const int* seg_len, float* ok, int* ov, int ntiles) {
  __shared__ float sk[128 * N];
  __shared__ int sv[128 * N];
  for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const int len = seg_len[tile];
    const bool active = len > 1;
    float k[N]; int v[N];
    const int base = tile * 128 * N + threadIdx.x * N;
    if (active) {
#pragma unroll
      for (int i = 0; i < N; ++i) {
        k[i] = i < len ? keys[base + i] : __int_as_float(0x7f800000);
        v[i] = i < len ? vals[base + i] : -1;
      }
      net<N>(k, v);
#pragma unroll
      for (int i = 0; i < N; ++i) {
        float o = __shfl_xor_sync(0xffffffffu, k[i], 1);
        int ovv = __shfl_xor_sync(0xffffffffu, v[i], 1);
        if ((threadIdx.x & 1) ? (o > k[i]) : (o < k[i])) { k[i] = o; v[i] = ovv; }
      }
    }
    __syncthreads();
    if (active) {
#pragma unroll
      for (int i = 0; i < N; ++i) { sk[threadIdx.x * N + i] = k[i]; sv[threadIdx.x * N + i] = v[i]; }
    }
    __syncthreads();
#pragma unroll 4
    for (int i = 0; i < N; ++i) {
      ok[tile * 128 * N + i * 128 + threadIdx.x] = sk[i * 128 + threadIdx.x];
      ov[tile * 128 * N + i * 128 + threadIdx.x] = sv[i * 128 + threadIdx.x];
    }
    __syncthreads();
  }
}
template __global__ void seg_sort_tiles<32, 8>(const float*, const int*, const int*, float*, int*, int);
