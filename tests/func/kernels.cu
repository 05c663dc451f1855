// Kernels for the functional-model tests (tests/func/test_*.cpp). Their PTX
// is committed as tests/func/kernels_ptx.h; regenerate with
//   tests/func/gen_kernels_ptx.sh
#include <cstdio>

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void fib_kernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fib(i % 13);
}

// Block reduction: shared memory tree with barriers, then warp shuffles and
// one atomic per block.
extern "C" __global__ void reduce(const int* in, int* out, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int k = blockDim.x / 2; k >= 32; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (t == 0) atomicAdd(out, v);
  }
}

// Data-dependent loop trip counts and nested divergence.
extern "C" __global__ void collatz(const unsigned* in, unsigned* steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], s = 0;
  while (x != 1) {
    if (x & 1) {
      if (x % 3 == 0) s += 100;
      x = 3 * x + 1;
    } else {
      x >>= 1;
    }
    ++s;
  }
  steps[i] = s;
}

extern "C" __global__ void shuffles(int* out) {
  int t = threadIdx.x;
  int lane = t & 31;
  int base = t * 8;
  out[base + 0] = __shfl_up_sync(0xffffffff, t, 3);
  out[base + 1] = __shfl_down_sync(0xffffffff, t, 5);
  out[base + 2] = __shfl_xor_sync(0xffffffff, t, 6);
  out[base + 3] = __shfl_sync(0xffffffff, t, (lane * 7) & 31);
  out[base + 4] = __shfl_sync(0xffffffff, t, 2, 8);      // width 8 segments
  out[base + 5] = __shfl_down_sync(0xffffffff, t, 3, 16);
  out[base + 6] = __ballot_sync(0xffffffff, (t % 3) == 0);
  out[base + 7] = (__any_sync(0xffffffff, t == 5) ? 1 : 0) | (__all_sync(0xffffffff, t < 1000) ? 2 : 0) |
                  (__all_sync(0xffffffff, lane < 16) ? 4 : 0);
}

extern "C" __global__ void atomics(unsigned* u, int* s, unsigned long long* w, float* f, int* old_out) {
  int t = threadIdx.x;
  old_out[t] = atomicAdd(&u[0], 1u);
  atomicSub(&s[0], t);
  atomicMin(&s[1], -t);
  atomicMax(&s[2], t);
  atomicMax(&u[1], (unsigned)t * 3u);
  atomicMin(&u[2], 1000u + t);
  atomicAnd(&u[3], ~(1u << (t & 31)));
  atomicOr(&u[4], 1u << (t & 31));
  atomicXor(&u[5], (unsigned)t);
  atomicInc(&u[6], 9u);
  atomicDec(&u[7], 9u);
  atomicExch(&u[8], (unsigned)t);
  atomicAdd(&w[0], (unsigned long long)t << 33);
  atomicAdd(&f[0], 0.5f);
  unsigned old;
  do { old = u[9]; } while (atomicCAS(&u[9], old, old + 2u) != old);
}

// Shared-memory atomics and a histogram.
extern "C" __global__ void histogram(const unsigned char* in, unsigned* bins, int n) {
  __shared__ unsigned h[16];
  if (threadIdx.x < 16) h[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&h[in[i] & 15], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
}

// A generic pointer that points to shared, local or global memory.
__device__ __noinline__ int sum3(const int* p) { return p[0] + p[1] + p[2]; }
extern "C" __global__ void generic_ptrs(const int* g, int* out) {
  __shared__ int sh[96];
  int loc[3];
  int t = threadIdx.x;
  for (int k = 0; k < 3; ++k) { sh[t * 3 + k] = t + k; loc[k] = 10 * t + k; }
  __syncthreads();
  const int* p = (t % 3 == 0) ? &sh[t * 3] : (t % 3 == 1) ? loc : g + t;
  out[t] = sum3(p);
}

// Indirect calls through a table of function pointers in global memory.
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
typedef int (*binop)(int, int);
__device__ binop ops[3] = {op_add, op_mul, op_sub};
extern "C" __global__ void indirect(int* out) {
  int t = threadIdx.x;
  out[t] = ops[t % 3](t, 3);
}

// Device-side malloc/free and printf.
extern "C" __global__ void device_heap(int* out) {
  int t = threadIdx.x;
  int* p = (int*)malloc(4 * sizeof(int));
  for (int k = 0; k < 4; ++k) p[k] = t * k;
  out[t] = p[0] + p[1] + p[2] + p[3];
  free(p);
}

extern "C" __global__ void hello(int n) {
  if (threadIdx.x < n) printf("hello %d %.2f %s 0x%x %lld\n", threadIdx.x, 1.5f, "ok", 255u, -7ll);
}

// A thread that exits early before a barrier the others still meet.
extern "C" __global__ void early_exit(int* out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t >= 40) return;
  s[t] = t;
  __syncthreads();
  out[t] = s[39 - t];
}

extern "C" __global__ void sync_count(int* out) {
  int t = threadIdx.x;
  out[0] = __syncthreads_count(t % 4 == 0);
  out[1] = __syncthreads_and(t < 1000);
  out[2] = __syncthreads_or(t == 7);
}

// Recursion whose frames keep local arrays across the recursive call.
__device__ __noinline__ int deep(int n) {
  volatile int loc[8];
  for (int k = 0; k < 8; ++k) loc[k] = n * 10 + k;
  int r = n > 0 ? deep(n - 1) : 0;
  return r + loc[n % 8];
}
extern "C" __global__ void recursion_locals(int* out) {
  int t = threadIdx.x;
  out[t] = deep(t % 20);
}

// __constant__ and __device__ variables reached through symbolAddress, and
// vector loads/stores.
__constant__ float coef[4];
__device__ int counter;
extern "C" __global__ void const_and_globals(float* out) {
  int t = threadIdx.x;
  out[t] = coef[t % 4] * t;
  atomicAdd(&counter, 1);
}
extern "C" __global__ void vectors(const float4* in, float4* out, int2* pairs) {
  int t = threadIdx.x;
  float4 v = in[t];
  out[t] = make_float4(v.w, v.z, v.y, v.x);
  pairs[t] = make_int2(t, -t);
}

// A switch inside a loop with continue and a goto out of the loop: many
// divergent paths and reconvergence points.
__host__ __device__ int switchy_ref(int x) {
  int acc = 0;
  for (int k = 0; k < (x & 15); ++k) {
    switch ((x + k) % 7) {
      case 0: acc += 3; break;
      case 1: acc ^= k; continue;
      case 2: acc *= 3; break;
      case 3: if (acc > 100) goto done; acc += 11; break;
      case 4: acc -= 1; break;
      case 5: acc += k * k; break;
      default: acc = acc / 2 + 1; break;
    }
    if (acc & 1) acc += 7;
  }
done:
  return acc;
}
extern "C" __global__ void switchy(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = switchy_ref(in[i]);
}
