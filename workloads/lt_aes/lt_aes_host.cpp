#include <array>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// FIPS-197 from first principles: the S-box from the inverse in GF(2^8)
// and the affine map, the key expansion, and the cipher on a byte state.
uint8_t gmul(uint8_t a, uint8_t b) {
  uint8_t p = 0;
  for (int i = 0; i < 8; ++i) {
    if (b & 1) p ^= a;
    const bool carry = a & 0x80;
    a = uint8_t(a << 1);
    if (carry) a ^= 0x1b;
    b >>= 1;
  }
  return p;
}

std::array<uint8_t, 256> makeSbox() {
  std::array<uint8_t, 256> s{};
  for (int x = 0; x < 256; ++x) {
    uint8_t inv = 0;  // x^254 = x^-1 (0 -> 0)
    if (x) {
      uint8_t r = 1;
      for (int i = 0; i < 254; ++i) r = gmul(r, uint8_t(x));
      inv = r;
    }
    auto rotl = [](uint8_t v, int n) { return uint8_t((v << n) | (v >> (8 - n))); };
    s[x] = inv ^ rotl(inv, 1) ^ rotl(inv, 2) ^ rotl(inv, 3) ^ rotl(inv, 4) ^ 0x63;
  }
  return s;
}

std::array<uint32_t, 44> expandKey(const uint8_t key[16], const std::array<uint8_t, 256>& sbox) {
  std::array<uint32_t, 44> w{};
  for (int i = 0; i < 4; ++i)
    w[i] = uint32_t(key[4 * i]) << 24 | uint32_t(key[4 * i + 1]) << 16 | uint32_t(key[4 * i + 2]) << 8 | key[4 * i + 3];
  uint8_t rcon = 1;
  for (int i = 4; i < 44; ++i) {
    uint32_t t = w[i - 1];
    if (i % 4 == 0) {
      t = (t << 8) | (t >> 24);  // RotWord
      t = uint32_t(sbox[t >> 24]) << 24 | uint32_t(sbox[(t >> 16) & 0xff]) << 16 |
          uint32_t(sbox[(t >> 8) & 0xff]) << 8 | sbox[t & 0xff];
      t ^= uint32_t(rcon) << 24;
      rcon = gmul(rcon, 2);
    }
    w[i] = w[i - 4] ^ t;
  }
  return w;
}

void encrypt(const uint8_t in[16], uint8_t out[16], const std::array<uint32_t, 44>& w,
             const std::array<uint8_t, 256>& sbox) {
  uint8_t s[16];  // s[r + 4c]: row r, column c
  auto addKey = [&](int round) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) s[r + 4 * c] ^= uint8_t(w[4 * round + c] >> (24 - 8 * r));
  };
  for (int i = 0; i < 16; ++i) s[i] = in[i];
  addKey(0);
  for (int round = 1; round <= 10; ++round) {
    for (uint8_t& b : s) b = sbox[b];
    uint8_t t[16];
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) t[r + 4 * c] = s[r + 4 * ((c + r) % 4)];  // ShiftRows
    for (int i = 0; i < 16; ++i) s[i] = t[i];
    if (round < 10) {
      for (int c = 0; c < 4; ++c) {  // MixColumns
        const uint8_t a0 = s[4 * c], a1 = s[4 * c + 1], a2 = s[4 * c + 2], a3 = s[4 * c + 3];
        s[4 * c] = gmul(a0, 2) ^ gmul(a1, 3) ^ a2 ^ a3;
        s[4 * c + 1] = a0 ^ gmul(a1, 2) ^ gmul(a2, 3) ^ a3;
        s[4 * c + 2] = a0 ^ a1 ^ gmul(a2, 2) ^ gmul(a3, 3);
        s[4 * c + 3] = gmul(a0, 3) ^ a1 ^ a2 ^ gmul(a3, 2);
      }
    }
    addKey(round);
  }
  for (int i = 0; i < 16; ++i) out[i] = s[i];
}

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

Check runAes(rt::Device& dev, Size size) {
  const std::array<uint8_t, 256> sbox = makeSbox();
  // The reference itself against FIPS-197 Appendix C.1.
  {
    uint8_t key[16], pt[16], ct[16];
    for (int i = 0; i < 16; ++i) key[i] = uint8_t(i), pt[i] = uint8_t(0x11 * i);
    encrypt(pt, ct, expandKey(key, sbox), sbox);
    static const uint8_t want[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                                     0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
    if (!std::equal(ct, ct + 16, want)) return Check{false, "host AES reference fails FIPS-197 C.1"};
  }
  // Small: 32768 blocks (512 KiB, 16384 threads of 2 blocks, 64 thread
  // blocks of 256); Large: 2 M blocks (32 MiB).
  const int nblocks = size == Size::Small ? 32768 : 1 << 21;
  Rng rng(38);
  uint8_t key[16];
  for (uint8_t& b : key) b = uint8_t(rng.next32());
  const std::array<uint32_t, 44> w = expandKey(key, sbox);
  // Te0[x] = (2 S[x], S[x], S[x], 3 S[x]) big-endian; Te1..Te3 rotated right by 8, 16, 24 bits.
  std::vector<uint32_t> tables(4 * 256);
  for (int x = 0; x < 256; ++x) {
    const uint8_t s = sbox[x];
    const uint32_t t0 = uint32_t(gmul(s, 2)) << 24 | uint32_t(s) << 16 | uint32_t(s) << 8 | gmul(s, 3);
    for (int k = 0; k < 4; ++k) tables[256 * k + x] = k ? (t0 >> (8 * k)) | (t0 << (32 - 8 * k)) : t0;
  }
  std::vector<uint8_t> plain(size_t(nblocks) * 16);
  for (auto& b : plain) b = uint8_t(rng.next32() >> 24);
  std::vector<uint32_t> words(size_t(nblocks) * 4);
  for (size_t i = 0; i < words.size(); ++i) words[i] = be32(&plain[4 * i]);

  dev.memcpyHtoD(dev.symbolAddress("c_rk"), w.data(), sizeof(uint32_t) * 44);
  DeviceBuffer d_tables(dev, tables), d_in(dev, words), d_out(dev, words.size() * sizeof(uint32_t));
  const uint32_t block = 256;
  dev.launch("lt_aes", {ceilDiv(nblocks / 2, block)}, {block},
             rt::KernelArgs().ptr(d_tables.addr()).ptr(d_in.addr()).ptr(d_out.addr()).i32(nblocks));

  std::vector<uint32_t> want(words.size());
  for (int b = 0; b < nblocks; ++b) {
    uint8_t ct[16];
    encrypt(&plain[size_t(b) * 16], ct, w, sbox);
    for (int k = 0; k < 4; ++k) want[size_t(b) * 4 + k] = be32(ct + 4 * k);
  }
  return compareExact(d_out.download<uint32_t>(want.size()), want,
                      fmt::format("ciphertext words ({} blocks of AES-128, ECB; reference checked against FIPS-197 C.1)",
                                  nblocks));
}

}  // namespace

RFSIM_WORKLOAD("lt_aes",
               "AES-128 encryption with T-tables in shared memory and round keys in constant memory, two blocks "
               "per thread (LTRF suite)",
               "workloads/lt_aes/lt_aes.ptx", {"ltrf", "regsens", "shared", "barrier", "constant"}, runAes);

}  // namespace rfsim::workloads
