// Double-precision loops:
//   daxpy_dot_unroll4  y = a*x + y fused with the dot product x.y of the
//                      result, grid-stride with four elements per iteration
//                      (manually unrolled, independent accumulators), then a
//                      warp shuffle reduction of the double partials and one
//                      atomicAdd per warp;
//   black_scholes_fp64 European call and put prices per option in double:
//                      log, sqrt, exp and the cumulative normal through the
//                      5-term polynomial approximation, two options per thread
//                      per iteration;
//   dstencil5_2rows    double 2-D Jacobi 5-point step, each thread computes
//                      two vertically adjacent points and reuses the shared
//                      middle rows from registers.

extern "C" __global__ void daxpy_dot_unroll4(int n, double a, const double* __restrict__ x, double* __restrict__ y,
                                             double* __restrict__ dot) {
  const int stride = blockDim.x * gridDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const double x0 = x[i], x1 = x[i + stride], x2 = x[i + 2 * stride], x3 = x[i + 3 * stride];
    const double y0 = fma(a, x0, y[i]);
    const double y1 = fma(a, x1, y[i + stride]);
    const double y2 = fma(a, x2, y[i + 2 * stride]);
    const double y3 = fma(a, x3, y[i + 3 * stride]);
    y[i] = y0;
    y[i + stride] = y1;
    y[i + 2 * stride] = y2;
    y[i + 3 * stride] = y3;
    d0 = fma(x0, y0, d0);
    d1 = fma(x1, y1, d1);
    d2 = fma(x2, y2, d2);
    d3 = fma(x3, y3, d3);
  }
  for (; i < n; i += stride) {
    const double yi = fma(a, x[i], y[i]);
    y[i] = yi;
    d0 = fma(x[i], yi, d0);
  }
  double d = (d0 + d1) + (d2 + d3);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) d += __shfl_down_sync(0xffffffffu, d, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(dot, d);
}

__device__ __forceinline__ double cnd_fp64(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double rsqrt2pi = 0.39894228040143267794;
  const double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double c = rsqrt2pi * exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0 - c;
  return c;
}

extern "C" __global__ void black_scholes_fp64(double* __restrict__ call, double* __restrict__ put,
                                              const double* __restrict__ spot, const double* __restrict__ strike,
                                              const double* __restrict__ years, double riskfree, double volatility,
                                              int nopt) {
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nopt; i += 2 * stride) {
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const int o = i + u * stride;
      if (o < nopt) {
        const double s = spot[o], x = strike[o], t = years[o];
        const double sqrt_t = sqrt(t);
        const double d1 = (log(s / x) + (riskfree + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t);
        const double d2 = d1 - volatility * sqrt_t;
        const double cnd1 = cnd_fp64(d1), cnd2 = cnd_fp64(d2);
        const double disc = exp(-riskfree * t);
        call[o] = s * cnd1 - x * disc * cnd2;
        put[o] = x * disc * (1.0 - cnd2) - s * (1.0 - cnd1);
      }
    }
  }
}

extern "C" __global__ void dstencil5_2rows(const double* __restrict__ in, double* __restrict__ out, int nx, int ny,
                                           double cc, double cn, double ce) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = 2 * (blockIdx.y * blockDim.y + threadIdx.y);
  if (x < 1 || x >= nx - 1 || y < 1 || y + 1 >= ny - 1) return;
  const int i = y * nx + x;
  const double up = in[i - nx];
  const double mid0 = in[i];
  const double mid1 = in[i + nx];
  const double down = in[i + 2 * nx];
  const double w0 = in[i - 1], e0 = in[i + 1];
  const double w1 = in[i + nx - 1], e1 = in[i + nx + 1];
  out[i] = cc * mid0 + cn * (up + mid1) + ce * (w0 + e0);
  out[i + nx] = cc * mid1 + cn * (mid0 + down) + ce * (w1 + e1);
}
