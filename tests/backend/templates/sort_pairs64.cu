// A sort network too large for scheduling at the target (README.md): 32
// float keys and 32 64-bit values per thread, a fully unrolled bitonic
// network, then five rounds of a warp exchange, each followed by the
// network again. No launch bounds: about 180 registers without spills.
template <typename K, typename V, int N>
__device__ __forceinline__ void cas(K (&k)[N], V (&v)[N], int i, int j, bool up) {
  K a = k[i], b = k[j];
  bool sw = (a > b) == up;
  k[i] = sw ? b : a; k[j] = sw ? a : b;
  V va = v[i], vb = v[j];
  v[i] = sw ? vb : va; v[j] = sw ? va : vb;
}
template <typename K, typename V, int N>
__device__ __forceinline__ void bitonic(K (&k)[N], V (&v)[N], bool desc) {
#pragma unroll
  for (int size = 2; size <= N; size <<= 1)
#pragma unroll
    for (int stride = size / 2; stride > 0; stride >>= 1)
#pragma unroll
      for (int i = 0; i < N; ++i) {
        int j = i ^ stride;
        if (j > i) cas<K, V, N>(k, v, i, j, ((i & size) == 0) != desc);
      }
}
template <typename K, typename V, int N>
__global__ void sort_warp(const K* keys, const V* vals, K* okeys, V* ovals, int n, bool desc) {
  K k[N]; V v[N];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    int idx = t * N + i;
    k[i] = idx < n ? keys[idx] : K(1e30f);
    v[i] = idx < n ? vals[idx] : V(-1);
  }
  bitonic<K, V, N>(k, v, desc);
#pragma unroll
  for (int s = 1; s < 32; s <<= 1) {
    bool lower = (threadIdx.x & s) == 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      K ok = __shfl_xor_sync(0xffffffffu, k[i], s);
      V ov = __shfl_xor_sync(0xffffffffu, v[i], s);
      bool take = lower ? (ok < k[i]) : (ok > k[i]);
      if (take) { k[i] = ok; v[i] = ov; }
    }
    bitonic<K, V, N>(k, v, desc);
  }
#pragma unroll
  for (int i = 0; i < N; ++i) {
    int idx = t * N + i;
    if (idx < n) { okeys[idx] = k[i]; ovals[idx] = v[i]; }
  }
}
template __global__ void sort_warp<float, long long, 32>(const float*, const long long*, float*, long long*, int, bool);
