// AES-128 encryption (LTRF suite, register-sensitive; after the GPGPU-Sim
// ISPASS-2009 AES benchmark): ECB over `nblocks` 16-byte blocks with the
// T-table formulation of FIPS-197 (each round's SubBytes, ShiftRows and
// MixColumns as four table lookups and XORs per column). The four 1 KB
// tables are copied from global into shared memory by every thread block;
// the 44 round-key words are in constant memory.
//
// The state is four big-endian column words (byte 0 of the block is the top
// byte of word 0); the host packs and unpacks. Each thread encrypts two
// blocks interleaved, `nblocks / 2` apart, so two states and their next
// round's words (16 words) are live at once besides the table base and the
// block indices.
__constant__ unsigned c_rk[44];

#define BYTE3(x) ((x) >> 24)
#define BYTE2(x) (((x) >> 16) & 0xffu)
#define BYTE1(x) (((x) >> 8) & 0xffu)
#define BYTE0(x) ((x)&0xffu)

// One full round of one state (s -> t) with round key words rk[4r..4r+3].
#define ROUND(t, s, r)                                                                              \
  t##0 = te0[BYTE3(s##0)] ^ te1[BYTE2(s##1)] ^ te2[BYTE1(s##2)] ^ te3[BYTE0(s##3)] ^ c_rk[4 * (r)];     \
  t##1 = te0[BYTE3(s##1)] ^ te1[BYTE2(s##2)] ^ te2[BYTE1(s##3)] ^ te3[BYTE0(s##0)] ^ c_rk[4 * (r) + 1]; \
  t##2 = te0[BYTE3(s##2)] ^ te1[BYTE2(s##3)] ^ te2[BYTE1(s##0)] ^ te3[BYTE0(s##1)] ^ c_rk[4 * (r) + 2]; \
  t##3 = te0[BYTE3(s##3)] ^ te1[BYTE2(s##0)] ^ te2[BYTE1(s##1)] ^ te3[BYTE0(s##2)] ^ c_rk[4 * (r) + 3];

// The last round (no MixColumns): the S-box byte of each lookup is the byte
// of the T-table entry that holds 1 * S[x] in the position it goes to.
#define LAST(o, s, a, b, c, d, k)                                                                       \
  o = (te2[BYTE3(s##a)] & 0xff000000u) ^ (te3[BYTE2(s##b)] & 0x00ff0000u) ^                               \
      (te0[BYTE1(s##c)] & 0x0000ff00u) ^ (te1[BYTE0(s##d)] & 0x000000ffu) ^ c_rk[40 + (k)];

// tables: Te0..Te3, 256 words each (Te0[x] = (2 S[x], S[x], S[x], 3 S[x]),
// Te1..Te3 its byte rotations); in/out: nblocks blocks of four words,
// nblocks even.
extern "C" __global__ void __launch_bounds__(256) lt_aes(const unsigned* __restrict__ tables,
                                                         const uint4* __restrict__ in, uint4* __restrict__ out,
                                                         int nblocks) {
  __shared__ unsigned te[4 * 256];
  for (int k = threadIdx.x; k < 4 * 256; k += blockDim.x) te[k] = tables[k];
  __syncthreads();
  const unsigned* te0 = te;
  const unsigned* te1 = te + 256;
  const unsigned* te2 = te + 512;
  const unsigned* te3 = te + 768;

  const int half = nblocks / 2;
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= half) return;
  const int b = a + half;
  const uint4 pa = in[a], pb = in[b];
  unsigned x0 = pa.x ^ c_rk[0], x1 = pa.y ^ c_rk[1], x2 = pa.z ^ c_rk[2], x3 = pa.w ^ c_rk[3];
  unsigned y0 = pb.x ^ c_rk[0], y1 = pb.y ^ c_rk[1], y2 = pb.z ^ c_rk[2], y3 = pb.w ^ c_rk[3];
  unsigned u0, u1, u2, u3, v0, v1, v2, v3;
#pragma unroll
  for (int r = 1; r < 9; r += 2) {
    ROUND(u, x, r)
    ROUND(v, y, r)
    ROUND(x, u, r + 1)
    ROUND(y, v, r + 1)
  }
  ROUND(u, x, 9)
  ROUND(v, y, 9)
  uint4 ca, cb;
  LAST(ca.x, u, 0, 1, 2, 3, 0)
  LAST(ca.y, u, 1, 2, 3, 0, 1)
  LAST(ca.z, u, 2, 3, 0, 1, 2)
  LAST(ca.w, u, 3, 0, 1, 2, 3)
  LAST(cb.x, v, 0, 1, 2, 3, 0)
  LAST(cb.y, v, 1, 2, 3, 0, 1)
  LAST(cb.z, v, 2, 3, 0, 1, 2)
  LAST(cb.w, v, 3, 0, 1, 2, 3)
  out[a] = ca;
  out[b] = cb;
}
