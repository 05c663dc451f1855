// LIBOR market model Monte Carlo (LTRF suite, register-sensitive; after the
// GPGPU-Sim ISPASS-2009 LIB benchmark, Giles' LIBOR path calculation and
// portfolio valuation). One thread simulates one path of NR forward rates
// L[0..NR-1] over `nsteps` time steps of length delta: at step i the rates
// n > i move by the lognormal drift-diffusion of the model with the
// volatility lambda[n - i - 1] and the path's normal increment z[i]. Then
// the path values a portfolio of NR - nsteps swaptions (one expiring at each
// remaining rate), discounted back to time 0 through the rates fixed on the
// way.
//
// Every loop over the rates is unrolled with compile-time indices, so all NR
// forward rates stay in registers for the whole path (Giles' code keeps them
// in a local array); `n > i` and `n >= nsteps` are tested per rate.
#define NR 32

__constant__ float c_lambda[NR];    // volatility of a rate by its distance to the current step
__constant__ float c_L0[NR];        // initial forward curve
__constant__ float c_swaprate[NR];  // strike of the swaption ending at rate n

// z: the normal increments, step-major (z[i * npath + p]).
// payoff: the path's discounted portfolio value; last_rate: its L[NR - 1]
// at the end of the path.
extern "C" __global__ void __launch_bounds__(128) lt_libor_path(const float* __restrict__ z,
                                                                float* __restrict__ payoff,
                                                                float* __restrict__ last_rate, int npath,
                                                                int nsteps, float delta) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npath) return;
  float L[NR];
#pragma unroll
  for (int n = 0; n < NR; ++n) L[n] = c_L0[n];

  const float sqrt_delta = sqrtf(delta);
  for (int i = 0; i < nsteps; ++i) {
    const float sqez = sqrt_delta * z[i * npath + p];
    float v = 0.0f;
#pragma unroll
    for (int n = 0; n < NR; ++n) {
      if (n > i) {
        const float lam = c_lambda[n - i - 1];
        const float con1 = delta * lam;
        v += con1 * L[n] / (1.0f + delta * L[n]);
        const float vrat = expf(con1 * v + lam * (sqez - 0.5f * con1));
        L[n] = L[n] * vrat;
      }
    }
  }

  // The swaptions: b is the discount factor from the expiry to the end of
  // rate n, s the annuity; the swaption ending at n pays 100 * max(-swap, 0).
  float b = 1.0f, s = 0.0f, value = 0.0f;
#pragma unroll
  for (int n = 0; n < NR; ++n) {
    if (n >= nsteps) {
      b = b / (1.0f + delta * L[n]);
      s = s + delta * b;
      const float swapval = b + c_swaprate[n] * s - 1.0f;
      if (swapval < 0.0f) value += -100.0f * swapval;
    }
  }
  // Discounted back to time 0 through the rates fixed before the expiry.
#pragma unroll
  for (int n = 0; n < NR; ++n)
    if (n < nsteps) value = value / (1.0f + delta * L[n]);

  payoff[p] = value;
  last_rate[p] = L[NR - 1];
}
