// MD5 key search, modelled on SHOC's FindKeyWithDigest_Kernel (the RegDem
// paper's md5hash, Table 1: 256 threads per block, no shared memory, 33
// registers from nvcc 6.5 for sm_52, target 32). Each thread turns its index
// into the first of `vals_per_byte` keys (one base-`vals_per_byte` digit per
// key byte, as SHOC's IndexToKey), then for each key runs the full 64-round
// MD5 of the key as one padded message block (SHOC's md5_2words: a key of
// up to 7 bytes in words 0 and 1, the 0x80 padding byte after it and the
// bit length in word 14), compares the digest with the one searched for and,
// on a match, writes the key's index, its bytes and its digest.
//
// Differs from SHOC's kernel: (1) each loop pass hashes two keys (key byte 0
// and byte 0 + 1) interleaved, so that two MD5 states are live at once: our
// back end then needs 38 registers (ptxas 13 for sm_75: 46), just above 32,
// where registers limit the occupancy on the GTX Titan X as the paper's 33
// did (6 blocks of 256 threads per SM, 8 at 32 registers); with one key per
// pass our count is 30 and RegDem has nothing to gain; (2) the found
// key and digest are written as one 8-byte and one 16-byte store (SHOC
// stores the key byte by byte); (3) every thread also writes a fold of all
// the digests it computed, so that the host checks every hash, not only the
// one match.
#define BLOCK 256

#define F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))
#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
// One MD5 step on both states: v = x + rotl(v + f(x, y, z) + w + k, r).
#define ROUND(wa, wb, r, k, v, x, y, z, f)     \
  {                                            \
    v##0 += f(x##0, y##0, z##0) + (wa) + (k);  \
    v##1 += f(x##1, y##1, z##1) + (wb) + (k);  \
    v##0 = x##0 + ROTL(v##0, r);               \
    v##1 = x##1 + ROTL(v##1, r);               \
  }

// The digests of keys (a0, a1) and (b0, b1), `len` bytes each (len <= 7,
// already padded by the caller), into d0 and d1.
__device__ __forceinline__ void md5_two_keys(unsigned wa0, unsigned wa1, unsigned wb0, unsigned wb1, unsigned wl,
                                             uint4& d0, uint4& d1) {
  unsigned a0 = 0x67452301u, b0 = 0xefcdab89u, c0 = 0x98badcfeu, e0 = 0x10325476u;
  unsigned a1 = a0, b1 = b0, c1 = c0, e1 = e0;
  ROUND(wa0, wb0, 7, 0xd76aa478u, a, b, c, e, F);
  ROUND(wa1, wb1, 12, 0xe8c7b756u, e, a, b, c, F);
  ROUND(0u, 0u, 17, 0x242070dbu, c, e, a, b, F);
  ROUND(0u, 0u, 22, 0xc1bdceeeu, b, c, e, a, F);
  ROUND(0u, 0u, 7, 0xf57c0fafu, a, b, c, e, F);
  ROUND(0u, 0u, 12, 0x4787c62au, e, a, b, c, F);
  ROUND(0u, 0u, 17, 0xa8304613u, c, e, a, b, F);
  ROUND(0u, 0u, 22, 0xfd469501u, b, c, e, a, F);
  ROUND(0u, 0u, 7, 0x698098d8u, a, b, c, e, F);
  ROUND(0u, 0u, 12, 0x8b44f7afu, e, a, b, c, F);
  ROUND(0u, 0u, 17, 0xffff5bb1u, c, e, a, b, F);
  ROUND(0u, 0u, 22, 0x895cd7beu, b, c, e, a, F);
  ROUND(0u, 0u, 7, 0x6b901122u, a, b, c, e, F);
  ROUND(0u, 0u, 12, 0xfd987193u, e, a, b, c, F);
  ROUND(wl, wl, 17, 0xa679438eu, c, e, a, b, F);
  ROUND(0u, 0u, 22, 0x49b40821u, b, c, e, a, F);

  ROUND(wa1, wb1, 5, 0xf61e2562u, a, b, c, e, G);
  ROUND(0u, 0u, 9, 0xc040b340u, e, a, b, c, G);
  ROUND(0u, 0u, 14, 0x265e5a51u, c, e, a, b, G);
  ROUND(wa0, wb0, 20, 0xe9b6c7aau, b, c, e, a, G);
  ROUND(0u, 0u, 5, 0xd62f105du, a, b, c, e, G);
  ROUND(0u, 0u, 9, 0x02441453u, e, a, b, c, G);
  ROUND(0u, 0u, 14, 0xd8a1e681u, c, e, a, b, G);
  ROUND(0u, 0u, 20, 0xe7d3fbc8u, b, c, e, a, G);
  ROUND(0u, 0u, 5, 0x21e1cde6u, a, b, c, e, G);
  ROUND(wl, wl, 9, 0xc33707d6u, e, a, b, c, G);
  ROUND(0u, 0u, 14, 0xf4d50d87u, c, e, a, b, G);
  ROUND(0u, 0u, 20, 0x455a14edu, b, c, e, a, G);
  ROUND(0u, 0u, 5, 0xa9e3e905u, a, b, c, e, G);
  ROUND(0u, 0u, 9, 0xfcefa3f8u, e, a, b, c, G);
  ROUND(0u, 0u, 14, 0x676f02d9u, c, e, a, b, G);
  ROUND(0u, 0u, 20, 0x8d2a4c8au, b, c, e, a, G);

  ROUND(0u, 0u, 4, 0xfffa3942u, a, b, c, e, H);
  ROUND(0u, 0u, 11, 0x8771f681u, e, a, b, c, H);
  ROUND(0u, 0u, 16, 0x6d9d6122u, c, e, a, b, H);
  ROUND(wl, wl, 23, 0xfde5380cu, b, c, e, a, H);
  ROUND(wa1, wb1, 4, 0xa4beea44u, a, b, c, e, H);
  ROUND(0u, 0u, 11, 0x4bdecfa9u, e, a, b, c, H);
  ROUND(0u, 0u, 16, 0xf6bb4b60u, c, e, a, b, H);
  ROUND(0u, 0u, 23, 0xbebfbc70u, b, c, e, a, H);
  ROUND(0u, 0u, 4, 0x289b7ec6u, a, b, c, e, H);
  ROUND(wa0, wb0, 11, 0xeaa127fau, e, a, b, c, H);
  ROUND(0u, 0u, 16, 0xd4ef3085u, c, e, a, b, H);
  ROUND(0u, 0u, 23, 0x04881d05u, b, c, e, a, H);
  ROUND(0u, 0u, 4, 0xd9d4d039u, a, b, c, e, H);
  ROUND(0u, 0u, 11, 0xe6db99e5u, e, a, b, c, H);
  ROUND(0u, 0u, 16, 0x1fa27cf8u, c, e, a, b, H);
  ROUND(0u, 0u, 23, 0xc4ac5665u, b, c, e, a, H);

  ROUND(wa0, wb0, 6, 0xf4292244u, a, b, c, e, I);
  ROUND(0u, 0u, 10, 0x432aff97u, e, a, b, c, I);
  ROUND(wl, wl, 15, 0xab9423a7u, c, e, a, b, I);
  ROUND(0u, 0u, 21, 0xfc93a039u, b, c, e, a, I);
  ROUND(0u, 0u, 6, 0x655b59c3u, a, b, c, e, I);
  ROUND(0u, 0u, 10, 0x8f0ccc92u, e, a, b, c, I);
  ROUND(0u, 0u, 15, 0xffeff47du, c, e, a, b, I);
  ROUND(wa1, wb1, 21, 0x85845dd1u, b, c, e, a, I);
  ROUND(0u, 0u, 6, 0x6fa87e4fu, a, b, c, e, I);
  ROUND(0u, 0u, 10, 0xfe2ce6e0u, e, a, b, c, I);
  ROUND(0u, 0u, 15, 0xa3014314u, c, e, a, b, I);
  ROUND(0u, 0u, 21, 0x4e0811a1u, b, c, e, a, I);
  ROUND(0u, 0u, 6, 0xf7537e82u, a, b, c, e, I);
  ROUND(0u, 0u, 10, 0xbd3af235u, e, a, b, c, I);
  ROUND(0u, 0u, 15, 0x2ad7d2bbu, c, e, a, b, I);
  ROUND(0u, 0u, 21, 0xeb86d391u, b, c, e, a, I);

  d0 = make_uint4(a0 + 0x67452301u, b0 + 0xefcdab89u, c0 + 0x98badcfeu, e0 + 0x10325476u);
  d1 = make_uint4(a1 + 0x67452301u, b1 + 0xefcdab89u, c1 + 0x98badcfeu, e1 + 0x10325476u);
}

// The key's two message words, padded as md5_2words pads a `len`-byte key.
__device__ __forceinline__ void pad(unsigned& w0, unsigned& w1, int len) {
  const unsigned bit = 0x80u << (8 * (len & 3));
  if (len < 4) w0 |= bit;
  else w1 |= bit;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
md5hash(unsigned search0, unsigned search1, unsigned search2, unsigned search3, int keyspace, int byte_length,
        int vals_per_byte, int* found_index, uint2* found_key, uint4* found_digest, unsigned* folds) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const int start = thread * vals_per_byte;
  // IndexToKey: byte b of the key is digit b of the index in base vals_per_byte.
  unsigned w0 = 0, w1 = 0;
  unsigned index = start;
#pragma unroll
  for (int b = 0; b < 8; ++b) {
    const unsigned digit = index % vals_per_byte;
    index /= vals_per_byte;
    if (b < byte_length) {
      if (b < 4) w0 |= digit << (8 * b);
      else w1 |= (digit << (8 * (b - 4)));
    }
  }
  const unsigned wl = unsigned(byte_length) * 8u;
  unsigned fold = 0;
  for (int j = 0; j < vals_per_byte && start + j < keyspace; j += 2) {
    // Keys j and j + 1 differ in byte 0 only (SHOC's ++key[0]).
    unsigned a0 = w0 + unsigned(j), a1 = w1, b0 = a0 + 1u, b1 = w1;
    pad(a0, a1, byte_length);
    pad(b0, b1, byte_length);
    uint4 da, db;
    md5_two_keys(a0, a1, b0, b1, wl, da, db);
    const bool second = j + 1 < vals_per_byte && start + j + 1 < keyspace;
    fold += da.x ^ da.y ^ da.z ^ da.w;
    if (second) fold += db.x ^ db.y ^ db.z ^ db.w;
    if (da.x == search0 && da.y == search1 && da.z == search2 && da.w == search3) {
      *found_index = start + j;
      *found_key = make_uint2(w0 + j, w1);
      *found_digest = da;
    }
    if (second && db.x == search0 && db.y == search1 && db.z == search2 && db.w == search3) {
      *found_index = start + j + 1;
      *found_key = make_uint2(w0 + j + 1, w1);
      *found_digest = db;
    }
  }
  folds[thread] = fold;
}
