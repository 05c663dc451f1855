// Every error names file:line, kernel, block, thread and address:
// out-of-bounds and misaligned accesses, traps, deadlocks, unsupported
// instructions at load, bad launches.
#include <catch2/catch.hpp>

#include "func_helpers.h"
#include "common/error.h"
#include "func/memory.h"

using namespace rfsim;
using Catch::Matchers::Contains;
using rfsim::test::Gpu;
using rfsim::test::ptxKernel;

namespace {

// Thread t loads 4 bytes at p + off + 4*t (the ld is line 16 of the file).
const std::string kLoad = ptxKernel("load", ".param .u64 p, .param .u64 off", R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [off];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd4, %rd2;
  ld.global.u32 %r2, [%rd5];
  ret;
)");

std::string launchError(Gpu& g, const std::string& kernel, rt::Dim3 grid, rt::Dim3 block, const rt::KernelArgs& a,
                        uint32_t smem = 0) {
  try {
    g.dev.launch(kernel, grid, block, a, smem);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("out-of-bounds global load names kernel / line / block / thread / address", "[func]") {
  Gpu g(kLoad, "load.ptx");
  const uint64_t p = g.zeros<uint32_t>(4);  // 16 bytes: threads 0..3 are fine
  const std::string e = launchError(g, "load", {2}, {8}, rt::KernelArgs().ptr(p).i64(0));
  CHECK_THAT(e, Contains("load.ptx:16: kernel load block (0,0,0) thread (4,0,0): ld.global.u32 out of bounds at " +
                         func::hex(p + 16) + " (allocation " + func::hex(p) + " + 16 bytes)"));
}

TEST_CASE("an access straddling the end of an allocation is out of bounds", "[func]") {
  Gpu g(kLoad, "load.ptx");
  const uint64_t p = g.dev.malloc(18);
  g.dev.memset(p, 0, 18);
  const std::string e = launchError(g, "load", {1}, {1}, rt::KernelArgs().ptr(p).i64(16));
  CHECK_THAT(e, Contains("thread (0,0,0): ld.global.u32 out of bounds at " + func::hex(p + 16)));
}

TEST_CASE("misaligned and null accesses", "[func]") {
  Gpu g(kLoad, "load.ptx");
  const uint64_t p = g.zeros<uint32_t>(64);
  CHECK_THAT(launchError(g, "load", {1}, {4}, rt::KernelArgs().ptr(p).i64(2)),
             Contains("ld.global.u32 misaligned address " + func::hex(p + 2) + " for a 4-byte access"));
  CHECK_THAT(launchError(g, "load", {1}, {4}, rt::KernelArgs().ptr(0).i64(0)),
             Contains("thread (0,0,0): ld.global.u32 out of bounds at 0x0 (no allocation)"));
}

TEST_CASE("shared-memory bounds include the dynamic part", "[func]") {
  const std::string ptx = ptxKernel("sh", ".param .u32 off", R"(
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [off];
  mov.u32 %r2, dyn;
  add.s32 %r3, %r2, %r1;
  st.shared.u32 [%r3], %r1;
  st.shared.u32 [fixed], %r1;
  ret;
)", ".shared .align 4 .b8 fixed[64];\n.extern .shared .align 16 .b8 dyn[];");
  Gpu g(ptx, "sh.ptx");
  CHECK(launchError(g, "sh", {1}, {1}, rt::KernelArgs().u32(124), 128) == "no error");
  CHECK_THAT(launchError(g, "sh", {1}, {1}, rt::KernelArgs().u32(128), 128),
             Contains("st.shared.u32 out of bounds at shared address 0xc0 (shared memory of 192 bytes: 64 static, "
                      "128 dynamic)"));
}

TEST_CASE("barrier deadlocks are reported", "[func]") {
  SECTION("warps wait at different barriers") {
    const std::string ptx = ptxKernel("dl", "", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra FIRST;
  bar.sync 1;
  ret;
FIRST:
  bar.sync 0;
  ret;
)");
    Gpu g(ptx, "dl.ptx");
    const std::string e = launchError(g, "dl", {2}, {64}, rt::KernelArgs());
    CHECK_THAT(e, Contains("kernel dl block (0,0,0): deadlock"));
    CHECK_THAT(e, Contains("warp 0 waits at barrier 0 (line 16)"));
    CHECK_THAT(e, Contains("warp 1 waits at barrier 1 (line 13)"));
  }
  SECTION("a counted barrier that the remaining threads cannot fill") {
    const std::string ptx = ptxKernel("dl2", "", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 exit;
  bar.sync 1, 64;
  ret;
)");
    Gpu g(ptx, "dl2.ptx");
    const std::string e = launchError(g, "dl2", {1}, {64}, rt::KernelArgs());
    CHECK_THAT(e, Contains("dl2.ptx:13: kernel dl2 block (0,0,0): deadlock"));
    CHECK_THAT(e, Contains("expecting 64 threads, 32 arrived"));
  }
}

TEST_CASE("trap stops the launch with the thread that trapped", "[func]") {
  const std::string ptx = ptxKernel("tr", "", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 5;
  @%p1 trap;
  ret;
)");
  Gpu g(ptx, "tr.ptx");
  CHECK_THAT(launchError(g, "tr", {3}, {32}, rt::KernelArgs()),
             Contains("tr.ptx:12: kernel tr block (0,0,0) thread (5,0,0): trap"));
}

TEST_CASE("unsupported instructions are refused at load with file:line and text", "[func]") {
  const std::string ptx = R"(.version 9.0
.target sm_75
.address_size 64
.extern .func helper();
.visible .entry k()
{
  call.uni helper, ();
  ret;
}
)";
  rt::Device dev;
  try {
    dev.loadModule(test::writePtx(ptx, "ext.ptx"));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Contains("ext.ptx:7: unsupported instruction"));
    CHECK_THAT(e.what(), Contains("external function 'helper'"));
  }
}

TEST_CASE("launch checks dimensions and parameters", "[func]") {
  Gpu g(kLoad, "load.ptx");
  const uint64_t p = g.zeros<uint32_t>(4);
  CHECK_THAT(launchError(g, "load", {1}, {1025}, rt::KernelArgs().ptr(p).i64(0)), Contains("more than 1024"));
  CHECK_THAT(launchError(g, "load", {0}, {1}, rt::KernelArgs().ptr(p).i64(0)), Contains("must be positive"));
  CHECK_THAT(launchError(g, "load", {1}, {1}, rt::KernelArgs().ptr(p)), Contains("1 arguments given, the kernel has 2"));
  CHECK_THAT(launchError(g, "load", {1}, {1}, rt::KernelArgs().ptr(p).i32(0)), Contains("argument 1 has 4 bytes"));
  CHECK_THAT(launchError(g, "nothere", {1}, {1}, rt::KernelArgs()), Contains("no kernel"));
}

TEST_CASE("host copies outside an allocation are refused", "[func]") {
  Gpu g(kLoad, "load.ptx");
  const uint64_t p = g.zeros<uint32_t>(4);
  std::vector<uint8_t> buf(32);
  CHECK_THROWS_WITH(g.dev.memcpyHtoD(p + 8, buf.data(), 16), Contains("outside device memory"));
  CHECK_THROWS_WITH(g.dev.memcpyDtoH(buf.data(), p - 4, 4), Contains("outside device memory"));
  g.dev.free(p);
  CHECK_THROWS_WITH(g.dev.free(p), Contains("not the start of a live"));
}

TEST_CASE("constant memory and kernel parameters are read-only", "[func]") {
  const std::string ptx = ptxKernel("ro", ".param .u32 which", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [which];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra PARAM;
  mov.u64 %rd1, table;
  st.u32 [%rd1], %r1;
  ret;
PARAM:
  mov.u64 %rd2, which;
  cvta.param.u64 %rd3, %rd2;
  st.u32 [%rd3], %r1;
  ret;
)", ".const .align 4 .b8 table[16];");
  Gpu g(ptx, "ro.ptx");
  CHECK_THAT(launchError(g, "ro", {1}, {1}, rt::KernelArgs().u32(1)), Contains("st.u32 writes constant memory at"));
  CHECK_THAT(launchError(g, "ro", {1}, {1}, rt::KernelArgs().u32(0)), Contains("writes kernel parameter memory"));
}
