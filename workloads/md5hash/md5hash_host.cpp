#include <array>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// RFC 1321 MD5 of a message of at most 55 bytes (one block), independent
// of the kernel's unrolled rounds: the table of sines, the shifts and the
// message schedule are written out as the RFC gives them.
std::array<uint32_t, 4> md5(const uint8_t* msg, int len) {
  static const uint32_t kK[64] = {
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
      0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
      0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
      0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
      0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
      0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
      0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
      0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
  static const int kS[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
  uint8_t block[64] = {};
  for (int i = 0; i < len; ++i) block[i] = msg[i];
  block[len] = 0x80;
  const uint64_t bits = uint64_t(len) * 8;
  for (int i = 0; i < 8; ++i) block[56 + i] = uint8_t(bits >> (8 * i));
  uint32_t m[16];
  for (int i = 0; i < 16; ++i)
    m[i] = uint32_t(block[4 * i]) | uint32_t(block[4 * i + 1]) << 8 | uint32_t(block[4 * i + 2]) << 16 |
           uint32_t(block[4 * i + 3]) << 24;
  const uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
  for (int i = 0; i < 64; ++i) {
    uint32_t f;
    int g;
    if (i < 16) f = (b & c) | (~b & d), g = i;
    else if (i < 32) f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
    else if (i < 48) f = b ^ c ^ d, g = (3 * i + 5) % 16;
    else f = c ^ (b | ~d), g = (7 * i) % 16;
    const uint32_t t = a + f + kK[i] + m[g];
    const int s = kS[i / 16][i % 4];
    a = d, d = c, c = b;
    b = b + ((t << s) | (t >> (32 - s)));
  }
  return {h[0] + a, h[1] + b, h[2] + c, h[3] + d};
}

// SHOC's IndexToKey: byte b of key `index` is its digit b in base `vals`.
void indexToKey(uint64_t index, int length, int vals, uint8_t key[8]) {
  for (int b = 0; b < 8; ++b) {
    key[b] = b < length ? uint8_t(index % vals) : 0;
    index /= vals;
  }
}

Check runMd5Hash(rt::Device& dev, Size size) {
  // Keys of `length` bytes, each byte one of `vals` values: vals^length keys,
  // `vals` per thread (7 bytes at most: SHOC's md5_2words pads within two
  // words). Small: 4^7 = 16 384 keys, 4096 threads (16 blocks); large:
  // 8^7 = 2 097 152 keys, 262 144 threads (1024 blocks: 5.3 waves of the
  // GTX Titan X's 24 SMs at 8 blocks each, its occupancy at 32 registers).
  const int length = 7;
  const int vals = size == Size::Small ? 4 : 8;
  uint64_t keyspace = 1;
  for (int b = 0; b < length; ++b) keyspace *= vals;
  const uint32_t threads = ceilDiv(keyspace, vals);
  const uint32_t blocks = ceilDiv(threads, 256);
  // The key searched for: one near the end of the key space.
  const uint64_t target = keyspace - keyspace / 7;
  uint8_t key[8];
  indexToKey(target, length, vals, key);
  const std::array<uint32_t, 4> want_digest = md5(key, length);
  DeviceBuffer d_index(dev, std::vector<int32_t>{-1}), d_key(dev, std::vector<uint8_t>(8, 0xff)),
      d_digest(dev, std::vector<uint32_t>(4, 0)), d_folds(dev, size_t(blocks) * 256 * 4);
  d_folds.zero();
  dev.launch("md5hash", {blocks}, {256},
             rt::KernelArgs()
                 .u32(want_digest[0])
                 .u32(want_digest[1])
                 .u32(want_digest[2])
                 .u32(want_digest[3])
                 .i32(int32_t(keyspace))
                 .i32(length)
                 .i32(vals)
                 .ptr(d_index.addr())
                 .ptr(d_key.addr())
                 .ptr(d_digest.addr())
                 .ptr(d_folds.addr()));
  // Every thread's fold of the digests of its keys, and the one match.
  std::vector<uint32_t> want_folds(size_t(blocks) * 256, 0);
  for (uint64_t k = 0; k < keyspace; ++k) {
    indexToKey(k, length, vals, key);
    const std::array<uint32_t, 4> dg = md5(key, length);
    want_folds[k / vals] += dg[0] ^ dg[1] ^ dg[2] ^ dg[3];
  }
  Check c = compareExact(d_folds.download<uint32_t>(want_folds.size()), want_folds,
                         fmt::format("threads' digest folds ({} keys of {} bytes, {} values per byte)", keyspace,
                                     length, vals));
  if (!c.passed) return c;
  const int32_t got_index = d_index.download<int32_t>(1)[0];
  if (got_index != int32_t(target)) {
    c.passed = false;
    c.detail = fmt::format("found key index {}, expected {} ({})", got_index, target, c.detail);
    return c;
  }
  indexToKey(target, length, vals, key);
  const std::vector<uint8_t> want_key(key, key + 8);
  Check k = compareExact(d_key.download<uint8_t>(8), want_key, "found key bytes");
  if (!k.passed) return k;
  Check g = compareExact(d_digest.download<uint32_t>(4), std::vector<uint32_t>(want_digest.begin(), want_digest.end()),
                         "found digest words");
  if (!g.passed) return g;
  c.detail += fmt::format("; key {} found, its bytes and digest exact", target);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("md5hash", "MD5 key search: the full 64-round MD5 of every key, matched against a digest (RegDem suite: md5hash)",
               "workloads/md5hash/md5hash.ptx", {"regdem"}, runMd5Hash);

}  // namespace rfsim::workloads
