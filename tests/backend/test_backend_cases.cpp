// Hand-written PTX through the whole back end (lower, allocate, frame,
// check) and then the functional executor in machine mode, with answers
// computed here: a diamond, a loop, a call with values live across it,
// recursion, an indirect call and a spill forced by maxrregcount.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "../func/func_helpers.h"
#include "backend/backend.h"
#include "common/error.h"
#include "ptx/parser.h"

using namespace rfsim;

namespace {

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

struct MachineGpu {
  rt::Device dev;
  MachineGpu(const std::string& ptx, uint32_t max_regs = 0) : dev(options(max_regs)) {
    dev.loadModule(test::writePtx(ptx, "case.ptx"));
  }
  static rt::DeviceOptions options(uint32_t max_regs) {
    rt::DeviceOptions o;
    o.machine = true;
    o.max_regs = max_regs;
    return o;
  }
  const backend::FunctionReport& report(const std::string& fn) {
    const backend::FunctionReport* r = dev.compiled()->find(fn);
    REQUIRE(r != nullptr);
    return *r;
  }
  std::vector<uint32_t> run1(const std::string& kernel, uint32_t n, uint32_t block = 64) {
    const uint64_t out = dev.malloc(n * 4);
    dev.memset(out, 0, n * 4);
    rt::KernelArgs a;
    a.ptr(out).u32(n);
    dev.launch(kernel, {(n + block - 1) / block, 1, 1}, {block, 1, 1}, a);
    std::vector<uint32_t> v(n);
    dev.memcpyDtoH(v.data(), out, n * 4);
    return v;
  }
};

// out[i] = f(i) for i < n; `body` computes %r10 from %r1 = i.
std::string kernel(const std::string& name, const std::string& body, const std::string& funcs = "",
                   const std::string& decls = "") {
  return std::string(kHeader) + funcs + "\n.visible .entry " + name +
         "(.param .u64 out, .param .u32 n)\n{\n"
         ".reg .pred %p<8>;\n.reg .b32 %r<64>;\n.reg .b64 %rd<16>;\n" +
         decls +
         "mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n"
         "mad.lo.s32 %r1, %r2, %r3, %r4;\nld.param.u32 %r5, [n];\nsetp.ge.u32 %p1, %r1, %r5;\n"
         "@%p1 bra $done;\n" +
         body +
         "\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmul.wide.u32 %rd3, %r1, 4;\n"
         "add.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r10;\n$done:\nret;\n}\n";
}

}  // namespace

TEST_CASE("back end: a diamond", "[backend][cases]") {
  MachineGpu g(kernel("diamond",
                      "and.b32 %r6, %r1, 1;\nsetp.eq.u32 %p2, %r6, 0;\n@%p2 bra $even;\n"
                      "mul.lo.u32 %r7, %r1, 3;\nbra $join;\n$even:\nadd.u32 %r7, %r1, 7;\n$join:\n"
                      "add.u32 %r10, %r7, %r1;"));
  const auto v = g.run1("diamond", 100);
  for (uint32_t i = 0; i < 100; ++i) CHECK(v[i] == ((i & 1) ? i * 3 + i : i + 7 + i));
  CHECK(g.report("diamond").regs >= 2);
}

TEST_CASE("back end: a loop keeps values live around the back edge", "[backend][cases]") {
  MachineGpu g(kernel("loop",
                      "mov.u32 %r10, 0;\nmov.u32 %r11, 0;\nmov.u32 %r12, 5;\n$head:\nsetp.ge.u32 %p2, %r11, %r1;\n"
                      "@%p2 bra $exit;\nmad.lo.u32 %r10, %r11, %r11, %r10;\nadd.u32 %r10, %r10, %r12;\n"
                      "add.u32 %r11, %r11, 1;\nbra $head;\n$exit:\n"));
  const auto v = g.run1("loop", 70);
  for (uint32_t i = 0; i < 70; ++i) {
    uint32_t s = 0;
    for (uint32_t k = 0; k < i; ++k) s += k * k + 5;
    CHECK(v[i] == s);
  }
}

namespace {
// A callee that needs many registers at once (so it uses callee-saved ones)
// and a caller with values live across the call.
const char* kCallee =
    ".func (.param .b32 ret) mix(.param .b32 a, .param .b64 b)\n{\n"
    ".reg .b32 %q<40>;\n.reg .b64 %qd<4>;\n"
    "ld.param.u32 %q1, [a];\nld.param.u64 %qd1, [b];\ncvt.u32.u64 %q2, %qd1;\n"
    "add.u32 %q3, %q1, 1;\nadd.u32 %q4, %q1, 2;\nadd.u32 %q5, %q1, 3;\nadd.u32 %q6, %q1, 4;\n"
    "add.u32 %q7, %q1, 5;\nadd.u32 %q8, %q1, 6;\nadd.u32 %q9, %q1, 7;\nadd.u32 %q10, %q1, 8;\n"
    "add.u32 %q11, %q1, 9;\nadd.u32 %q12, %q1, 10;\nadd.u32 %q13, %q1, 11;\nadd.u32 %q14, %q1, 12;\n"
    "add.u32 %q15, %q1, 13;\nadd.u32 %q16, %q1, 14;\nadd.u32 %q17, %q1, 15;\nadd.u32 %q18, %q1, 16;\n"
    "add.u32 %q19, %q1, 17;\nadd.u32 %q20, %q1, 18;\n"
    "mul.lo.u32 %q21, %q3, %q4;\nmul.lo.u32 %q22, %q5, %q6;\nmul.lo.u32 %q23, %q7, %q8;\n"
    "mul.lo.u32 %q24, %q9, %q10;\nmul.lo.u32 %q25, %q11, %q12;\nmul.lo.u32 %q26, %q13, %q14;\n"
    "mul.lo.u32 %q27, %q15, %q16;\nmul.lo.u32 %q28, %q17, %q18;\nmul.lo.u32 %q29, %q19, %q20;\n"
    "xor.b32 %q30, %q21, %q22;\nxor.b32 %q30, %q30, %q23;\nxor.b32 %q30, %q30, %q24;\nxor.b32 %q30, %q30, %q25;\n"
    "xor.b32 %q30, %q30, %q26;\nxor.b32 %q30, %q30, %q27;\nxor.b32 %q30, %q30, %q28;\nxor.b32 %q30, %q30, %q29;\n"
    "add.u32 %q30, %q30, %q2;\nst.param.b32 [ret], %q30;\nret;\n}\n";

uint32_t mixRef(uint32_t a, uint64_t b) {
  uint32_t q[21];
  for (uint32_t k = 3; k <= 20; ++k) q[k] = a + (k - 2);
  uint32_t x = 0;
  for (uint32_t k = 3; k <= 19; k += 2) x ^= q[k] * q[k + 1];
  return x + static_cast<uint32_t>(b);
}
}  // namespace

TEST_CASE("back end: values live across calls survive them, a non-leaf function saves what it uses of R16..",
          "[backend][cases]") {
  // kernel -> outer -> mix: outer keeps two values live across its call, so
  // they must sit in callee-saved registers, which outer saves and restores.
  const std::string outer =
      ".func (.param .b32 ret) outer(.param .b32 a, .param .b64 b)\n{\n.reg .b32 %o<8>;\n.reg .b64 %od<2>;\n"
      "ld.param.u32 %o1, [a];\nld.param.u64 %od1, [b];\nmul.lo.u32 %o2, %o1, 5;\nadd.u32 %o3, %o1, 9;\n"
      "{\n.param .b32 pa;\n.param .b64 pb;\n.param .b32 pr;\n"
      "st.param.b32 [pa], %o1;\nst.param.b64 [pb], %od1;\ncall.uni (pr), mix, (pa, pb);\nld.param.b32 %o4, [pr];\n}\n"
      "add.u32 %o5, %o4, %o2;\nadd.u32 %o5, %o5, %o3;\nst.param.b32 [ret], %o5;\nret;\n}\n";
  const std::string body =
      "mul.lo.u32 %r20, %r1, 7;\nadd.u32 %r21, %r1, 100;\nxor.b32 %r22, %r1, 0x55;\nshl.b32 %r23, %r1, 2;\n"
      "cvt.u64.u32 %rd5, %r1;\nadd.u64 %rd5, %rd5, 0x100000000;\n"
      "{\n.param .b32 pa;\n.param .b64 pb;\n.param .b32 pr;\n"
      "st.param.b32 [pa], %r1;\nst.param.b64 [pb], %rd5;\ncall.uni (pr), outer, (pa, pb);\nld.param.b32 %r24, [pr];\n}\n"
      "add.u32 %r10, %r24, %r20;\nadd.u32 %r10, %r10, %r21;\nadd.u32 %r10, %r10, %r22;\nadd.u32 %r10, %r10, %r23;\n"
      "cvt.u32.u64 %r25, %rd5;\nadd.u32 %r10, %r10, %r25;";
  MachineGpu g(kernel("caller", body, std::string(kCallee) + outer));
  const auto v = g.run1("caller", 96);
  for (uint32_t i = 0; i < 96; ++i) {
    const uint64_t b = i + 0x100000000ull;
    const uint32_t o = mixRef(i, b) + i * 5 + (i + 9);
    CHECK(v[i] == o + i * 7 + (i + 100) + (i ^ 0x55) + (i << 2) + static_cast<uint32_t>(b));
  }
  const auto& mix = g.report("mix");
  CHECK(mix.callee_saved.empty());  // a leaf: caller-saved registers are enough
  CHECK(mix.saves == 0);
  const auto& out = g.report("outer");
  REQUIRE(out.callee_saved.size() >= 2);
  CHECK(out.callee_saved.front() >= 16);
  CHECK(out.callee_saved.back() < 32);
  CHECK(out.saves == out.callee_saved.size());
  CHECK(out.restores == out.callee_saved.size());
  CHECK(out.fru == out.callee_saved.size());
  CHECK(out.frame_bytes >= 4 * out.callee_saved.size());
  const auto& caller = g.report("caller");
  CHECK(caller.max_stack_depth == caller.fru + out.fru + mix.fru);
  CHECK(caller.tree_regs == std::max({caller.regs, out.regs, mix.regs}));
  // Every call and return went through the frame: saves and restores ran.
  const auto& t = g.dev.totals();
  CHECK(t.thread_instrs_by_role[static_cast<size_t>(ptx::MRole::Save)] == 96 * out.saves);
  CHECK(t.thread_instrs_by_role[static_cast<size_t>(ptx::MRole::Restore)] == 96 * out.restores);
}

TEST_CASE("back end: recursion", "[backend][cases]") {
  const std::string fib =
      ".func (.param .b32 r) fib(.param .b32 n)\n{\n.reg .pred %f<2>;\n.reg .b32 %s<8>;\n"
      "ld.param.u32 %s1, [n];\nsetp.lt.u32 %f1, %s1, 2;\n@%f1 bra $base;\n"
      "add.u32 %s2, %s1, -1;\n{\n.param .b32 a;\n.param .b32 b;\nst.param.b32 [a], %s2;\n"
      "call.uni (b), fib, (a);\nld.param.b32 %s3, [b];\n}\n"
      "add.u32 %s4, %s1, -2;\n{\n.param .b32 a;\n.param .b32 b;\nst.param.b32 [a], %s4;\n"
      "call.uni (b), fib, (a);\nld.param.b32 %s5, [b];\n}\n"
      "add.u32 %s6, %s3, %s5;\nst.param.b32 [r], %s6;\nret;\n$base:\nst.param.b32 [r], %s1;\nret;\n}\n";
  const std::string body =
      "rem.u32 %r6, %r1, 12;\n{\n.param .b32 a;\n.param .b32 b;\nst.param.b32 [a], %r6;\n"
      "call.uni (b), fib, (a);\nld.param.b32 %r10, [b];\n}\n";
  MachineGpu g(kernel("fibk", body, ".func (.param .b32 r) fib(.param .b32 n);\n" + fib));
  const auto v = g.run1("fibk", 40, 32);
  auto ref = [](uint32_t n) {
    uint32_t a = 0, b = 1;
    for (uint32_t k = 0; k < n; ++k) { const uint32_t t = a + b; a = b; b = t; }
    return a;
  };
  for (uint32_t i = 0; i < 40; ++i) CHECK(v[i] == ref(i % 12));
  const auto& f = g.report("fib");
  CHECK(f.recursive);
  CHECK(f.frame_bytes > 0);  // n is live across the first call: callee-saved, so saved
}

TEST_CASE("back end: a spill forced by maxrregcount keeps the answer", "[backend][cases]") {
  // 24 values live at once, then folded: more than 16 registers can hold.
  // The barrier keeps the scheduler from computing each value just before
  // the fold needs it.
  std::string body;
  for (int k = 0; k < 24; ++k) body += "mad.lo.u32 %r" + std::to_string(20 + k) + ", %r1, " + std::to_string(k + 3) +
                                       ", " + std::to_string(k * 11) + ";\n";
  body += "bar.sync 0;\nmov.u32 %r10, 0;\n";
  for (int k = 0; k < 24; ++k)
    body += "mad.lo.u32 %r10, %r10, 3, %r" + std::to_string(20 + k) + ";\n";
  const std::string ptx = kernel("press", body);
  uint32_t loose_regs = 0;
  {
    MachineGpu g(ptx);
    loose_regs = g.report("press").regs;
    CHECK(g.report("press").spill_stores == 0);
  }
  MachineGpu g(ptx, 16);
  const auto& r = g.report("press");
  CHECK(r.regs <= 16);
  CHECK(r.spill_stores > 0);
  CHECK(r.spill_loads > 0);
  CHECK(r.frame_bytes >= r.spill_bytes);
  CHECK(loose_regs > 16);
  const auto v = g.run1("press", 64);
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t x = 0;
    for (uint32_t k = 0; k < 24; ++k) x = x * 3 + (i * (k + 3) + k * 11);
    CHECK(v[i] == x);
  }
}

TEST_CASE("back end: an indirect call through a function pointer", "[backend][cases]") {
  const std::string funcs =
      ".func (.param .b32 r) twice(.param .b32 a)\n{\n.reg .b32 %t<3>;\nld.param.u32 %t1, [a];\n"
      "shl.b32 %t2, %t1, 1;\nst.param.b32 [r], %t2;\nret;\n}\n"
      ".func (.param .b32 r) plus9(.param .b32 a)\n{\n.reg .b32 %t<3>;\nld.param.u32 %t1, [a];\n"
      "add.u32 %t2, %t1, 9;\nst.param.b32 [r], %t2;\nret;\n}\n";
  const std::string body =
      "and.b32 %r6, %r1, 1;\nsetp.eq.u32 %p2, %r6, 0;\nmov.u64 %rd6, twice;\nmov.u64 %rd7, plus9;\n"
      "selp.b64 %rd8, %rd6, %rd7, %p2;\n"
      "{\n.param .b32 a;\n.param .b32 b;\nst.param.b32 [a], %r1;\n"
      "proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      "call (b), %rd8, (a), proto;\nld.param.b32 %r10, [b];\n}\n";
  MachineGpu g(kernel("indirect", body, funcs));
  const auto v = g.run1("indirect", 50);
  for (uint32_t i = 0; i < 50; ++i) CHECK(v[i] == ((i & 1) ? i + 9 : 2 * i));
}

TEST_CASE("back end: the machine program marks dead operands and the roles of added instructions", "[backend][cases]") {
  const std::string ptx = std::string(kHeader) +
                          ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n"
                          "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nadd.u32 %r2, %r1, 5;\n"
                          "mul.lo.u32 %r3, %r2, %r1;\nadd.u32 %r4, %r3, %r1;\ncvta.to.global.u64 %rd2, %rd1;\n"
                          "st.global.u32 [%rd2], %r4;\nret;\n}\n";
  backend::CompileOptions co;
  co.fuse_mad = false;  // keep mul and add apart (fused, they are one mad)
  const backend::CompiledModule cm = backend::compileModule(ptx::parseString(ptx, "dead.ptx"), co);
  const ptx::Function& fn = cm.machine.functions.at(0);
  REQUIRE(cm.machine.machine);
  // Find the instructions by opcode in the straight-line block.
  const ptx::Instr* add1 = nullptr;
  const ptx::Instr* mul = nullptr;
  const ptx::Instr* add2 = nullptr;
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs) {
      if (in.op == ptx::Op::Add && !add1) add1 = &in;
      else if (in.op == ptx::Op::Mul) mul = &in;
      else if (in.op == ptx::Op::Add) add2 = &in;
    }
  REQUIRE(add1);
  REQUIRE(mul);
  REQUIRE(add2);
  CHECK((add1->dead & 1) == 0);  // %r1 is read again by mul and add2
  CHECK((mul->dead & 1) != 0);   // %r2's last read
  CHECK((mul->dead & 2) == 0);   // %r1 still needed by add2
  CHECK((add2->dead & 3) == 3);  // %r3 and %r1: both last reads
  for (const auto& bb : fn.blocks)
    for (const auto& in : bb.instrs) CHECK(in.role == ptx::MRole::Code);  // a kernel without calls or spills
  // Registers are physical: R0..R254 and the register count covers them.
  CHECK(fn.regs.size() == ptx::mach::kNumRegIds);
  CHECK(fn.machine_regs >= 2);
}

TEST_CASE("back end: PTX it cannot place is an error naming the file, line and function", "[backend][cases]") {
  // The address of a .func parameter: parameters live in registers.
  const std::string addr = std::string(kHeader) +
                           ".func (.param .b64 r) f(.param .b32 a)\n{\n.reg .b64 %d<2>;\n"
                           "mov.u64 %d1, a;\nst.param.b64 [r], %d1;\nret;\n}\n";
  try {
    backend::compileModule(ptx::parseString(addr, "addr.ptx"));
    FAIL("no error");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("addr.ptx:7") != std::string::npos);
    CHECK(m.find("function f") != std::string::npos);
    CHECK(m.find("parameter 'a'") != std::string::npos);
  }
  // A register limit the calling convention cannot work with.
  const std::string k = kernel("tiny", "add.u32 %r10, %r1, 1;");
  backend::CompileOptions o;
  o.max_regs = 3;
  CHECK_THROWS_AS(backend::compileModule(ptx::parseString(k, "tiny.ptx"), o), Error);
}

TEST_CASE("back end: parameters past R15 go on the stack, .local arrays live in the frame", "[backend][cases]") {
  // 14 32-bit parameters: R4..R15 take twelve, the last two are stack-passed
  // (the caller's outgoing area, the callee's [R1 + frame + offset]). The
  // callee also keeps a .local array (a __local_depot) and reads it back.
  std::string params, loads, sum;
  for (int k = 0; k < 14; ++k) {
    params += std::string(k ? ", " : "") + ".param .b32 p" + std::to_string(k);
    loads += "ld.param.u32 %a" + std::to_string(k) + ", [p" + std::to_string(k) + "];\n";
    sum += "mad.lo.u32 %s1, %s1, 3, %a" + std::to_string(k) + ";\n";
  }
  const std::string callee =
      ".func (.param .b32 r) many(" + params + ")\n{\n.local .align 4 .b8 depot[16];\n.reg .b32 %a<14>;\n"
      ".reg .b32 %s<4>;\n.reg .b64 %l<3>;\n" + loads +
      "mov.u64 %l1, depot;\nst.local.u32 [%l1+4], %a13;\nst.local.u32 [depot+8], %a12;\n"
      "mov.u32 %s1, 0;\n" + sum +
      "ld.local.u32 %s2, [%l1+8];\nld.local.u32 %s3, [depot+4];\nadd.u32 %s1, %s1, %s2;\nadd.u32 %s1, %s1, %s3;\n"
      "st.param.b32 [r], %s1;\nret;\n}\n";
  std::string call = "{\n";
  std::string args;
  for (int k = 0; k < 14; ++k) {
    call += ".param .b32 q" + std::to_string(k) + ";\nadd.u32 %r" + std::to_string(30 + k) + ", %r1, " +
            std::to_string(k * 7) + ";\nst.param.b32 [q" + std::to_string(k) + "], %r" + std::to_string(30 + k) +
            ";\n";
    args += std::string(k ? ", " : "") + "q" + std::to_string(k);
  }
  call += ".param .b32 res;\ncall.uni (res), many, (" + args + ");\nld.param.b32 %r10, [res];\n}\n";
  MachineGpu g(kernel("stackargs", call, callee));
  const auto v = g.run1("stackargs", 40);
  for (uint32_t i = 0; i < 40; ++i) {
    uint32_t s = 0;
    for (uint32_t k = 0; k < 14; ++k) s = s * 3 + (i + k * 7);
    CHECK(v[i] == s + (i + 12 * 7) + (i + 13 * 7));
  }
  const auto& m = g.report("many");
  CHECK(m.frame_bytes >= 16);  // the depot
  bool stack_arg = false;
  for (const auto& bb : g.dev.compiled()->machine.functions[m.index].blocks)
    for (const auto& in : bb.instrs) stack_arg |= in.role == ptx::MRole::ArgStack;
  CHECK(stack_arg);
}

TEST_CASE("back end: an argument the call sequence never writes is passed as is", "[backend][cases]") {
  // nvcc -rdc declares a .param for a parameter the callee does not use and
  // stores nothing in it (a 32-bit and a 64-bit one here); the call still
  // runs and the callee's answer is right.
  const std::string g =
      ".func (.param .b32 ret) twice(.param .b32 unused, .param .b64 unused64, .param .b32 x)\n{\n"
      ".reg .b32 %g<4>;\nld.param.u32 %g1, [x];\nadd.u32 %g2, %g1, %g1;\nst.param.b32 [ret], %g2;\nret;\n}\n";
  const std::string body =
      "{\n.param .b32 p0;\n.param .b64 p1;\n.param .b32 p2;\n.param .b32 pr;\n"
      "st.param.b32 [p2], %r1;\ncall.uni (pr), twice, (p0, p1, p2);\nld.param.b32 %r10, [pr];\n}\n";
  MachineGpu m(kernel("k", body, g));
  const auto v = m.run1("k", 64);
  for (uint32_t i = 0; i < 64; ++i) CHECK(v[i] == 2 * i);
}

TEST_CASE("back end: -maxrregcount is ignored by kernels with launch bounds or .maxnreg, as by ptxas",
          "[backend][cases]") {
  // ptxas 13 for sm_90 on lj_force (.maxntid 256): 34 registers with and
  // without --maxrregcount 32 or 24, 32 with the directive removed; .maxnreg
  // 40 keeps 40; .maxntid or .reqntid 256 with .minnctapersm 8: 32 whatever
  // --maxrregcount says. An H200's JIT (CU_JIT_MAX_REGISTERS) did the same on
  // every workload kernel with .maxntid (docs/calibration.md).
  const std::string base = kernel("k", "add.u32 %r10, %r1, 1;");
  const std::string params = "(.param .u64 out, .param .u32 n)\n";
  auto with = [&](const std::string& directives) {
    std::string s = base;
    s.replace(s.find(params), params.size(), params + directives + "\n");
    return s;
  };
  struct Case {
    const char* directives;
    uint32_t max_regs, limit;
  };
  for (const Case& c : {Case{"", 32, 32}, Case{"", 0, 255}, Case{".maxntid 256, 1, 1", 32, 255},
                        Case{".reqntid 256, 1, 1", 24, 255}, Case{".maxnreg 40", 32, 40}, Case{".maxnreg 40", 0, 40},
                        Case{".maxntid 256, 1, 1\n.minnctapersm 8", 64, 32},
                        Case{".reqntid 256, 1, 1\n.minnctapersm 8", 24, 32}, Case{".minnctapersm 8", 24, 24}}) {
    INFO("'" << c.directives << "' at maxrregcount " << c.max_regs);
    backend::CompileOptions o;
    o.max_regs = c.max_regs;
    const backend::CompiledModule cm = backend::compileModule(ptx::parseString(with(c.directives), "k.ptx"), o);
    const backend::FunctionReport* r = cm.find("k");
    REQUIRE(r != nullptr);
    CHECK(r->max_regs == c.limit);
  }
  // compiler.maxrregcount_over_bounds: the limit holds for them too.
  backend::CompileOptions o;
  o.max_regs = 24;
  o.maxrregcount_over_bounds = true;
  for (const char* d : {".maxntid 256, 1, 1", ".reqntid 256, 1, 1", ".maxnreg 40"}) {
    INFO(d);
    const backend::CompiledModule cm = backend::compileModule(ptx::parseString(with(d), "k.ptx"), o);
    CHECK(cm.find("k")->max_regs == 24);
  }
}
