// The back end's constant-bank operands for .const variables
// (backend/prealloc.h: foldParamOperands with `consts`): a value loaded from
// a .const variable at a fixed address is read by the instructions that use
// it (SASS c[0x3][offset]), in kernels and in called functions; the machine
// program must give the same answers as the PTX, which the functional model
// runs with its loads.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "../func/func_helpers.h"
#include "backend/backend.h"
#include "ptx/parser.h"

using namespace rfsim;

namespace {

// cc = {1.5, 2, 3, 4}; scale(x) = x * cc[3] in a called function;
// out[i] = scale(in[i] * cc[1] + cc[2]) + cc[0] * cc[3] + cc[i % 4].
const std::string kConst =
    ".version 9.0\n.target sm_75\n.address_size 64\n"
    ".const .align 4 .f32 cc[4] = {0f3FC00000, 0f40000000, 0f40400000, 0f40800000};\n"
    ".visible .func (.param .f32 r) scale(.param .f32 x)\n{\n.reg .f32 %f<4>;\n"
    "ld.param.f32 %f1, [x];\nld.const.f32 %f2, [cc+12];\nmul.f32 %f3, %f1, %f2;\nst.param.f32 [r], %f3;\nret;\n}\n"
    ".visible .entry kc(.param .u64 out, .param .u64 in)\n{\n"
    ".reg .b32 %r<8>;\n.reg .f32 %f<16>;\n.reg .b64 %rd<12>;\n"
    "mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [in];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nld.global.f32 %f1, [%rd4];\n"
    "ld.const.f32 %f2, [cc+4];\nld.const.f32 %f3, [cc+8];\nfma.rn.f32 %f4, %f1, %f2, %f3;\n"
    "{\n.param .f32 a;\n.param .f32 b;\nst.param.f32 [a], %f4;\ncall.uni (b), scale, (a);\nld.param.f32 %f5, [b];\n}\n"
    "ld.const.f32 %f6, [cc];\nld.const.f32 %f7, [cc+12];\nmul.f32 %f8, %f6, %f7;\n"  // two in one instruction
    "add.f32 %f9, %f5, %f8;\n"
    "and.b32 %r2, %r1, 3;\nmov.u64 %rd9, cc;\nmul.wide.u32 %rd10, %r2, 4;\nadd.s64 %rd5, %rd9, %rd10;\n"
    "ld.const.f32 %f10, [%rd5];\n"  // indexed: stays a load
    "add.f32 %f11, %f9, %f10;\n"
    "ld.param.u64 %rd6, [out];\ncvta.to.global.u64 %rd7, %rd6;\nadd.s64 %rd8, %rd7, %rd3;\n"
    "st.global.f32 [%rd8], %f11;\nret;\n}\n";

float constRef(float x, uint32_t i) {
  const float cc[4] = {1.5f, 2.0f, 3.0f, 4.0f};
  return std::fma(x, cc[1], cc[2]) * cc[3] + cc[0] * cc[3] + cc[i % 4];
}

struct Count {
  unsigned loads = 0, operands = 0;
};
Count constUse(const ptx::Module& m, const ptx::Function& f) {
  Count c;
  for (const auto& bb : f.blocks)
    for (const auto& in : bb.instrs) {
      c.loads += in.op == ptx::Op::Ld && in.space == ptx::Space::Const;
      for (unsigned k = 0; k < in.nsrc; ++k) {
        const ptx::Operand& o = in.src[k];
        c.operands += in.op != ptx::Op::Ld && o.kind == ptx::OperandKind::Addr && o.regs[0] == ptx::kNoReg &&
                      o.sym != ptx::kNoSym && m.symbols[o.sym].space == ptx::Space::Const;
      }
    }
  return c;
}

}  // namespace

TEST_CASE("prealloc: .const values become constant-bank operands in kernels and functions", "[backend][prealloc]") {
  backend::CompileOptions on, off;
  off.const_operands = false;
  const backend::CompiledModule cm = backend::compileModule(ptx::parseString(kConst, "const.ptx"), on);
  const backend::CompiledModule plain = backend::compileModule(ptx::parseString(kConst, "const.ptx"), off);
  const Count k = constUse(cm.machine, cm.machine.functions[cm.find("kc")->index]);
  const Count s = constUse(cm.machine, cm.machine.functions[cm.find("scale")->index]);
  CHECK(k.loads == 1);      // the indexed one
  CHECK(k.operands >= 4);   // cc+4, cc+8 (one in the fma, one moved), cc, cc+12
  CHECK(s.loads == 0);
  CHECK(s.operands == 1);
  const Count kp = constUse(plain.machine, plain.machine.functions[plain.find("kc")->index]);
  CHECK(kp.loads == 5);
  CHECK(kp.operands == 0);

  std::vector<float> in(32);
  for (uint32_t i = 0; i < 32; ++i) in[i] = 0.25f * static_cast<float>(i) - 3.0f;
  for (bool machine : {true, false}) {
    INFO((machine ? "machine program" : "PTX"));
    rt::DeviceOptions o;
    o.machine = machine;
    rt::Device dev(o);
    dev.loadModule(test::writePtx(kConst, "prealloc_const.ptx"));
    const uint64_t din = dev.malloc(32 * 4), dout = dev.malloc(32 * 4);
    dev.memcpyHtoD(din, in.data(), 32 * 4);
    rt::KernelArgs args;
    args.ptr(dout).ptr(din);
    dev.launch("kc", {1, 1, 1}, {32, 1, 1}, args);
    std::vector<float> v(32);
    dev.memcpyDtoH(v.data(), dout, 32 * 4);
    for (uint32_t i = 0; i < 32; ++i) {
      INFO("thread " << i);
      CHECK(v[i] == constRef(in[i], i));
    }
  }
}
