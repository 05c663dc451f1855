// Per-pixel transforms of image pipelines (the extract / compress steps
// around a denoiser or tone mapper):
//   pixel_extract   8-bit pixel to intensity through exp(gamma * x/255) minus
//                   an offset;
//   pixel_compress  the way back: a Reinhard-style tone curve (scaled by the
//                   log-average luminance, white point), log back to 8 bits
//                   with rounding and saturation.

extern "C" __global__ void pixel_extract(const unsigned char* __restrict__ in, float* __restrict__ out, int n,
                                         float gamma, float offset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = in[i] / 255.0f;
  out[i] = expf(gamma * v) - offset;
}

extern "C" __global__ void pixel_compress(const float* __restrict__ in, unsigned char* __restrict__ out, int n,
                                          float log_avg_lum, float key, float white, float offset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = fmaxf(in[i] + offset, 1e-6f);
  // Tone curve: scaled luminance, Reinhard's operator with a white point.
  const float l = key * v / expf(log_avg_lum);
  const float ld = l * (1.0f + l / (white * white)) / (1.0f + l);
  const float back = logf(ld + 1.0f) * 255.0f / logf(2.0f);
  const float r = rintf(back);
  out[i] = (unsigned char)(r < 0.0f ? 0.0f : (r > 255.0f ? 255.0f : r));
}
