// Kernels with long parameter lists, the way face-based finite-volume codes
// pass every field and constant separately:
//   face_flux_hll   20 parameters: per face, left/right cell indices, the
//                   face normal (three arrays) and area; the left and right
//                   primitive states are rebuilt from five conserved arrays
//                   (density, x/y/z momentum, energy), wave speeds from the
//                   gas constants, and the HLL flux of all five equations is
//                   written to five output arrays scaled by the face area;
//   cell_update_rk  16 parameters: one stage of a low-storage Runge-Kutta
//                   update of the five conserved fields from the residuals,
//                   with the stage coefficients, time step, a positivity
//                   floor on density and pressure, and a CFL-limited local dt.

extern "C" __global__ void face_flux_hll(const int* __restrict__ left, const int* __restrict__ right,
                                         const float* __restrict__ nx_a, const float* __restrict__ ny_a,
                                         const float* __restrict__ nz_a, const float* __restrict__ area,
                                         const float* __restrict__ rho, const float* __restrict__ mx,
                                         const float* __restrict__ my, const float* __restrict__ mz,
                                         const float* __restrict__ en, float* __restrict__ f_rho,
                                         float* __restrict__ f_mx, float* __restrict__ f_my, float* __restrict__ f_mz,
                                         float* __restrict__ f_en, int nfaces, float gamma, float p_floor,
                                         float rho_floor) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nfaces) return;
  const int l = left[f], r = right[f];
  const float nx = nx_a[f], ny = ny_a[f], nz = nz_a[f], a = area[f];
  const float gm1 = gamma - 1.0f;

  // Left state.
  const float rl = fmaxf(rho[l], rho_floor);
  const float ul = mx[l] / rl, vl = my[l] / rl, wl = mz[l] / rl, el = en[l];
  const float pl = fmaxf(gm1 * (el - 0.5f * rl * (ul * ul + vl * vl + wl * wl)), p_floor);
  const float cl = sqrtf(gamma * pl / rl);
  const float unl = ul * nx + vl * ny + wl * nz;
  // Right state.
  const float rr = fmaxf(rho[r], rho_floor);
  const float ur = mx[r] / rr, vr = my[r] / rr, wr = mz[r] / rr, er = en[r];
  const float pr = fmaxf(gm1 * (er - 0.5f * rr * (ur * ur + vr * vr + wr * wr)), p_floor);
  const float cr = sqrtf(gamma * pr / rr);
  const float unr = ur * nx + vr * ny + wr * nz;

  // Davis wave-speed estimates.
  const float sl = fminf(unl - cl, unr - cr);
  const float sr = fmaxf(unl + cl, unr + cr);

  // Physical normal fluxes of both sides.
  const float fl0 = rl * unl, fr0 = rr * unr;
  const float fl1 = rl * ul * unl + pl * nx, fr1 = rr * ur * unr + pr * nx;
  const float fl2 = rl * vl * unl + pl * ny, fr2 = rr * vr * unr + pr * ny;
  const float fl3 = rl * wl * unl + pl * nz, fr3 = rr * wr * unr + pr * nz;
  const float fl4 = (el + pl) * unl, fr4 = (er + pr) * unr;

  float h0, h1, h2, h3, h4;
  if (sl >= 0.0f) {
    h0 = fl0; h1 = fl1; h2 = fl2; h3 = fl3; h4 = fl4;
  } else if (sr <= 0.0f) {
    h0 = fr0; h1 = fr1; h2 = fr2; h3 = fr3; h4 = fr4;
  } else {
    const float inv = 1.0f / (sr - sl);
    const float ss = sl * sr;
    h0 = (sr * fl0 - sl * fr0 + ss * (rr - rl)) * inv;
    h1 = (sr * fl1 - sl * fr1 + ss * (rr * ur - rl * ul)) * inv;
    h2 = (sr * fl2 - sl * fr2 + ss * (rr * vr - rl * vl)) * inv;
    h3 = (sr * fl3 - sl * fr3 + ss * (rr * wr - rl * wl)) * inv;
    h4 = (sr * fl4 - sl * fr4 + ss * (er - el)) * inv;
  }
  f_rho[f] = a * h0;
  f_mx[f] = a * h1;
  f_my[f] = a * h2;
  f_mz[f] = a * h3;
  f_en[f] = a * h4;
}

extern "C" __global__ void cell_update_rk(float* __restrict__ rho, float* __restrict__ mx, float* __restrict__ my,
                                          float* __restrict__ mz, float* __restrict__ en,
                                          const float* __restrict__ res, const float* __restrict__ volume, int ncells,
                                          float rk_a, float rk_b, float dt, float cfl, float gamma, float rho_floor,
                                          float p_floor, float* __restrict__ local_dt) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= ncells) return;
  const float inv_vol = 1.0f / volume[c];
  const float scale = rk_b * dt * inv_vol;

  float r0 = rho[c], r1 = mx[c], r2 = my[c], r3 = mz[c], r4 = en[c];
  r0 = rk_a * r0 - scale * res[0 * ncells + c];
  r1 = rk_a * r1 - scale * res[1 * ncells + c];
  r2 = rk_a * r2 - scale * res[2 * ncells + c];
  r3 = rk_a * r3 - scale * res[3 * ncells + c];
  r4 = rk_a * r4 - scale * res[4 * ncells + c];

  r0 = fmaxf(r0, rho_floor);
  const float u = r1 / r0, v = r2 / r0, w = r3 / r0;
  const float ke = 0.5f * r0 * (u * u + v * v + w * w);
  float p = (gamma - 1.0f) * (r4 - ke);
  if (p < p_floor) {
    p = p_floor;
    r4 = p / (gamma - 1.0f) + ke;
  }
  const float cs = sqrtf(gamma * p / r0);
  const float speed = sqrtf(u * u + v * v + w * w) + cs;
  local_dt[c] = cfl * cbrtf(volume[c]) / speed;

  rho[c] = r0;
  mx[c] = r1;
  my[c] = r2;
  mz[c] = r3;
  en[c] = r4;
}
