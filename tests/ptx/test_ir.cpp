#include <catch2/catch.hpp>

#include <string>

#include "ptx/ir.h"

using namespace rfsim::ptx;

TEST_CASE("ir: type sizes and classes", "[ptx]") {
  CHECK(typeBits(Type::None) == 0);
  CHECK(typeBits(Type::Pred) == 1);
  CHECK(typeBits(Type::U8) == 8);
  CHECK(typeBits(Type::BF16) == 16);
  CHECK(typeBits(Type::F16x2) == 32);
  CHECK(typeBits(Type::S64) == 64);
  CHECK(typeBits(Type::B128) == 128);
  CHECK(isSigned(Type::S16));
  CHECK_FALSE(isSigned(Type::U16));
  CHECK_FALSE(isSigned(Type::F32));
  CHECK(isFloat(Type::F64));
  CHECK(isFloat(Type::BF16x2));
  CHECK_FALSE(isFloat(Type::B32));
  CHECK(isBits(Type::B8));
  CHECK_FALSE(isBits(Type::U8));
}

TEST_CASE("ir: names of types, spaces and opcodes", "[ptx]") {
  CHECK(std::string(typeName(Type::S32)) == "s32");
  CHECK(std::string(typeName(Type::F16x2)) == "f16x2");
  CHECK(std::string(typeName(Type::Pred)) == "pred");
  CHECK(std::string(spaceName(Space::Shared)) == "shared");
  CHECK(std::string(spaceName(Space::Generic)) == "generic");
  CHECK(std::string(opName(Op::Mov)) == "mov");
  CHECK(std::string(opName(Op::Lop3)) == "lop3");
  CHECK(std::string(opName(Op::Activemask)) == "activemask");
  CHECK(std::string(opName(Op::Dp2a)) == "dp2a");
  CHECK(std::string(opName(Op::Count_)) == "?");
}
