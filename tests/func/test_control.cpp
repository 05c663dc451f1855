// SIMT control flow on hand-written PTX: reconvergence after if/else,
// nested branches, loops with divergent trip counts, early exit, divergent
// returns from a .func; activemask shows which lanes run together.
#include <catch2/catch.hpp>

#include "func/memory.h"
#include "func/program.h"
#include "func_helpers.h"

using namespace rfsim;
using rfsim::test::Gpu;
using rfsim::test::ptxKernel;

namespace {

// out[tid*2] = activemask inside the branch, out[tid*2+1] = after the join.
const std::string kNested = ptxKernel("nested", ".param .u64 out", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  and.b32 %r3, %r1, 2;
  setp.eq.u32 %p2, %r3, 0;
  @%p2 bra ODD_A;
  activemask.b32 %r10;
  bra ODD_END;
ODD_A:
  activemask.b32 %r10;
ODD_END:
  bra JOIN;
EVEN:
  activemask.b32 %r10;
JOIN:
  activemask.b32 %r11;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  st.global.u32 [%rd3+4], %r11;
  ret;
)");

// sum of 0..tid-1 with a loop of tid iterations; activemask after the loop.
const std::string kLoop = ptxKernel("loop", ".param .u64 out", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra DONE;
TOP:
  add.s32 %r3, %r3, %r2;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, %r1;
  @%p2 bra TOP;
DONE:
  activemask.b32 %r4;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  ret;
)");

// Odd threads exit; the rest pass a barrier and record who is left.
const std::string kExit = ptxKernel("early", ".param .u64 out", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 exit;
  bar.sync 0;
  activemask.b32 %r4;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
)");

// classify() returns from three places; the caller checks it reconverged.
const std::string kDivergentRet = R"(
.version 9.0
.target sm_75
.address_size 64

.func (.param .b32 classify_ret) classify(.param .b32 classify_x)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [classify_x];
  setp.lt.s32 %p1, %r1, 10;
  @%p1 bra SMALL;
  setp.lt.s32 %p2, %r1, 20;
  @%p2 bra MID;
  mov.u32 %r2, 3;
  st.param.b32 [classify_ret], %r2;
  ret;
MID:
  mov.u32 %r2, 2;
  st.param.b32 [classify_ret], %r2;
  ret;
SMALL:
  mov.u32 %r2, 1;
  st.param.b32 [classify_ret], %r2;
  ret;
}

.visible .entry divret(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 a0;
  .param .b32 r0;
  st.param.b32 [a0], %r1;
  call.uni (r0), classify, (a0);
  ld.param.b32 %r2, [r0];
  }
  activemask.b32 %r3;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r3;
  ret;
}
)";

}  // namespace

TEST_CASE("nested if/else reconverges at the post-dominator", "[func]") {
  Gpu g(kNested);
  const uint64_t out = g.zeros<uint32_t>(64 * 2);
  const auto st = g.dev.launch("nested", {1}, {64}, rt::KernelArgs().ptr(out));
  const auto v = g.download<uint32_t>(out, 128);
  for (int t = 0; t < 64; ++t) {
    INFO("thread " << t);
    const uint32_t want = t % 2 == 0 ? 0x55555555u : t % 4 == 1 ? 0x22222222u : 0x88888888u;
    CHECK(v[t * 2] == want);
    CHECK(v[t * 2 + 1] == 0xffffffffu);
  }
  // Each of the two warps runs the three branch paths once.
  CHECK(st.warp_instrs_by_op[static_cast<size_t>(ptx::Op::Activemask)] == 2 * 4);
}

TEST_CASE("a loop with a different trip count per thread", "[func]") {
  Gpu g(kLoop);
  const uint64_t out = g.zeros<uint32_t>(64 * 2);
  const auto st = g.dev.launch("loop", {1}, {40}, rt::KernelArgs().ptr(out));
  const auto v = g.download<uint32_t>(out, 80);
  for (uint32_t t = 0; t < 40; ++t) {
    INFO("thread " << t);
    CHECK(v[t * 2] == t * (t - (t ? 1 : 0)) / 2);
    CHECK(v[t * 2 + 1] == (t < 32 ? 0xffffffffu : 0xffu));
  }
  // The loop body runs max(tid) times per warp: 31 for warp 0, 39 for warp 1.
  CHECK(st.warp_instrs_by_op[static_cast<size_t>(ptx::Op::Add)] == 2 * (31 + 39) + 2);  // + the address add
}

TEST_CASE("exit retires threads and the others pass the barrier", "[func]") {
  Gpu g(kExit);
  const uint64_t out = g.zeros<uint32_t>(64);
  g.dev.launch("early", {1}, {64}, rt::KernelArgs().ptr(out));
  const auto v = g.download<uint32_t>(out, 64);
  for (int t = 0; t < 64; ++t) CHECK(v[t] == (t % 2 ? 0u : 0x55555555u));
}

TEST_CASE("divergent returns from a .func reconverge after the call", "[func]") {
  Gpu g(kDivergentRet);
  const uint64_t out = g.zeros<uint32_t>(64);
  g.dev.launch("divret", {1}, {32}, rt::KernelArgs().ptr(out));
  const auto v = g.download<uint32_t>(out, 64);
  for (uint32_t t = 0; t < 32; ++t) {
    CHECK(v[t * 2] == (t < 10 ? 1u : t < 20 ? 2u : 3u));
    CHECK(v[t * 2 + 1] == 0xffffffffu);
  }
}

TEST_CASE("special registers", "[func]") {
  const std::string ptx = ptxKernel("sregs", ".param .u64 out", R"(
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %ctaid.y;
  mov.u32 %r7, %nctaid.x;
  mad.lo.s32 %r8, %r6, %r7, %r5;
  mul.lo.s32 %r8, %r8, 64;
  add.s32 %r8, %r8, %r4;
  mul.wide.u32 %rd2, %r8, 32;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r9, %laneid;
  st.global.u32 [%rd3], %r9;
  mov.u32 %r9, %warpid;
  st.global.u32 [%rd3+4], %r9;
  mov.u32 %r9, %lanemask_lt;
  st.global.u32 [%rd3+8], %r9;
  mov.u32 %r9, %lanemask_ge;
  st.global.u32 [%rd3+12], %r9;
  mov.u32 %r9, %ntid.y;
  st.global.u32 [%rd3+16], %r9;
  mov.u32 %r9, %nctaid.y;
  st.global.u32 [%rd3+20], %r9;
  mov.u32 %r9, %dynamic_smem_size;
  st.global.u32 [%rd3+24], %r9;
  mov.u32 %r9, %smid;
  st.global.u32 [%rd3+28], %r9;
  ret;
)");
  Gpu g(ptx);
  const uint64_t out = g.zeros<uint32_t>(6 * 64 * 8);
  g.dev.launch("sregs", {2, 3}, {8, 8}, rt::KernelArgs().ptr(out), 48);
  const auto v = g.download<uint32_t>(out, 6 * 64 * 8);
  for (uint32_t b = 0; b < 6; ++b)
    for (uint32_t t = 0; t < 64; ++t) {
      const uint32_t* o = &v[(b * 64 + t) * 8];
      const uint32_t lane = t % 32;
      INFO("block " << b << " thread " << t);
      CHECK(o[0] == lane);
      CHECK(o[1] == t / 32);
      CHECK(o[2] == (1u << lane) - 1);
      CHECK(o[3] == ~((1u << lane) - 1));
      CHECK(o[4] == 8);
      CHECK(o[5] == 3);
      CHECK(o[6] == 48);
      CHECK(o[7] == 0);
    }
}

TEST_CASE("named barriers: producer bar.arrive / consumer bar.sync with a count", "[func]") {
  const std::string ptx = ptxKernel("prodcons", ".param .u64 out", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
  add.s32 %r4, %r2, %r3;
  mul.lo.s32 %r5, %r1, 7;
  st.shared.u32 [%r4], %r5;
  bar.arrive 1, 64;
  ret;
CONSUMER:
  bar.sync 1, 64;
  sub.s32 %r6, %r3, 128;
  add.s32 %r4, %r2, %r6;
  ld.shared.u32 %r5, [%r4];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
)", ".shared .align 4 .b8 buf[128];");
  Gpu g(ptx);
  const uint64_t out = g.zeros<uint32_t>(64);
  g.dev.launch("prodcons", {1}, {64}, rt::KernelArgs().ptr(out));
  const auto v = g.download<uint32_t>(out, 64);
  for (uint32_t t = 32; t < 64; ++t) CHECK(v[t] == (t - 32) * 7);
}

TEST_CASE("guarded ret and exit inside a .func / barrier inside a .func", "[func]") {
  const std::string ptx = R"(
.version 9.0
.target sm_75
.address_size 64

.func (.param .b32 f_ret) f(.param .b32 f_x)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [f_x];
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 7;
  @%p1 exit;
  st.param.b32 [f_ret], %r1;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p2, %r2, 1;
  @%p2 ret;
  mul.lo.s32 %r3, %r1, 10;
  st.param.b32 [f_ret], %r3;
  ret;
}

.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 a0;
  .param .b32 r0;
  st.param.b32 [a0], %r1;
  call.uni (r0), f, (a0);
  ld.param.b32 %r2, [r0];
  }
  activemask.b32 %r3;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r3;
  ret;
}
)";
  Gpu g(ptx);
  const uint64_t out = g.zeros<uint32_t>(128);
  g.dev.launch("k", {1}, {64}, rt::KernelArgs().ptr(out));
  const auto v = g.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 64; ++t) {
    INFO("thread " << t);
    if (t == 7) {
      CHECK(v[t * 2] == 0);
      CHECK(v[t * 2 + 1] == 0);
      continue;
    }
    CHECK(v[t * 2] == (t % 2 ? t : t * 10));
    CHECK(v[t * 2 + 1] == (t < 32 ? ~(1u << 7) : 0xffffffffu));
  }
}

TEST_CASE("generic windows: cvta to and from shared and local", "[func]") {
  const std::string ptx = ptxKernel("win", ".param .u64 out", R"(
  .local .align 8 .b8 depot[16];
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, second;
  cvta.shared.u64 %rd3, %rd2;
  st.global.u64 [%rd1], %rd3;
  mov.u64 %rd4, depot;
  cvta.local.u64 %rd5, %rd4;
  st.global.u64 [%rd1+8], %rd5;
  mov.u32 %r1, 1234;
  st.u32 [%rd3+4], %r1;
  ld.shared.u32 %r2, [second+4];
  st.global.u32 [%rd1+16], %r2;
  st.u32 [%rd5+8], %r1;
  ld.local.u32 %r3, [depot+8];
  st.global.u32 [%rd1+20], %r3;
  cvta.to.shared.u64 %rd6, %rd3;
  st.global.u64 [%rd1+24], %rd6;
  st.shared.u32 [first], %r1;
  ret;
)", ".shared .align 8 .b8 first[24];\n.shared .align 8 .b8 second[16];");
  Gpu g(ptx);
  const uint64_t out = g.zeros<uint64_t>(4);
  g.dev.launch("win", {1}, {1}, rt::KernelArgs().ptr(out));
  const auto v = g.download<uint64_t>(out, 4);
  // `second` after `first`'s 24 bytes: at 24 in the PTX program; in the
  // machine program at 32, as the back end places shared variables of 16
  // bytes or more 16-byte aligned (ptxas' freedom, backend/prealloc.h).
  const uint64_t second_at = g.dev.options().machine ? 32 : 24;
  CHECK(v[0] == func::kSharedWindow + second_at);
  // The depot: at the bottom of the local window for the PTX's own frames; in
  // the machine program, in the kernel's 16-byte frame below the stack top.
  if (g.dev.options().machine)
    CHECK(v[1] == func::kLocalWindow + func::Limits{}.stack_bytes_per_thread - 16);
  else
    CHECK(v[1] == func::kLocalWindow + 0);
  CHECK(v[2] == (1234ull | (1234ull << 32)));
  CHECK(v[3] == second_at);
}

TEST_CASE("add.cc / addc keep a carry flag per lane", "[func]") {
  const std::string ptx = ptxKernel("carry", ".param .u64 out", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, -16;
  add.cc.u32 %r3, %r2, %r1;
  addc.u32 %r4, 5, 7;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  ret;
)");
  Gpu g(ptx);
  const uint64_t out = g.zeros<uint32_t>(64);
  g.dev.launch("carry", {1}, {32}, rt::KernelArgs().ptr(out));
  const auto v = g.download<uint32_t>(out, 64);
  for (uint32_t t = 0; t < 32; ++t) {
    const uint64_t sum = uint64_t{t - 16u} + t;  // (t - 16) mod 2^32, plus t
    CHECK(v[t * 2] == static_cast<uint32_t>(sum));
    CHECK(v[t * 2 + 1] == 12u + static_cast<uint32_t>(sum >> 32));
  }
}
