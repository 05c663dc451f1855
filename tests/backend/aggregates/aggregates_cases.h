// The device functions and per-thread cases of aggregates.cu, also compiled
// on the host by the test as the reference (DEV is `inline` there, and the CUDA
// vector types are declared with their CUDA alignment).
#pragma once

#ifdef __CUDACC__
#define DEV __device__ __noinline__
#define CASE __device__
#else
#define DEV inline
#define CASE
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(16) longlong4 { long long x, y, z, w; };
struct alignas(4) char4 { signed char x, y, z, w; };
struct alignas(8) short4 { short x, y, z, w; };
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline longlong4 make_longlong4(long long x, long long y, long long z, long long w) { return {x, y, z, w}; }
inline char4 make_char4(signed char x, signed char y, signed char z, signed char w) { return {x, y, z, w}; }
inline short4 make_short4(short x, short y, short z, short w) { return {x, y, z, w}; }
#endif

namespace agg {

struct R4 { int a; };
struct R8 { int a, b; };
struct R12 { float x, y, z; };
struct R16 { double d; int i; };            // 12 bytes of data, 4 of padding
struct R24 { double a; int b; double c; };  // padding inside
struct R32 { double a, b, c, d; };
struct B7 { signed char c[7]; };
struct S6 { short s[3]; };
struct Mixed { signed char c; short s; int i; double d; };
struct R64 { long long v[8]; };

// A hash of the results, so one 32-bit word per thread checks everything.
CASE inline unsigned mix(unsigned h, long long v) {
  h ^= static_cast<unsigned>(v) + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h ^ static_cast<unsigned>(static_cast<unsigned long long>(v) >> 32);
}

// The original failure: a 16-byte result with padding, from a double and an int.
DEV R16 f16(double x, int k) { R16 r; r.d = x * 2.0; r.i = k + 3; return r; }
DEV R4 f4(R4 a) { R4 r; r.a = a.a * 3; return r; }
DEV R8 f8(R8 a) { R8 r; r.a = a.b + 1; r.b = a.a - 1; return r; }
DEV R12 f12(R12 a) { R12 r; r.x = a.y; r.y = a.z; r.z = a.x + 1.0f; return r; }
DEV R24 f24(R24 a, int k) { R24 r; r.a = a.c + k; r.b = a.b * 2; r.c = a.a; return r; }
DEV R32 f32(R32 a) { R32 r; r.a = a.d; r.b = a.c; r.c = a.b; r.d = a.a + 1.0; return r; }

CASE inline unsigned caseScalarSizes(unsigned t) {
  const int i = static_cast<int>(t);
  unsigned h = 1;
  R16 r = f16(i * 1.5, i);
  h = mix(h, static_cast<long long>(r.d * 4));
  h = mix(h, r.i);
  R4 a4 = {i + 7};
  h = mix(h, f4(a4).a);
  R8 a8 = {i, i * 5};
  R8 b8 = f8(a8);
  h = mix(h, b8.a);
  h = mix(h, b8.b);
  R12 a12 = {i * 1.0f, i + 2.0f, i * 3.0f};
  R12 b12 = f12(a12);
  h = mix(h, static_cast<long long>(b12.x + b12.y * 10 + b12.z * 100));
  R24 a24 = {i * 1.0, i + 1, i * 2.0};
  R24 b24 = f24(a24, i & 3);
  h = mix(h, static_cast<long long>(b24.a));
  h = mix(h, b24.b);
  h = mix(h, static_cast<long long>(b24.c));
  R32 a32 = {i * 1.0, i + 2.0, i + 3.0, i * 4.0};
  R32 b32 = f32(a32);
  h = mix(h, static_cast<long long>(b32.a + b32.b * 10 + b32.c * 100 + b32.d * 1000));
  return h;
}

// CUDA vector types: align 16 (st.param.v4.b32, v2.f64, two v2.b64), with
// immediate elements where the caller passes constants.
DEV int4 fi4(int4 a) { return make_int4(a.w, a.z - a.x, a.y, a.x + 1); }
DEV double2 fd2(double2 a) { return make_double2(a.y, a.x + a.y); }
DEV longlong4 fl4(longlong4 a) { return make_longlong4(a.w, a.z, a.y - a.w, a.x + 1); }

CASE inline unsigned caseVectors(unsigned t) {
  const int i = static_cast<int>(t);
  unsigned h = 2;
  int4 p = fi4(make_int4(i, 2, 3, 4));
  int4 q = fi4(make_int4(5, i, 7, 8));
  h = mix(h, p.x + p.y * 10 + p.z * 100 + p.w * 1000);
  h = mix(h, q.x + q.y * 10 + q.z * 100 + q.w * 1000);
  double2 d = fd2(make_double2(i, 2.0));
  double2 e = fd2(make_double2(3.0, 4.0 + i));
  h = mix(h, static_cast<long long>(d.x + d.y * 16 + e.x * 256 + e.y * 4096));
  longlong4 l = fl4(make_longlong4(i, 2, 3, 4));
  longlong4 m = fl4(make_longlong4(5, 6, i, 0x100000000ll));
  h = mix(h, l.x);
  h = mix(h, l.y);
  h = mix(h, l.z);
  h = mix(h, l.w);
  h = mix(h, m.x);
  h = mix(h, m.y);
  h = mix(h, m.z);
  h = mix(h, m.w);
  return h;
}

// Byte-granular aggregates: a char array (ld/st.param.u8/.b8), shorts
// (.b16), char4 and short4 (.v4.b8, .v4.b16), mixed field sizes in one.
DEV B7 fb7(B7 a) { B7 r; for (int k = 0; k < 7; ++k) r.c[k] = static_cast<signed char>(a.c[6 - k] - 3); return r; }
DEV S6 fs6(S6 a) { S6 r; r.s[0] = a.s[2]; r.s[1] = static_cast<short>(-a.s[0]); r.s[2] = static_cast<short>(a.s[1] * 2); return r; }
DEV char4 fc4(char4 a) { return make_char4(a.w, a.z, static_cast<signed char>(-a.y), static_cast<signed char>(a.x + 1)); }
DEV short4 fsh4(short4 a) { return make_short4(a.w, static_cast<short>(-a.z), a.y, static_cast<short>(a.x + 1)); }
DEV Mixed fmix(Mixed a) {
  Mixed r;
  r.c = static_cast<signed char>(a.c - 1);
  r.s = static_cast<short>(a.s - 2);
  r.i = a.i * 3;
  r.d = a.d + 0.5;
  return r;
}

CASE inline unsigned caseBytes(unsigned t) {
  const int i = static_cast<int>(t);
  unsigned h = 3;
  B7 a7;
  for (int k = 0; k < 7; ++k) a7.c[k] = static_cast<signed char>((i & 31) + k - 20);
  B7 b7 = fb7(a7);
  for (int k = 0; k < 7; ++k) h = mix(h, b7.c[k]);
  S6 a6 = {{static_cast<short>(i - 40), static_cast<short>(i * 3), static_cast<short>(-i)}};
  S6 b6 = fs6(a6);
  h = mix(h, b6.s[0]);
  h = mix(h, b6.s[1]);
  h = mix(h, b6.s[2]);
  char4 c = fc4(make_char4(static_cast<signed char>(i & 63), 2, 3, -4));
  char4 c2 = fc4(make_char4(-5, static_cast<signed char>(i & 15), 7, 8));
  h = mix(h, c.x + c.y * 256 + c.z * 65536 + c.w * 16777216);
  h = mix(h, c2.x + c2.y * 256 + c2.z * 65536 + c2.w * 16777216);
  short4 s = fsh4(make_short4(static_cast<short>(i), 2, -3, 4));
  short4 s2 = fsh4(make_short4(5, -6, static_cast<short>(i * 7), 8));
  h = mix(h, s.x);
  h = mix(h, s.y);
  h = mix(h, s.z);
  h = mix(h, s.w);
  h = mix(h, s2.x + s2.y * 65536ll + s2.z * 4294967296ll + s2.w * 281474976710656ll);
  Mixed m = {static_cast<signed char>(i & 127), static_cast<short>(i - 1000), i + 2, i + 0.25};
  Mixed mm = fmix(m);
  h = mix(h, mm.c);
  h = mix(h, mm.s);
  h = mix(h, mm.i);
  h = mix(h, static_cast<long long>(mm.d * 4));
  return h;
}

// More than R4..R15 hold: the later parameters and a 64-byte result go on
// the stack.
DEV R32 fstack(R32 a, int4 b, double2 c, R24 d) {
  R32 r;
  r.a = a.a + b.x + c.y;
  r.b = a.b * b.y + d.a;
  r.c = a.c + b.z + c.x + d.b;
  r.d = a.d - b.w + d.c;
  return r;
}
DEV R64 f64(R16 a, R32 b, R24 c) {
  R64 r;
  r.v[0] = static_cast<long long>(a.d);
  r.v[1] = a.i;
  r.v[2] = static_cast<long long>(b.a + b.b);
  r.v[3] = static_cast<long long>(b.c * b.d);
  r.v[4] = static_cast<long long>(c.a);
  r.v[5] = c.b + 0x100000000ll;
  r.v[6] = static_cast<long long>(c.c);
  r.v[7] = a.i * 7ll;
  return r;
}

CASE inline unsigned caseStack(unsigned t) {
  const int i = static_cast<int>(t);
  unsigned h = 4;
  R32 a = {i * 1.0, i + 1.0, i + 2.0, i * 3.0};
  R24 d = {i * 2.0, i - 5, i + 0.5};
  R32 r = fstack(a, make_int4(i, 2, 3, 4), make_double2(i + 1.0, 2.0), d);
  R32 r2 = fstack(a, make_int4(1, i, 3, i), make_double2(3.0, i * 1.0), d);
  h = mix(h, static_cast<long long>(r.a + r.b * 8 + r.c * 64 + r.d * 512));
  h = mix(h, static_cast<long long>(r2.a + r2.b * 8 + r2.c * 64 + r2.d * 512));
  R16 s = {i * 4.0, i + 9};
  R64 v = f64(s, a, d);
  for (int k = 0; k < 8; ++k) h = mix(h, v.v[k]);
  return h;
}

}  // namespace agg
