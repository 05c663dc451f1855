// Loop unrolling before allocation (backend/prealloc.h: unrollLoops): which
// loops are unrolled, and that the unrolled program computes what the loop
// did for every trip count (the unrolled copy, the remainder loop, both,
// and a counter near the end of its range), run as machine programs
// against answers computed here.
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

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

// out[t] = sum of in[j] for j in [start[t], start[t] + len[t]), by four loop
// shapes over the same range (mode: 0 ascending `lt` counter, 1 a count
// down to 0 with `ne`, 2 a 64-bit pointer with unsigned `lt`, 3 the same as
// 0 marked nounroll, 4 the same as 0 with a barrier in the body, 5 the
// same as 0 with the bound written first: `setp.gt p, end, i`).
std::string loopKernel(int mode) {
  std::string body;
  switch (mode) {
    case 0: case 3: case 4: case 5:
      body =
          "add.s32 %r6, %r3, %r4;\n"  // end
          "mov.u32 %r7, %r3;\n"
          "$loop:\n" + std::string(mode == 3 ? ".pragma \"nounroll\";\n" : "") +
          "mul.wide.s32 %rd5, %r7, 4;\nadd.s64 %rd6, %rd2, %rd5;\nld.global.u32 %r8, [%rd6];\n"
          "add.s32 %r5, %r5, %r8;\n" + std::string(mode == 4 ? "bar.sync 0;\n" : "") +
          "add.s32 %r7, %r7, 1;\n" +
          std::string(mode == 5 ? "setp.gt.s32 %p2, %r6, %r7;\n" : "setp.lt.s32 %p2, %r7, %r6;\n") +
          "@%p2 bra $loop;\n";
      break;
    case 1:
      body =
          "mov.u32 %r7, %r3;\nmov.u32 %r9, %r4;\n"
          "$loop:\n"
          "mul.wide.s32 %rd5, %r7, 4;\nadd.s64 %rd6, %rd2, %rd5;\nld.global.u32 %r8, [%rd6];\n"
          "add.s32 %r5, %r5, %r8;\nadd.s32 %r7, %r7, 1;\n"
          "add.s32 %r9, %r9, -1;\nsetp.ne.s32 %p2, %r9, 0;\n@%p2 bra $loop;\n";
      break;
    default:
      body =
          "mul.wide.s32 %rd5, %r3, 4;\nadd.s64 %rd6, %rd2, %rd5;\n"
          "mul.wide.s32 %rd7, %r4, 4;\nadd.s64 %rd8, %rd6, %rd7;\n"
          "$loop:\n"
          "ld.global.u32 %r8, [%rd6];\nadd.s32 %r5, %r5, %r8;\n"
          "add.s64 %rd6, %rd6, 4;\nsetp.lt.u64 %p2, %rd6, %rd8;\n@%p2 bra $loop;\n";
  }
  return std::string(kHeader) +
         ".visible .entry sum(.param .u64 out, .param .u64 in, .param .u64 start, .param .u64 len)\n{\n"
         ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<20>;\n"
         "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd9, %r1, 4;\n"
         "ld.param.u64 %rd1, [in];\ncvta.to.global.u64 %rd2, %rd1;\n"
         "ld.param.u64 %rd10, [start];\ncvta.to.global.u64 %rd11, %rd10;\nadd.s64 %rd12, %rd11, %rd9;\n"
         "ld.global.u32 %r3, [%rd12];\n"
         "ld.param.u64 %rd13, [len];\ncvta.to.global.u64 %rd14, %rd13;\nadd.s64 %rd15, %rd14, %rd9;\n"
         "ld.global.u32 %r4, [%rd15];\n"
         "mov.u32 %r5, 0;\nsetp.lt.s32 %p1, %r4, 1;\n@%p1 bra $store;\n" +
         body +
         "$store:\n"
         "ld.param.u64 %rd16, [out];\ncvta.to.global.u64 %rd17, %rd16;\nadd.s64 %rd18, %rd17, %rd9;\n"
         "st.global.u32 [%rd18], %r5;\nret;\n}\n";
}

uint32_t unrolledLoops(const std::string& text, uint32_t factor) {
  ptx::Module m = ptx::parseString(text, "unroll.ptx");
  ptx::buildCfg(m);
  backend::MFunction mf = backend::lowerFunction(m, 0);
  return backend::unrollLoops(mf, factor, 64).loops;
}

void checkSums(const std::string& text, uint32_t unroll) {
  constexpr uint32_t n = 64;
  std::vector<uint32_t> in(256), start(n), len(n);
  for (uint32_t j = 0; j < in.size(); ++j) in[j] = j * 7 + 3;
  for (uint32_t t = 0; t < n; ++t) {
    start[t] = (t * 13) % 100;
    len[t] = t % 19;  // 0 (no iteration) .. 18: every remainder of 4, below and above one unrolled copy
  }
  config::GpuConfig gpu;
  gpu.compiler.unroll = unroll;
  test::Gpu g(text, "unroll_" + std::to_string(unroll) + ".ptx", gpu);
  const uint64_t d_out = g.zeros<uint32_t>(n), d_in = g.upload(in), d_s = g.upload(start), d_l = g.upload(len);
  g.dev.launch("sum", {1, 1, 1}, {n, 1, 1}, rt::KernelArgs().ptr(d_out).ptr(d_in).ptr(d_s).ptr(d_l));
  const std::vector<uint32_t> out = g.download<uint32_t>(d_out, n);
  for (uint32_t t = 0; t < n; ++t) {
    uint32_t want = 0;
    for (uint32_t j = start[t]; j < start[t] + len[t]; ++j) want += in[j];
    INFO("thread " << t << ", " << len[t] << " iterations");
    CHECK(out[t] == want);
  }
}

}  // namespace

TEST_CASE("unroll: counted single-block loops are unrolled, nounroll and barrier loops are not",
          "[backend][prealloc][unroll]") {
  CHECK(unrolledLoops(loopKernel(0), 4) == 1);
  CHECK(unrolledLoops(loopKernel(1), 4) == 1);
  CHECK(unrolledLoops(loopKernel(2), 4) == 1);
  CHECK(unrolledLoops(loopKernel(3), 4) == 0);
  CHECK(unrolledLoops(loopKernel(4), 4) == 0);
  CHECK(unrolledLoops(loopKernel(5), 4) == 1);
  CHECK(unrolledLoops(loopKernel(0), 1) == 0);
}

TEST_CASE("unroll: the unrolled loops compute the loop's sums for every trip count", "[backend][prealloc][unroll]") {
  for (int mode : {0, 1, 2, 5})
    for (uint32_t unroll : {0u, 2u, 4u, 8u}) {
      INFO("loop shape " << mode << ", unrolled " << unroll << " times");
      checkSums(loopKernel(mode), unroll);
    }
}

TEST_CASE("unroll: the copies' loads overlap, so the unrolled loop takes more registers", "[backend][prealloc][unroll]") {
  auto regs = [](uint32_t unroll) {
    backend::CompileOptions o;
    o.unroll = unroll;
    const backend::CompiledModule cm = backend::compileModule(ptx::parseString(loopKernel(0), "u.ptx"), o);
    return cm.find("sum")->regs;
  };
  CHECK(regs(4) > regs(0));
}

TEST_CASE("unroll: a counter close to the end of its range takes the rolled loop, not a wrapped guard",
          "[backend][prealloc][unroll]") {
  // for (i = 0x7ffffffc; i < 0x7fffffff; ++i) out += (i & 0xff) + *out: three
  // iterations; i + 3 wraps to a negative number, which is below the bound.
  const std::string text = std::string(kHeader) +
      ".visible .entry sum(.param .u64 out)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n"
      "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
      "mov.u32 %r1, 2147483644;\nmov.u32 %r2, 0;\nmov.u32 %r5, 2147483647;\n"
      "$loop:\nld.global.u32 %r4, [%rd2];\nand.b32 %r3, %r1, 255;\nadd.s32 %r2, %r2, %r3;\nadd.s32 %r2, %r2, %r4;\n"
      "add.s32 %r1, %r1, 1;\nsetp.lt.s32 %p1, %r1, %r5;\n@%p1 bra $loop;\n"
      "st.global.u32 [%rd2], %r2;\nret;\n}\n";
  CHECK(unrolledLoops(text, 4) == 1);
  test::Gpu g(text, "unroll_wrap.ptx");  // the machine program, as every Device compiles by default
  const uint64_t d = g.zeros<uint32_t>(1);  // the loop adds what it loads from here: 0
  g.dev.launch("sum", {1, 1, 1}, {1, 1, 1}, rt::KernelArgs().ptr(d));
  CHECK(g.download<uint32_t>(d, 1)[0] == 0xfc + 0xfd + 0xfe);
}
