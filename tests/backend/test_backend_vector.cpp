// Shared-load vectorisation before allocation (backend/prealloc.h:
// vectorizeSharedLoads): which adjacent loads become .v2/.v4 (32-bit) or
// .v2 (64-bit) (provable
// alignment only; nothing in between that writes shared memory or touches a
// moved load's destination), and that the vectorised machine program
// computes what the scalar one did, run against answers computed here.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "../func/func_helpers.h"
#include "backend/backend.h"
#include "backend/lower.h"
#include "backend/prealloc.h"
#include "config/gpu_config.h"
#include "ptx/analysis/cfg.h"
#include "ptx/parser.h"

using namespace rfsim;

namespace {

// 64 threads: tile[k] = k * k + 1 for k < 128, then out[t] = a sum of loads
// in several shapes (a = t & ~3, 16-byte aligned as a byte offset a * 4):
//   A  [tile + 4a + 0/4/8/12] (a .v4), [.. + 16/20] (a .v2), [.. + 36] (alone)
//   B  [tile + 4t + 0/4]: alignment 4 only, stays scalar
//   C  [tile + 4a + 48], a st.shared, [.. + 52]: the store keeps them apart
//   D  [tile + 4a + 56], a read of the next load's destination, [.. + 60]
//   E  [tile + 32], [tile + 36]: the symbol's own address (a .v2)
//   F  [tile + 64], [tile + 72] as 64-bit values (a .v2.u64, 16 bytes)
//   L  a loop i = 0, 2 over [tile + 4i + 0/4]: i even by the fixed point (a .v2)
const char* kKernel = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry vec(.param .u64 out)
{
.reg .pred %p<2>;
.reg .b32 %r<60>;
.reg .b64 %rd<16>;
.shared .align 4 .b8 tile[512];
.shared .align 4 .b8 other[256];
mov.u32 %r1, %tid.x;
mov.u32 %r3, tile;
shl.b32 %r2, %r1, 2;
add.s32 %r4, %r3, %r2;
mad.lo.s32 %r8, %r1, %r1, 1;
st.shared.u32 [%r4], %r8;
add.s32 %r9, %r1, 64;
mad.lo.s32 %r10, %r9, %r9, 1;
st.shared.u32 [%r4+256], %r10;
bar.sync 0;
and.b32 %r5, %r1, -4;
shl.b32 %r6, %r5, 2;
add.s32 %r7, %r3, %r6;
ld.shared.u32 %r11, [%r7];
ld.shared.u32 %r12, [%r7+4];
ld.shared.u32 %r13, [%r7+8];
ld.shared.u32 %r14, [%r7+12];
ld.shared.u32 %r15, [%r7+16];
ld.shared.u32 %r16, [%r7+20];
ld.shared.u32 %r17, [%r7+36];
ld.shared.u32 %r18, [%r4];
ld.shared.u32 %r19, [%r4+4];
ld.shared.u32 %r20, [%r7+48];
mov.u32 %r40, other;
add.s32 %r41, %r40, %r2;
st.shared.u32 [%r41], %r1;
ld.shared.u32 %r21, [%r7+52];
mov.u32 %r22, 5;
ld.shared.u32 %r23, [%r7+56];
add.s32 %r24, %r23, %r22;
ld.shared.u32 %r22, [%r7+60];
ld.shared.u32 %r25, [tile+32];
ld.shared.u32 %r26, [tile+36];
add.s32 %r30, %r11, %r12;
add.s32 %r30, %r30, %r13;
add.s32 %r30, %r30, %r14;
add.s32 %r30, %r30, %r15;
add.s32 %r30, %r30, %r16;
add.s32 %r30, %r30, %r17;
add.s32 %r30, %r30, %r18;
add.s32 %r30, %r30, %r19;
add.s32 %r30, %r30, %r20;
add.s32 %r30, %r30, %r21;
add.s32 %r30, %r30, %r24;
add.s32 %r30, %r30, %r22;
add.s32 %r30, %r30, %r25;
add.s32 %r30, %r30, %r26;
ld.shared.u64 %rd10, [tile+64];
ld.shared.u64 %rd11, [tile+72];
add.s64 %rd12, %rd10, %rd11;
cvt.u32.u64 %r50, %rd12;
shr.u64 %rd13, %rd12, 32;
cvt.u32.u64 %r51, %rd13;
add.s32 %r30, %r30, %r50;
add.s32 %r30, %r30, %r51;
mov.u32 %r31, 0;
$loop:
shl.b32 %r32, %r31, 2;
add.s32 %r33, %r3, %r32;
ld.shared.u32 %r34, [%r33];
ld.shared.u32 %r35, [%r33+4];
add.s32 %r30, %r30, %r34;
add.s32 %r30, %r30, %r35;
add.s32 %r31, %r31, 2;
setp.lt.u32 %p1, %r31, 4;
@%p1 bra $loop;
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd2, %rd1;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd2, %rd2, %rd3;
st.global.u32 [%rd2], %r30;
ret;
}
)";

uint32_t tileAt(uint32_t k) { return k * k + 1; }

uint32_t expected(uint32_t t) {
  const uint32_t a = t & ~3u;
  uint32_t s = 0;
  for (uint32_t k : {0u, 1u, 2u, 3u, 4u, 5u, 9u, 12u, 13u, 14u, 15u}) s += tileAt(a + k);
  s += tileAt(t) + tileAt(t + 1) + 5;
  s += tileAt(8) + tileAt(9);
  for (uint32_t k = 16; k < 20; ++k) s += tileAt(k);
  for (uint32_t k = 0; k < 4; ++k) s += tileAt(k);
  return s;
}

uint32_t vectorLoads(const ptx::Module& machine) {
  uint32_t n = 0;
  for (const auto& fn : machine.functions)
    for (const auto& bb : fn.blocks)
      for (const auto& in : bb.instrs)
        n += in.op == ptx::Op::Ld && in.space == ptx::Space::Shared && in.mods.vec > 1;
  return n;
}

}  // namespace

TEST_CASE("vectorize: adjacent aligned shared loads merge, the rest stay scalar", "[backend][prealloc][vector]") {
  ptx::Module m = ptx::parseString(kKernel, "vec.ptx");
  ptx::buildCfg(m);
  backend::MFunction mf = backend::lowerFunction(m, 0);
  const backend::VectorStats st = backend::vectorizeSharedLoads(mf, m);
  // A's .v4 and .v2, E's .v2, F's .v2.u64 and L's .v2; B, C and D stay scalar.
  CHECK(st.loads == 5);
  CHECK(st.merged == 7);
  uint32_t v4 = 0, v2 = 0, scalar = 0;
  for (const auto& bb : mf.fn.blocks)
    for (const auto& in : bb.instrs)
      if (in.op == ptx::Op::Ld && in.space == ptx::Space::Shared) {
        v4 += in.mods.vec == 4;
        v2 += in.mods.vec == 2;
        scalar += in.mods.vec == 1;
      }
  CHECK(v4 == 1);
  CHECK(v2 == 4);
  CHECK(scalar == 7);  // A's +36, B's two, C's two, D's two
}

TEST_CASE("vectorize: the machine program computes the scalar program's sums", "[backend][prealloc][vector]") {
  for (bool on : {true, false}) {
    INFO("vectorize_shared " << on);
    backend::CompileOptions co;
    co.vectorize_shared = on;
    const backend::CompiledModule cm = backend::compileModule(ptx::parseString(kKernel, "vec.ptx"), co);
    CHECK((vectorLoads(cm.machine) >= 5) == on);
    CHECK((vectorLoads(cm.machine) == 0) == !on);

    config::GpuConfig gpu;
    gpu.compiler.vectorize_shared = on;
    test::Gpu g(kKernel, on ? "vec_on.ptx" : "vec_off.ptx", gpu);
    constexpr uint32_t n = 64;
    const uint64_t d_out = g.zeros<uint32_t>(n);
    g.dev.launch("vec", {1, 1, 1}, {n, 1, 1}, rt::KernelArgs().ptr(d_out));
    const std::vector<uint32_t> out = g.download<uint32_t>(d_out, n);
    for (uint32_t t = 0; t < n; ++t) {
      INFO("thread " << t);
      CHECK(out[t] == expected(t));
    }
  }
}

TEST_CASE("vectorize: shared variables of 16 bytes or more are placed 16-byte aligned", "[backend][prealloc][vector]") {
  ptx::Module m = ptx::parseString(kKernel, "vec.ptx");
  backend::alignSharedSymbols(m);
  uint32_t seen = 0;
  for (const auto& s : m.symbols)
    if (s.space == ptx::Space::Shared) {
      CHECK(s.align == 16);
      ++seen;
    }
  CHECK(seen == 2);
}
