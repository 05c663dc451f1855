// Batched complex-to-complex FFT, radix 2, Stockham autosort formulation
// (after Govindaraju et al., "High performance discrete Fourier transforms
// on graphics processors", SC'08): log2(n) passes of one butterfly kernel,
// ping-ponging between two buffers, the result in natural order without a
// bit-reversal pass.
//
// Pass with span ns (1, 2, 4, ..., n/2): butterfly j (0 <= j < n/2) reads
// elements j and j + n/2 of its transform, multiplies the second by the
// twiddle exp(-2 pi i (j mod ns) / (2 ns)), and writes the sum and the
// difference to elements d and d + ns, d = (j / ns) * 2 ns + j mod ns.
// Threads of a 1-D block of 256 take consecutive butterflies of one
// transform: blockIdx.x picks the block of butterflies, blockIdx.y the
// transform. The twiddles exp(-2 pi i k / n), k < n/2, come from a table
// (rounded from double on the host): butterfly j of the pass needs entry
// (j mod ns) * tw_stride, tw_stride = n / (2 ns).
extern "C" __global__ void __launch_bounds__(256)
    r2_fft_radix2(const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ tw, int n,
                  int ns, int tw_stride) {
  const int half = n >> 1;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= half) return;
  const int base = blockIdx.y * n;  // the transform's first element (batches of fewer than 2^31 elements)
  const float2 a = in[base + j];
  const float2 b = in[base + j + half];
  const int r = j & (ns - 1);  // j mod ns (ns is a power of two)
  const float2 w = tw[r * tw_stride];
  const float2 bw = make_float2(b.x * w.x - b.y * w.y, b.x * w.y + b.y * w.x);
  const int d = ((j - r) << 1) + r;
  out[base + d] = make_float2(a.x + bw.x, a.y + bw.y);
  out[base + d + ns] = make_float2(a.x - bw.x, a.y - bw.y);
}
