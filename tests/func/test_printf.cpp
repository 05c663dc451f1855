// vprintf through func::Program (its print stream can be captured).
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

#include "func/program.h"
#include "kernels_ptx.h"
#include "ptx/parser.h"

using namespace rfsim;

TEST_CASE("vprintf formats each lane's arguments in lane order", "[func]") {
  func::GlobalMemory mem;
  func::Program prog(ptx::parseString(test::kKernelsPtx, "kernels.ptx"), mem);
  std::ostringstream os;
  prog.setPrintStream(&os);
  int32_t n = 3;
  std::vector<uint8_t> arg(4);
  std::memcpy(arg.data(), &n, 4);
  prog.launch("hello", {1}, {8}, {arg});
  CHECK(os.str() ==
        "hello 0 1.50 ok 0xff -7\nhello 1 1.50 ok 0xff -7\nhello 2 1.50 ok 0xff -7\n");
}
