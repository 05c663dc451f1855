// The executor's machine mode (ptx/machine.h): physical registers shared by
// every call frame, 64-bit pairs, RZ, the R1 stack in local memory, calls
// that pass nothing but registers, built-ins through registers, and the
// per-role statistics. Machine programs come from machine_helpers.h (a naive
// allocation of parsed PTX, with %R<n>/%RD<n>/%P<n> pinned).
#include <catch2/catch.hpp>

#include <sstream>

#include "common/error.h"
#include "kernels_ptx.h"
#include "machine_helpers.h"

using namespace rfsim;
using Catch::Matchers::Contains;
using test::arg;
using test::MachineRun;
using test::parseMachine;

namespace {

const std::string kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

// Mixed 16-, 32- and 64-bit arithmetic, compares, selects, conversions.
const std::string kArith = kHead + R"(
.visible .entry arith(.param .u64 out, .param .u32 k)
{
  .reg .pred %p<4>;
  .reg .b16 %h<6>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [k];
  mov.u32 %r2, %tid.x;
  mad.lo.s32 %r3, %r2, %r1, -77;
  mul.wide.s32 %rd2, %r3, 1000003;
  shl.b64 %rd3, %rd2, 13;
  xor.b64 %rd4, %rd3, %rd2;
  add.s64 %rd5, %rd4, 0x123456789;
  mul.hi.u64 %rd6, %rd5, %rd5;
  cvt.u16.u32 %h1, %r3;
  add.u16 %h2, %h1, 60000;
  cvt.u32.u16 %r4, %h2;
  setp.gt.s32 %p1, %r3, 0;
  selp.b64 %rd7, %rd5, %rd6, %p1;
  shr.s64 %rd8, %rd7, 3;
  cvt.u32.u64 %r5, %rd8;
  mov.b64 {%r6, %r7}, %rd8;
  add.s32 %r8, %r6, %r7;
  mul.wide.u32 %rd9, %r2, 64;
  add.s64 %rd10, %rd1, %rd9;
  st.global.u64 [%rd10], %rd7;
  st.global.u64 [%rd10+8], %rd6;
  st.global.v2.u32 [%rd10+16], {%r4, %r5};
  st.global.u32 [%rd10+24], %r8;
  setp.lt.u32 %p2|%p3, %r2, 9;
  selp.b32 %r9, 1, 2, %p3;
  shfl.sync.bfly.b32 %r10|%p2, %r8, 1, 31, -1;
  selp.b32 %r11, %r9, %r10, %p2;
  st.global.v2.u32 [%rd10+32], {%r10, %r11};
  add.s64 %rd12, %rd1, 4096;
  atom.global.add.u64 %rd11, [%rd12], %rd5;
  st.global.u64 [%rd10+40], %rd11;
  ld.global.v2.u64 {%rd13, %rd14}, [%rd10];
  add.s64 %rd15, %rd13, %rd14;
  st.global.v2.u64 [%rd10+48], {%rd15, %rd13};
  ret;
}
)";

std::vector<uint8_t> runArith(ptx::Module m) {
  MachineRun r(std::move(m));
  const uint64_t out = r.upload(std::vector<uint8_t>(64 * 64 + 8, 0));
  r.prog.launch("arith", {1}, {64}, {arg(out), arg<uint32_t>(12345)});
  return r.download<uint8_t>(out, 64 * 64 + 8);
}

}  // namespace

TEST_CASE("machine mode: 16/32/64-bit arithmetic matches IR mode", "[machine]") {
  const auto ir = runArith(ptx::parseString(kArith, "arith.ptx"));
  const auto mc = runArith(parseMachine(kArith));
  CHECK(ir == mc);
  uint64_t sum = 0;
  std::memcpy(&sum, ir.data() + 4096, 8);
  CHECK(sum != 0);  // the atomics ran
}

// (Kernels needing more than P0..P6 under the naive allocation are left out.)
TEST_CASE("machine mode: call-free kernels of the test suite match IR mode", "[machine]") {
  const std::set<std::string> keep = {"saxpy", "histogram", "vectors"};
  auto run = [&](bool machine) {
    ptx::Module m = ptx::parseString(test::kKernelsPtx, "kernels.ptx");
    if (machine) m = test::toMachine(std::move(m), keep);
    MachineRun r(std::move(m));
    std::vector<uint32_t> data(512);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint32_t>(i * 2654435761u % 977 + 1);
    std::vector<float> f(512);
    for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(i) * 0.37f - 20.f;
    std::vector<std::vector<uint8_t>> outs;
    const int n = 500;
    {
      const uint64_t x = r.upload(f), y = r.upload(f);
      r.prog.launch("saxpy", {2}, {256}, {arg(n), arg(1.5f), arg(x), arg(y)});
      outs.push_back(r.download<uint8_t>(y, 2048));
    }
    {
      const uint64_t in = r.upload(std::vector<uint8_t>(data.begin(), data.end()));
      const uint64_t bins = r.upload(std::vector<uint32_t>(256, 0));
      r.prog.launch("histogram", {2}, {128}, {arg(in), arg(bins), arg(n)});
      outs.push_back(r.download<uint8_t>(bins, 1024));
    }
    {
      const uint64_t in = r.upload(f), o = r.upload(std::vector<float>(512, 0)), pr = r.upload(data);
      r.prog.launch("vectors", {1}, {64}, {arg(in), arg(o), arg(pr)});
      outs.push_back(r.download<uint8_t>(o, 2048));
      outs.push_back(r.download<uint8_t>(pr, 2048));
    }
    return outs;
  };
  const auto ir = run(false), mc = run(true);
  REQUIRE(ir.size() == mc.size());
  for (size_t i = 0; i < ir.size(); ++i) CHECK(ir[i] == mc[i]);
}

TEST_CASE("machine mode: a 64-bit pair is two 32-bit registers, RZ reads zero", "[machine]") {
  const std::string text = kHead + R"(
.visible .entry pairs(.param .u64 out)
{
  .reg .b32 %R<16>;
  .reg .b64 %RD<16>;
  .reg .b32 %RZ;
  .reg .b64 %RZD;
  ld.param.u64 %RD8, [out];
  mov.b64 %RD4, 0x1122334455667788;
  st.global.u32 [%RD8], %R4;
  st.global.u32 [%RD8+4], %R5;
  mov.u32 %R6, 0xdeadbeef;
  mov.u32 %R7, 0x01020304;
  st.global.u64 [%RD8+8], %RD6;
  mov.u32 %RZ, 7;
  add.u32 %R10, %RZ, 5;
  st.global.u32 [%RD8+16], %R10;
  st.global.u32 [%RD8+20], %RZ;
  add.s64 %RZD, %RD4, 1;
  st.global.u64 [%RD8+24], %RZD;
  ld.global.u32 %RZ, [%RD8];
  st.global.u32 [%RD8+32], %RZ;
  add.s64 %RD10, %RD4, 0xffffffff;
  st.global.u32 [%RD8+36], %R11;
  mov.u32 %R1, %R1;
  st.global.u32 [%RD8+40], %R1;
  ret;
}
)";
  MachineRun r(parseMachine(text));
  const uint64_t out = r.upload(std::vector<uint32_t>(12, 0xaaaaaaaau));
  r.prog.launch("pairs", {1}, {1}, {arg(out)});
  const auto v = r.download<uint32_t>(out, 12);
  CHECK(v[0] == 0x55667788u);
  CHECK(v[1] == 0x11223344u);
  CHECK(v[2] == 0xdeadbeefu);
  CHECK(v[3] == 0x01020304u);
  CHECK(v[4] == 5);
  CHECK(v[5] == 0);
  CHECK(v[6] == 0);
  CHECK(v[7] == 0);
  CHECK(v[8] == 0);
  CHECK(v[9] == 0x11223345u);  // carry from the low word into the high register
  CHECK(v[10] == func::Limits{}.stack_bytes_per_thread);  // R1 starts at the stack top
}

TEST_CASE("machine mode: the R1 stack in local memory grows down on demand", "[machine]") {
  const std::string text = kHead + R"(
.visible .entry stack(.param .u64 out, .param .u32 frame)
{
  .reg .b32 %R<16>;
  .reg .b64 %RD<16>;
  ld.param.u64 %RD8, [out];
  ld.param.u32 %R4, [frame];
  mov.u32 %R5, %tid.x;
  sub.u32 %R1, %R1, %R4;
  st.local.u32 [%R1], %R5;
  mul.wide.u32 %RD6, %R5, 1000000007;
  st.local.u64 [%R1+8], %RD6;
  add.u32 %R2, %R1, %R4;
  st.local.u32 [%R2+-4], %R5;
  cvt.u64.u32 %RD10, %R1;
  cvta.local.u64 %RD10, %RD10;
  ld.u32 %R3, [%RD10];
  ld.local.u64 %RD12, [%R1+8];
  ld.local.u32 %R14, [%R2+-4];
  add.u32 %R1, %R1, %R4;
  mul.wide.u32 %RD6, %R5, 24;
  add.s64 %RD8, %RD8, %RD6;
  st.global.u32 [%RD8], %R3;
  st.global.u64 [%RD8+8], %RD12;
  st.global.u32 [%RD8+16], %R14;
  st.global.u32 [%RD8+20], %R1;
  ret;
}
)";
  MachineRun r(parseMachine(text));
  for (uint32_t frame : {32u, 4096u, 300000u}) {
    INFO("frame " << frame);
    const uint64_t out = r.upload(std::vector<uint32_t>(6 * 40, 0));
    r.prog.launch("stack", {1}, {40}, {arg(out), arg(frame)});
    const auto v = r.download<uint32_t>(out, 6 * 40);
    for (uint32_t t = 0; t < 40; ++t) {
      CHECK(v[t * 6] == t);
      const uint64_t want = uint64_t{t} * 1000000007u;
      CHECK((v[t * 6 + 2] | uint64_t{v[t * 6 + 3]} << 32) == want);
      CHECK(v[t * 6 + 4] == t);
      CHECK(v[t * 6 + 5] == func::Limits{}.stack_bytes_per_thread);
    }
  }
}

TEST_CASE("machine mode: local accesses outside the stack are clean errors", "[machine]") {
  const std::string text = kHead + R"(
.visible .entry bad(.param .u32 off)
{
  .reg .b32 %R<16>;
  ld.param.u32 %R4, [off];
  add.u32 %R1, %R1, %R4;
  st.local.u32 [%R1], %R4;
  ret;
}
)";
  MachineRun r(parseMachine(text));
  auto err = [&](uint32_t off) -> std::string {
    try {
      r.prog.launch("bad", {1}, {32}, {arg(off)});
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string at_top = err(0);
  CHECK_THAT(at_top, Contains("machine.ptx:10") && Contains("kernel bad") && Contains("thread (0,0,0)") &&
                         Contains("st.local.u32") && Contains("local address 0x100000"));
  CHECK_THAT(err(0u - (1u << 20) - 4u), Contains("local address 0xfffffffc"));  // below 0: wraps past the top
  CHECK(err(0u - 64u) == "no error");
}

TEST_CASE("machine mode: decode refuses .local symbols and missing widths", "[machine]") {
  const std::string text = kHead + R"(
.visible .entry loc()
{
  .local .align 4 .b8 buf[16];
  .reg .b32 %R<8>;
  st.local.u32 [buf], %R4;
  ret;
}
)";
  CHECK_THROWS_WITH(MachineRun(parseMachine(text)), Contains("machine program") && Contains("st.local"));
  ptx::Module m = parseMachine(kArith);
  m.functions[0].blocks[0].instrs[2].dst[0].mbits = 0;
  CHECK_THROWS_WITH(MachineRun(std::move(m)), Contains("mbits"));
}

namespace {

// inc: R4 += 1, and clobbers R8 (a caller-saved register) with 99.
// fib: R4 = fib(R4), keeping R16/R17 in its frame ([R1], [R1+4]).
const std::string kCalls = kHead + R"(
.visible .func inc()
{
  .reg .b32 %R<32>;
  add.s32 %R4, %R4, 1;
  mov.u32 %R8, 99;
  ret;
}
.visible .func dec()
{
  .reg .b32 %R<32>;
  sub.s32 %R4, %R4, 1;
  mov.u32 %R8, 77;
  ret;
}
.visible .func fib()
{
  .reg .b32 %R<32>;
  .reg .pred %P<7>;
  sub.u32 %R1, %R1, 16;
  st.local.u32 [%R1], %R16;
  st.local.u32 [%R1+4], %R17;
  setp.lt.u32 %P0, %R4, 2;
  @%P0 bra DONE;
  mov.u32 %R16, %R4;
  sub.u32 %R4, %R16, 1;
  call.uni fib;
  mov.u32 %R17, %R4;
  sub.u32 %R4, %R16, 2;
  call.uni fib;
  add.u32 %R4, %R4, %R17;
DONE:
  ld.local.u32 %R16, [%R1];
  ld.local.u32 %R17, [%R1+4];
  add.u32 %R1, %R1, 16;
  ret;
}
.visible .entry calls(.param .u64 out)
{
  .reg .b32 %R<32>;
  .reg .b64 %RD<32>;
  .reg .pred %P<7>;
  proto: .callprototype ()_ ();
  ld.param.u64 %RD20, [out];
  mov.u32 %R2, %tid.x;
  mul.wide.u32 %RD22, %R2, 16;
  add.s64 %RD20, %RD20, %RD22;
  mov.u32 %R8, 5;
  mov.u32 %R4, %R2;
  call.uni inc;
  st.global.u32 [%RD20], %R4;
  st.global.u32 [%RD20+4], %R8;
  and.b32 %R4, %R2, 15;
  mov.u32 %R16, 1234;
  call.uni fib;
  st.global.u32 [%RD20+8], %R4;
  st.global.u32 [%RD20+12], %R16;
  ret;
}
.visible .entry icall(.param .u64 out)
{
  .reg .b32 %R<32>;
  .reg .b64 %RD<32>;
  .reg .pred %P<7>;
  proto: .callprototype ()_ ();
  ld.param.u64 %RD20, [out];
  mov.u32 %R2, %tid.x;
  mul.wide.u32 %RD22, %R2, 8;
  add.s64 %RD20, %RD20, %RD22;
  mov.u64 %RD24, inc;
  mov.u64 %RD26, dec;
  and.b32 %R3, %R2, 1;
  setp.eq.u32 %P3, %R3, 0;
  selp.b64 %RD6, %RD24, %RD26, %P3;
  mov.u32 %R4, 100;
  mov.u32 %R8, 0;
  call.uni %RD6, (), proto;
  st.global.u32 [%RD20], %R4;
  st.global.u32 [%RD20+4], %R8;
  ret;
}
)";

uint32_t fibRef(uint32_t n) { return n < 2 ? n : fibRef(n - 1) + fibRef(n - 2); }
uint64_t fibCalls(uint32_t n) { return n < 2 ? 1 : 1 + fibCalls(n - 1) + fibCalls(n - 2); }

}  // namespace

TEST_CASE("machine mode: frames share one register file, recursion through the stack", "[machine]") {
  ptx::Module m = parseMachine(kCalls);
  // Tag the frame traffic of fib so the per-role statistics can be checked.
  const uint32_t fib = m.function_index.at("fib");
  for (ptx::BasicBlock& b : m.functions[fib].blocks)
    for (ptx::Instr& in : b.instrs) {
      if (in.op == ptx::Op::St) in.role = ptx::MRole::Save;
      if (in.op == ptx::Op::Ld) in.role = ptx::MRole::Restore;
      if ((in.op == ptx::Op::Sub || in.op == ptx::Op::Add) && in.dst[0].regs[0] == ptx::mach::kSP)
        in.role = ptx::MRole::StackAdj;
    }
  MachineRun r(std::move(m));
  const uint64_t out = r.upload(std::vector<uint32_t>(64 * 4, 0));
  const rt::LaunchStats s = r.prog.launch("calls", {1}, {64}, {arg(out)});
  const auto v = r.download<uint32_t>(out, 64 * 4);
  uint64_t calls = 0;
  for (uint32_t t = 0; t < 64; ++t) {
    INFO("thread " << t);
    CHECK(v[t * 4] == t + 1);
    CHECK(v[t * 4 + 1] == 99);  // the callee's write to R8 is the caller's R8
    CHECK(v[t * 4 + 2] == fibRef(t & 15));
    CHECK(v[t * 4 + 3] == 1234);  // R16 restored from the stack
    calls += fibCalls(t & 15);
  }
  using ptx::MRole;
  auto thr = [&](MRole x) { return s.thread_instrs_by_role[static_cast<size_t>(x)]; };
  auto wrp = [&](MRole x) { return s.warp_instrs_by_role[static_cast<size_t>(x)]; };
  CHECK(thr(MRole::Save) == 2 * calls);
  CHECK(thr(MRole::Restore) == 2 * calls);
  CHECK(thr(MRole::StackAdj) == 2 * calls);
  CHECK(thr(MRole::Spill) == 0);
  CHECK(wrp(MRole::Save) > 0);
  CHECK(wrp(MRole::Save) < thr(MRole::Save));
  uint64_t wsum = 0, tsum = 0;
  for (size_t i = 0; i < s.warp_instrs_by_role.size(); ++i) {
    wsum += s.warp_instrs_by_role[i];
    tsum += s.thread_instrs_by_role[i];
  }
  CHECK(wsum == s.warp_instrs);
  CHECK(tsum == s.thread_instrs);
}

TEST_CASE("machine mode: an indirect call reads its target from a register pair", "[machine]") {
  MachineRun r(parseMachine(kCalls));
  const uint64_t out = r.upload(std::vector<uint32_t>(48 * 2, 0));
  r.prog.launch("icall", {1}, {48}, {arg(out)});
  const auto v = r.download<uint32_t>(out, 48 * 2);
  for (uint32_t t = 0; t < 48; ++t) {
    INFO("thread " << t);
    CHECK(v[t * 2] == (t % 2 == 0 ? 101u : 99u));
    CHECK(v[t * 2 + 1] == (t % 2 == 0 ? 99u : 77u));
  }
}

TEST_CASE("machine mode: malloc, free and vprintf take and return registers", "[machine]") {
  const std::string text = kHead + R"(
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt_str[9] = {116, 37, 100, 32, 37, 108, 120, 10, 0};
.visible .entry heap(.param .u64 out)
{
  .reg .b32 %R<32>;
  .reg .b64 %RD<32>;
  .param .b64 a0;
  .param .b64 a1;
  .param .b64 r64;
  .param .b32 r32;
  ld.param.u64 %RD20, [out];
  mov.u32 %R2, %tid.x;
  mul.wide.u32 %RD22, %R2, 16;
  add.s64 %RD20, %RD20, %RD22;
  mov.u64 %RD4, 64;
  call.uni (r64), malloc, (a0);
  mov.u64 %RD16, %RD4;
  st.u32 [%RD16+60], %R2;
  ld.u32 %R3, [%RD16+60];
  st.global.u32 [%RD20], %R3;
  sub.u32 %R1, %R1, 16;
  st.local.u32 [%R1], %R2;
  mov.u64 %RD8, 0xabc;
  st.local.u64 [%R1+8], %RD8;
  cvt.u64.u32 %RD6, %R1;
  cvta.local.u64 %RD6, %RD6;
  mov.u64 %RD4, fmt_str;
  call.uni (r32), vprintf, (a0, a1);
  add.u32 %R1, %R1, 16;
  st.global.u32 [%RD20+4], %R4;
  mov.u64 %RD4, %RD16;
  call.uni free, (a0);
  ret;
}
)";
  MachineRun r(parseMachine(text));
  std::ostringstream os;
  r.prog.setPrintStream(&os);
  const uint64_t out = r.upload(std::vector<uint32_t>(4 * 4, 0));
  r.prog.launch("heap", {1}, {4}, {arg(out)});
  CHECK(os.str() == "t0 abc\nt1 abc\nt2 abc\nt3 abc\n");
  const auto v = r.download<uint32_t>(out, 16);
  for (uint32_t t = 0; t < 4; ++t) {
    CHECK(v[t * 4] == t);
    CHECK(v[t * 4 + 1] == 7);  // vprintf's result: the characters written
  }
  CHECK(r.mem.liveBytes(func::AllocKind::Heap) == 0);  // every block freed through R4:R5
}

TEST_CASE("IR mode: every instruction counts as Code", "[machine]") {
  MachineRun r(ptx::parseString(kArith, "arith.ptx"));
  const uint64_t out = r.upload(std::vector<uint8_t>(64 * 64 + 8, 0));
  const rt::LaunchStats s = r.prog.launch("arith", {1}, {64}, {arg(out), arg<uint32_t>(3)});
  CHECK(s.warp_instrs_by_role[0] == s.warp_instrs);
  CHECK(s.thread_instrs_by_role[0] == s.thread_instrs);
}
