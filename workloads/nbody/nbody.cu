// All-pairs gravitational n-body step (GPU Gems 3, ch. 31): each block stages
// a tile of blockDim.x bodies in shared memory, every thread accumulates the
// acceleration of its own body over the tile with rsqrtf, then integrates
// with a leapfrog-style Euler step.
//
// Bodies are float4: xyz = position, w = mass. Bodies past n are padded with
// zero mass, so n need not be a multiple of the block size.

__device__ __forceinline__ float3 body_body(float4 bi, float4 bj, float3 ai, float eps2) {
  float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
  float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
  float inv_dist = rsqrtf(dist2);
  float s = bj.w * inv_dist * inv_dist * inv_dist;  // m_j / |r|^3
  ai.x += r.x * s;
  ai.y += r.y * s;
  ai.z += r.z * s;
  return ai;
}

extern "C" __global__ void nbody_step(const float4* __restrict__ pos_in,
                                      float4* __restrict__ pos_out, float4* __restrict__ vel,
                                      int n, float dt, float eps2) {
  extern __shared__ float4 tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 bi = i < n ? pos_in[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 acc = make_float3(0.f, 0.f, 0.f);

  for (int base = 0; base < n; base += blockDim.x) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos_in[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < blockDim.x; ++k) acc = body_body(bi, tile[k], acc, eps2);
    __syncthreads();
  }

  if (i < n) {
    float4 v = vel[i];
    v.x += acc.x * dt;
    v.y += acc.y * dt;
    v.z += acc.z * dt;
    vel[i] = v;
    pos_out[i] = make_float4(bi.x + v.x * dt, bi.y + v.y * dt, bi.z + v.z * dt, bi.w);
  }
}
