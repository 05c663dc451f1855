#include <catch2/catch.hpp>

#include <string>

#include "ptx/analysis/callgraph.h"
#include "ptx/analysis/shared_layout.h"
#include "ptx/parser.h"

using namespace rfsim::ptx;

namespace {

const char* const kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

struct Laid {
  Module m;
  SharedLayout l;
  explicit Laid(const std::string& body) : m(parseString(kHeader + body, "shared.ptx")) {
    l = layoutShared(m, buildCallGraph(m));
  }
  uint64_t offset(const std::string& sym) const { return l.offset.at(m.global_symbols.at(sym)); }
  uint32_t bytes(const std::string& kernel) const { return l.static_bytes.at(m.function_index.at(kernel)); }
};

}  // namespace

TEST_CASE("shared layout: each kernel is charged for the shared variables its code reaches", "[shared_layout]") {
  // A library module in CUB's style: the shared arrays of several kernels
  // side by side, and a kernel that uses none.
  const Laid d(R"(
.shared .align 4 .b8 a_smem[1024];
.shared .align 16 .b8 b_smem[2048];
.visible .entry ka(.param .u64 p)
{
  .reg .b32 %r<2>;
  ld.shared.u32 %r1, [a_smem+4];
  ret;
}
.visible .entry kb(.param .u64 p)
{
  .reg .b32 %r<2>;
  st.shared.u32 [b_smem], %r1;
  ret;
}
.visible .entry fill(.param .u64 p)
{
  ret;
}
)");
  CHECK(d.bytes("ka") == 1024);
  CHECK(d.bytes("kb") == 2048);
  CHECK(d.bytes("fill") == 0);
  // No kernel reaches both, so they share bytes.
  CHECK(d.offset("a_smem") == 0);
  CHECK(d.offset("b_smem") == 0);
}

TEST_CASE("shared layout: one kernel's variables are packed in declaration order", "[shared_layout]") {
  const Laid d(R"(
.shared .align 4 .b8 x[4];
.shared .align 16 .b8 y[8];
.shared .align 4 .b8 z[4];
.shared .align 4 .b8 unused[4096];
.visible .entry k()
{
  .reg .b32 %r<2>;
  ld.shared.u32 %r1, [z];
  ld.shared.u32 %r1, [y];
  ld.shared.u32 %r1, [x];
  ret;
}
)");
  CHECK(d.offset("x") == 0);
  CHECK(d.offset("y") == 16);
  CHECK(d.offset("z") == 24);
  // A variable no code reaches costs nothing (ptxas drops it).
  CHECK(d.bytes("k") == 28);
}

TEST_CASE("shared layout: a function's variables keep one offset for every kernel that calls it", "[shared_layout]") {
  const Laid d(R"(
.shared .align 4 .b8 a_smem[1024];
.shared .align 4 .b8 b_smem[2048];
.shared .align 4 .b8 common[64];
.extern .shared .align 16 .b8 dyn[];
.func helper()
{
  .reg .b32 %r<2>;
  ld.shared.u32 %r1, [common];
  ret;
}
.visible .entry ka()
{
  .reg .b32 %r<2>;
  ld.shared.u32 %r1, [a_smem];
  call helper, ();
  ret;
}
.visible .entry kb()
{
  .reg .b32 %r<2>;
  ld.shared.u32 %r1, [b_smem];
  ld.shared.u32 %r1, [dyn];
  call helper, ();
  ret;
}
)");
  // common is reached with a_smem (by ka) and with b_smem (by kb): after both.
  CHECK(d.offset("a_smem") == 0);
  CHECK(d.offset("b_smem") == 0);
  CHECK(d.offset("common") == 2048);
  CHECK(d.bytes("ka") == 2112);
  CHECK(d.bytes("kb") == 2112);
  // Dynamic shared memory starts after the static variables of the kernels
  // that reach it, 16-byte aligned.
  CHECK(d.offset("dyn") == 2112);
  CHECK(d.l.dynamic_offset == 2112);
  CHECK(d.l.uses_dynamic.at(d.m.function_index.at("kb")));
  CHECK_FALSE(d.l.uses_dynamic.at(d.m.function_index.at("ka")));
  CHECK(d.bytes("helper") == 0);
}
