// A recursive (IIR, Deriche) Gaussian filter down the columns of an RGBA
// image, modelled on the imaging kernel of the RegDem paper's suite (the
// CUDA samples' recursiveGaussian, Table 1: 64 threads per block). Each
// thread owns one column: a causal pass top to bottom, then an anti-causal
// pass bottom to top added to it, each keeping the last inputs and outputs
// of all four channels live (float4 state), with edges clamped.
#define BLOCK 64

struct Coefs {
  float a0, a1, a2, a3, b1, b2, coefp, coefn;
};

__device__ __forceinline__ float4 unpack(unsigned c) {
  return make_float4(float(c & 0xff), float((c >> 8) & 0xff), float((c >> 16) & 0xff), float(c >> 24));
}

__device__ __forceinline__ unsigned channel(float v) { return (unsigned)(fminf(fmaxf(v, 0.0f), 255.0f) + 0.5f); }

__device__ __forceinline__ unsigned pack4(float4 v) {
  return channel(v.x) | (channel(v.y) << 8) | (channel(v.z) << 16) | (channel(v.w) << 24);
}

__device__ __forceinline__ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float4 operator-(float4 a, float4 b) {
  return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}
__device__ __forceinline__ float4 operator*(float s, float4 a) { return make_float4(s * a.x, s * a.y, s * a.z, s * a.w); }

extern "C" __global__ void __launch_bounds__(BLOCK)
gauss_recursive(const unsigned* in, unsigned* out, float4* tmp, int width, int height, Coefs k) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  // Causal pass: y[i] = a0 x[i] + a1 x[i-1] - b1 y[i-1] - b2 y[i-2].
  float4 xp = unpack(in[x]);
  float4 yp = k.coefp * xp, yb = yp;
  for (int i = 0; i < height; ++i) {
    const float4 xc = unpack(in[i * width + x]);
    const float4 yc = k.a0 * xc + k.a1 * xp - k.b1 * yp - k.b2 * yb;
    tmp[i * width + x] = yc;
    xp = xc;
    yb = yp;
    yp = yc;
  }
  // Anti-causal pass, added to the causal one.
  float4 xn = unpack(in[(height - 1) * width + x]), xa = xn;
  float4 yn = k.coefn * xn, ya = yn;
  for (int i = height - 1; i >= 0; --i) {
    const float4 xc = unpack(in[i * width + x]);
    const float4 yc = k.a2 * xn + k.a3 * xa - k.b1 * yn - k.b2 * ya;
    xa = xn;
    xn = xc;
    ya = yn;
    yn = yc;
    out[i * width + x] = pack4(tmp[i * width + x] + yc);
  }
}
