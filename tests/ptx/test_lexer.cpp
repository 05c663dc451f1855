#include <catch2/catch.hpp>

#include <cstring>

#include "common/error.h"
#include "ptx/lexer.h"

using namespace rfsim;
using namespace rfsim::ptx;

TEST_CASE("lexer: identifiers keep dotted suffixes, directives are one word", "[ptx]") {
  const auto t = lex("ld.global.nc.v4.f32 %r12, $L__BB0_2 _Z3fibi %tid.x .reg .L2::128B _", "x.ptx");
  REQUIRE(t.size() == 10);
  CHECK(t[0].kind == Tok::Ident);
  CHECK(t[0].text == "ld.global.nc.v4.f32");
  CHECK(t[1].text == "%r12");
  CHECK(t[2].punct(','));
  CHECK(t[3].text == "$L__BB0_2");
  CHECK(t[4].text == "_Z3fibi");
  CHECK(t[5].text == "%tid.x");
  CHECK(t[6].kind == Tok::Directive);
  CHECK(t[6].text == ".reg");
  CHECK(t[7].text == ".L2::128B");
  CHECK(t[8].text == "_");
  CHECK(t[9].kind == Tok::End);
}

TEST_CASE("lexer: integer literals in every base, with U suffix and sign", "[ptx]") {
  const auto t = lex("42 0x1F 017 0b101 7U -4 -0x10 18446744073709551615", "x.ptx");
  REQUIRE(t.size() == 9);
  for (size_t i = 0; i < 8; ++i) CHECK(t[i].kind == Tok::Int);
  CHECK(t[0].ival == 42);
  CHECK(t[1].ival == 31);
  CHECK(t[2].ival == 15);
  CHECK(t[3].ival == 5);
  CHECK(t[4].ival == 7);
  CHECK(t[5].ival == -4);
  CHECK(t[6].ival == -16);
  CHECK(static_cast<uint64_t>(t[7].ival) == 18446744073709551615ull);
}

TEST_CASE("lexer: float literals are IEEE bits", "[ptx]") {
  const auto t = lex("0f3F800000 0d4000000000000000 1.5 2.5e1 -0f3F800000", "x.ptx");
  REQUIRE(t.size() == 6);
  CHECK(t[0].kind == Tok::Float);
  CHECK(t[0].fwidth == 32);
  CHECK(t[0].fbits == 0x3F800000u);
  CHECK(t[1].fwidth == 64);
  CHECK(t[1].fbits == 0x4000000000000000ull);
  double d;
  std::memcpy(&d, &t[2].fbits, 8);
  CHECK(d == 1.5);
  std::memcpy(&d, &t[3].fbits, 8);
  CHECK(d == 25.0);
  CHECK(t[4].fbits == 0xBF800000u);
  CHECK(lex("1e999", "x.ptx")[0].fbits == 0x7FF0000000000000ull);  // out of range: infinity, not a throw
}

TEST_CASE("lexer: strings, punctuation and comments, with line:col", "[ptx]") {
  const auto t = lex("// line comment\n  .pragma \"nounroll\"; /* a\nblock */ { } [ ] ( ) , ; : + - @ ! | < > =", "x.ptx");
  REQUIRE(t.size() == 21);
  CHECK(t[0].kind == Tok::Directive);
  CHECK(t[0].line == 2);
  CHECK(t[0].col == 3);
  CHECK(t[1].kind == Tok::String);
  CHECK(t[1].text == "nounroll");
  CHECK(t[2].punct(';'));
  CHECK(t[3].punct('{'));
  CHECK(t[3].line == 3);
  CHECK(t[3].col == 10);
  const char* p = "{}[](),;:+-@!|<>=";
  for (size_t i = 0; i < 17; ++i) CHECK(t[3 + i].punct(p[i]));
}

TEST_CASE("lexer: errors name file, line, column and the token", "[ptx]") {
  CHECK_THROWS_WITH(lex("add.s32 %r1,\n  # oops", "a.ptx"), "a.ptx:2:3: bad token '#'");
  CHECK_THROWS_WITH(lex("0x", "a.ptx"), Catch::Contains("a.ptx:1:1: bad number '0x'"));
  CHECK_THROWS_WITH(lex("12abc", "a.ptx"), Catch::Contains("bad number '12abc'"));
  CHECK_THROWS_WITH(lex("0f3F80", "a.ptx"), Catch::Contains("bad number '0f3F80'"));
  CHECK_THROWS_WITH(lex("089", "a.ptx"), Catch::Contains("bad number '089'"));
  CHECK_THROWS_WITH(lex("\"abc", "a.ptx"), Catch::Contains("a.ptx:1:1: unterminated string"));
  CHECK_THROWS_WITH(lex("x /* abc", "a.ptx"), Catch::Contains("a.ptx:1:3: unterminated comment"));
  CHECK_THROWS_WITH(lex("99999999999999999999", "a.ptx"), Catch::Contains("does not fit in 64 bits"));
  CHECK_THROWS_AS(lex("\x01", "a.ptx"), Error);
}

TEST_CASE("lexer: NUL bytes at the end of the text end the input", "[ptx]") {
  // PTX taken out of a CUDA fatbin ends in NUL padding.
  const auto t = lex("ret;\n" + std::string(4, '\0'), "x.ptx");
  REQUIRE(t.size() == 3);
  CHECK(t[0].text == "ret");
  CHECK(t[1].punct(';'));
  CHECK(t[2].kind == Tok::End);
  CHECK(t[2].line == 2);
  CHECK(t[2].col == 1);
  const auto only = lex(std::string(3, '\0'), "x.ptx");
  REQUIRE(only.size() == 1);
  CHECK(only[0].kind == Tok::End);
}

TEST_CASE("lexer: a NUL or control character inside the text is a bad token shown escaped", "[ptx]") {
  auto message = [](const std::string& text) {
    try {
      lex(text, "x.ptx");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Before the trailing padding, a NUL is not the end.
  CHECK(message("ret;\n  " + std::string(1, '\0') + "ret;" + std::string(2, '\0')) == "x.ptx:2:3: bad token '\\0'");
  CHECK(message("ret;\x1b") == "x.ptx:1:5: bad token '\\x1b'");
  CHECK(message("ret;\x7f") == "x.ptx:1:5: bad token '\\x7f'");
  CHECK(message("ret; \xc3\xa9") == "x.ptx:1:6: bad token '\\xc3'");
}

TEST_CASE("lexer: escapeControl writes control characters as escapes", "[ptx]") {
  CHECK(escapeControl(std::string("a\0b", 3)) == "a\\0b");
  CHECK(escapeControl("\t\n\r\x01 ok") == "\\t\\n\\r\\x01 ok");
  CHECK(escapeControl("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 stays as it is
}
