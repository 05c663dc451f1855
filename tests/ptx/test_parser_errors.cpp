#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "ptx_test_util.h"

using namespace rfsim;
using namespace rfsim::ptx;
using namespace rfsim::ptx::test;

// Every refusal names file:line:col of the offending token. kernel() puts
// the first instruction on line 16; parse() puts a body's first line on 4.
TEST_CASE("parser: errors name the offending token with file:line:col", "[ptx]") {
  struct Case {
    const char* what;
    std::string body;
    const char* message;
  };
  const Case cases[] = {
      {"bad token", kernel("add.s32 %r1, %r2, #3;"), "test.ptx:16:19: bad token '#'"},
      {"bad number", kernel("add.s32 %r1, %r2, 0xZ;"), "test.ptx:16:19: bad number '0xZ'"},
      {"unknown opcode", kernel("frobnicate.s32 %r1, %r2;"), "test.ptx:16:1: unknown opcode 'frobnicate.s32'"},
      {"unsupported instruction", kernel("  cp.async.ca.shared.global [%r1], [%rd1], 16;"),
       "test.ptx:16:3: unsupported instruction 'cp.async.ca.shared.global'"},
      {"unsupported mma", kernel("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2};"),
       "test.ptx:16:1: unsupported instruction 'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32'"},
      {"unsupported tex", kernel("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f1, %f2}];"),
       "test.ptx:16:1: unsupported instruction 'tex.2d.v4.f32.f32'"},
      {"unsupported suld", kernel("suld.b.2d.b32.trap {%r1}, [s, {%r1, %r2}];"), "unsupported instruction 'suld.b.2d.b32.trap'"},
      {"unsupported wmma", kernel("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1}, [%rd1];"), "test.ptx:16:1: unsupported instruction 'wmma.load"},
      {"unsupported modifier", kernel("min.NaN.f32 %f1, %f2, %f3;"), "test.ptx:16:1: unsupported instruction 'min.NaN.f32' (modifier '.NaN')"},
      {"undeclared register", kernel("add.s32 %r1, %r99, 1;"), "test.ptx:16:14: undeclared register '%r99'"},
      {"undeclared register as guard", kernel("@%p9 bra $L;\n$L:"), "test.ptx:16:2: undeclared register '%p9'"},
      {"undeclared symbol", kernel("ld.global.u32 %r1, [nowhere+4];"), "test.ptx:16:21: undeclared symbol 'nowhere'"},
      {"undeclared symbol operand", kernel("mov.u64 %rd1, nowhere;"), "test.ptx:16:15: undeclared symbol 'nowhere'"},
      {"undeclared function", kernel("call.uni nothing, ();"), "test.ptx:16:10: undeclared function 'nothing'"},
      {"f32 register in s32 add", kernel("add.s32 %r1, %f1, %r2;"),
       "test.ptx:16:14: operand type mismatch: '%f1' is .f32 but 'add.s32' needs .s32 here"},
      {"s32 destination of f32 add", kernel("add.f32 %s1, %f1, %f2;"), "test.ptx:16:9: operand type mismatch: '%s1' is .s32"},
      {"64-bit register in 32-bit op", kernel("add.u32 %r1, %rd1, 1;"), "test.ptx:16:14: operand type mismatch: '%rd1' is .b64"},
      {"predicate as data", kernel("add.s32 %r1, %p1, 1;"), "test.ptx:16:14: operand type mismatch: '%p1' is .pred"},
      {"data as predicate", kernel("selp.b32 %r1, %r2, %r3, %r4;"), "test.ptx:16:25: operand type mismatch: '%r4' is .b32 but 'selp.b32' needs .pred"},
      {"guard not a predicate", kernel("@%r1 bra $L;\n$L:"), "test.ptx:16:2: operand type mismatch: guard '%r1' is .b32"},
      {"setp destination not a predicate", kernel("setp.lt.s32 %r1, %r2, %r3;"), "test.ptx:16:13: operand type mismatch: '%r1' is .b32 but 'setp.lt.s32' needs .pred"},
      {"f64 register in f32 fma", kernel("fma.rn.f32 %f1, %fd1, %f2, %f3;"), "test.ptx:16:17: operand type mismatch: '%fd1' is .f64"},
      {"float address register", kernel("ld.global.f32 %f1, [%f2];"), "test.ptx:16:21: operand type mismatch: '%f2' is .f32, an address"},
      {"vector element type", kernel("ld.global.v2.f32 {%f1, %s1}, [%rd1];"), "test.ptx:16:24: operand type mismatch: '%s1' is .s32"},
      {"float literal in integer add", kernel("add.s32 %r1, %r2, 1.5;"), "test.ptx:16:19: floating-point literal '1.5' where a .s32 value is expected"},
      {"too many operands", kernel("add.s32 %r1, %r2, %r3, %r4;"), "test.ptx:16:24: wrong operand count for 'add.s32': expected 3 operand(s)"},
      {"too few operands", kernel("mad.lo.s32 %r1, %r2, %r3;"), "test.ptx:16:25: wrong operand count for 'mad.lo.s32': expected 4 operand(s)"},
      {"operands to ret", kernel("ret %r1;"), "test.ptx:16:5: wrong operand count for 'ret'"},
      {"call argument count", ".func f(.param .b32 a)\n{\nret;\n}\n" + kernel("call.uni f, ();"),
       "test.ptx:20:1: wrong operand count: 'f' takes 1 argument(s) and 0 return value(s), the call passes 0 and 0"},
      {"vector size", kernel("ld.global.v4.f32 {%f1, %f2}, [%rd1];"), "test.ptx:16:18: vector operand has 2 elements, 'ld.global.v4.f32' needs 4"},
      {"missing label", kernel("bra.uni $L__BB0_9;"), "test.ptx:16:9: missing label '$L__BB0_9'"},
      {"duplicate label", kernel("$L:\n$L:"), "test.ptx:17:1: duplicate definition of label '$L'"},
      {"duplicate register", kernel(".reg .b32 %r1;"), "test.ptx:16:11: duplicate definition of register '%r1'"},
      {"duplicate variable", ".global .u32 g;\n.global .u32 g;", "test.ptx:5:14: duplicate definition of 'g' (first at 4:14)"},
      {"duplicate function", ".func f()\n{\nret;\n}\n.func f()\n{\nret;\n}", "test.ptx:8:7: duplicate definition of function 'f' (first at 4:7)"},
      {"conflicting declaration", ".func f(.param .b32 a);\n.func f()\n{\nret;\n}", "test.ptx:5:7: declaration of 'f' conflicts"},
      {"duplicate parameter", ".entry k(.param .u32 a, .param .u32 a)\n{\nret;\n}", "test.ptx:4:37: duplicate definition of parameter 'a'"},
      {"unterminated block", ".entry k()\n{\nret;\n", "test.ptx:7:1: unterminated block: the '{' at 5:1 is never closed"},
      {"unterminated callseq", kernel("{\n.param .b32 param0;").substr(0, 0) + ".entry k()\n{\n{\nret;\n}\n", "test.ptx:9:1: unterminated block: the '{' at 5:1 is never closed"},
      {"unterminated section", ".section .debug_info\n{\n.b8 0\n", "test.ptx:7:1: unterminated block"},
      {"missing semicolon", kernel("add.s32 %r1, %r2, %r3\nret;"), "test.ptx:17:1: expected ',' between operands, found 'ret'"},
      {"destination immediate", kernel("add.s32 1, %r2, %r3;"), "test.ptx:16:9: destination of 'add.s32' must be a register, found '1'"},
      {"label not an address", kernel("ld.global.u32 %r1, %rd1;"), "test.ptx:16:20: expected an address operand '[...]' for 'ld.global.u32', found '%rd1'"},
      {"unclosed address", kernel("ld.global.u32 %r1, [%rd1;"), "test.ptx:16:25: expected ']' to close the address opened at 16:20"},
      {"unknown directive", ".frob 3;", "test.ptx:4:1: unsupported directive '.frob' at module scope"},
      {"unknown body directive", ".entry k()\n{\n.frob;\n}", "test.ptx:6:1: unsupported directive '.frob' in a function body"},
      {"stray token at module scope", "add.s32 %r1, %r2, %r3;", "test.ptx:4:1: unexpected 'add.s32' at module scope"},
      {"register parameter", ".func f(.reg .b32 x)\n{\nret;\n}", "test.ptx:4:9: register parameters (.reg) are not supported"},
      {"unsupported special register", kernel("mov.u32 %r1, %pm0;"), "test.ptx:16:14: undeclared register '%pm0'"},
      {"special register missing dimension", kernel("mov.u32 %r1, %tid;"), "test.ptx:16:14: unsupported special register '%tid'"},
      {"negated non-predicate", kernel("add.s32 %r1, !%r2, 1;"), "test.ptx:16:14: only a predicate can be negated"},
      {"negated data where a predicate goes", kernel("setp.ne.and.s32 %p1, %r1, 0, !%r2;"), "test.ptx:16:31: operand type mismatch: '%r2' is .b32 but 'setp.ne.and.s32' needs .pred"},
      {"indirect call without prototype", kernel("call %rd1, ();"), "test.ptx:16:6: an indirect call needs a .callprototype"},
      {"initialiser overflow", ".global .u32 a[2] = {1, 2, 3};", "test.ptx:4:28: too many initialisers for 'a'"},
      {"initialiser names nothing", ".global .u64 p = {nothing};", "test.ptx:4:19: undeclared symbol 'nothing'"},
      {"no type in declaration", ".global .align 4 g;", "test.ptx:4:18: expected a type, found 'g'"},
      {"extern function with a body", ".extern .func f()\n{\nret;\n}", "test.ptx:5:1: extern function 'f' cannot have a body"},
      {"second predicate destination not allowed", kernel("add.s32 %r1|%p1, %r2, %r3;"), "test.ptx:16:12: 'add.s32' has no second (predicate) destination"},
      {"sink as a source", kernel("add.s32 %r1, _, %r3;"), "test.ptx:16:14: the sink '_' can only be a destination"},
  };
  for (const Case& c : cases) {
    INFO(c.what << "\n" << c.body);
    const std::string msg = parseError(c.body);
    CHECK_THAT(msg, Catch::Contains(c.message));
  }
}

TEST_CASE("parser: PTX padded with NUL bytes parses and a NUL inside it is named and shown escaped", "[ptx]") {
  // As PTX comes out of a CUDA fatbin: the text, then NUL padding.
  const std::string text = std::string(kHeader) + kernel("add.s32 %r1, %r2, 1;");
  const Module m = parseString(text + std::string(4, '\0'), "fatbin.ptx");
  REQUIRE(m.functions.size() == 1);
  CHECK(instrCount(m.functions[0]) == 2);
  const auto path = std::filesystem::temp_directory_path() / ("rfsim_nul_" + std::to_string(::getpid()) + ".ptx");
  std::ofstream(path, std::ios::binary) << text << std::string(2, '\0');
  CHECK(parseFile(path).functions.size() == 1);
  std::filesystem::remove(path);
  // A NUL where the operand `1` was: named by line:col, escaped, and the
  // message does not end at it.
  std::string bad = kernel("add.s32 %r1, %r2, 1;");
  bad[bad.find(", 1;") + 2] = '\0';
  const std::string msg = parseError(bad);
  CHECK(msg == "test.ptx:16:19: bad token '\\0'");
  CHECK(msg.find('\0') == std::string::npos);
  // Parser messages quoting a token escape its control characters too.
  CHECK_THAT(parseError(kernel("add.s32 %r1, \"a\tb\", 1;")), Catch::Contains("'a\\tb'"));
}

TEST_CASE("parser: only rfsim::Error escapes, and errors name the file given", "[ptx]") {
  CHECK_THROWS_AS(parseString(".version 9.0\n.target sm_75\n.entry k(\n", "bad.ptx"), Error);
  CHECK_THROWS_WITH(parseString("\n\n  @", "bad.ptx"), Catch::StartsWith("bad.ptx:3:3: "));
  CHECK_THROWS_WITH(parseString(".address_size 48", "bad.ptx"), Catch::Contains("bad.ptx:1:15: address size must be 32 or 64"));
}

TEST_CASE("parser: redux and the SIMD video instructions are refused (no Op in ir.h)", "[ptx]") {
  CHECK_THAT(parseError(kernel("redux.sync.add.s32 %r1, %r2, -1;")), Catch::Contains("unsupported instruction 'redux.sync.add.s32'"));
  CHECK_THAT(parseError(kernel("vabsdiff4.u32.u32.u32 %r1, %r2, %r3, %r4;")), Catch::Contains("unsupported instruction 'vabsdiff4.u32.u32.u32'"));
}
