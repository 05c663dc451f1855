// Two register-count passes of the back end: multiply-add fusion
// (backend/prealloc.h: fuseMultiplyAdd, compiler.fuse_mad) and the
// recolouring of a kernel whose count comes out high
// (compiler.recolour_above). The fused program must give the PTX's answers,
// which the functional model runs unchanged.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "../func/func_helpers.h"
#include "backend/backend.h"
#include "config/gpu_config.h"
#include "ptx/parser.h"

using namespace rfsim;

namespace {

// q = i / 18 (a constant divisor: no expansion), then
//   r  = i - q*18        sub of an immediate product: fused (mad q, -18, i)
//   a  = q*7 + r         product first: fused
//   b  = 100 + q*r       register product, immediate addend: fused
//   c  = t + t, t = q*5  the product read twice by one add: not fused
//   d  = q*3 - i, u = q*3 - (i - 1)   product used twice: not fused
//   e  = q*r2 ... sub of a register product (no negated IMAD): not fused
// out[i] = r + a + b + c + d + u + e.
const std::string kFuse =
    ".version 9.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry kf(.param .u64 out)\n{\n"
    ".reg .b32 %r<32>;\n.reg .b64 %rd<6>;\n"
    "mov.u32 %r1, %tid.x;\ndiv.s32 %r2, %r1, 18;\n"
    "mul.lo.s32 %r3, %r2, 18;\nsub.s32 %r4, %r1, %r3;\n"
    "mul.lo.s32 %r5, %r2, 7;\nadd.s32 %r6, %r5, %r4;\n"
    "mul.lo.s32 %r7, %r2, %r4;\nadd.s32 %r8, 100, %r7;\n"
    "mul.lo.s32 %r9, %r2, 5;\nadd.s32 %r10, %r9, %r9;\n"
    "mul.lo.s32 %r11, %r2, 3;\nsub.s32 %r12, %r11, %r1;\nadd.s32 %r13, %r1, -1;\nsub.s32 %r14, %r11, %r13;\n"
    "add.s32 %r15, %r4, 2;\nmul.lo.s32 %r16, %r2, %r15;\nsub.s32 %r17, %r1, %r16;\n"
    "add.s32 %r20, %r4, %r6;\nadd.s32 %r21, %r20, %r8;\nadd.s32 %r22, %r21, %r10;\nadd.s32 %r23, %r22, %r12;\n"
    "add.s32 %r24, %r23, %r14;\nadd.s32 %r25, %r24, %r17;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmul.wide.u32 %rd3, %r1, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r25;\nret;\n}\n";

int32_t fuseRef(int32_t i) {
  const int32_t q = i / 18, r = i - q * 18, a = q * 7 + r, b = 100 + q * r, c = 2 * (q * 5);
  const int32_t d = q * 3 - i, u = q * 3 - (i - 1), e = i - q * (r + 2);
  return r + a + b + c + d + u + e;
}

struct Ops {
  unsigned mul = 0, mad = 0, mad_neg18 = 0;
};
Ops ops(const ptx::Function& f) {
  Ops o;
  for (const auto& bb : f.blocks)
    for (const auto& in : bb.instrs) {
      o.mul += in.op == ptx::Op::Mul && in.mods.mul == ptx::MulMode::Lo;
      o.mad += in.op == ptx::Op::Mad;
      o.mad_neg18 += in.op == ptx::Op::Mad && in.src[1].kind == ptx::OperandKind::Imm && in.src[1].imm == -18;
    }
  return o;
}

}  // namespace

TEST_CASE("prealloc: mul.lo and the add or sub that reads its product become one mad", "[backend][prealloc]") {
  backend::CompileOptions on, off;
  off.fuse_mad = false;
  const backend::CompiledModule cm = backend::compileModule(ptx::parseString(kFuse, "fuse.ptx"), on);
  const backend::CompiledModule plain = backend::compileModule(ptx::parseString(kFuse, "fuse.ptx"), off);
  const Ops a = ops(cm.machine.functions[cm.find("kf")->index]);
  const Ops b = ops(plain.machine.functions[plain.find("kf")->index]);
  CHECK(b.mad == 0);
  CHECK(b.mul == 6);
  CHECK(a.mad == 3);        // r, a and b
  CHECK(a.mad_neg18 == 1);  // i - q*18
  CHECK(a.mul == 3);        // q*5 (read twice), q*3 (used twice), q*(r+2) (subtracted)

  for (bool fuse : {true, false})
    for (bool machine : {true, false}) {
      INFO((machine ? "machine program" : "PTX") << ", fuse_mad " << fuse);
      config::GpuConfig gpu;
      gpu.compiler.fuse_mad = fuse;
      rt::DeviceOptions o;
      o.machine = machine;
      o.gpu = &gpu;
      rt::Device dev(o);
      dev.loadModule(test::writePtx(kFuse, "prealloc_fuse.ptx"));
      const uint64_t dout = dev.malloc(64 * 4);
      rt::KernelArgs args;
      args.ptr(dout);
      dev.launch("kf", {1, 1, 1}, {64, 1, 1}, args);
      std::vector<int32_t> v(64);
      dev.memcpyDtoH(v.data(), dout, 64 * 4);
      for (int32_t i = 0; i < 64; ++i) {
        INFO("thread " << i);
        CHECK(v[i] == fuseRef(i));
      }
    }
}

TEST_CASE("allocation: a kernel over recolour_above is coloured again for fewer registers", "[backend][regalloc]") {
  // lt_laplace3d: the schedule keeps 64 registers' worth of values live,
  // the first colouring takes 84, ptxas 64. lt_aes: 52 first, ptxas 44.
  for (const char* name : {"lt_laplace3d", "lt_aes"}) {
    INFO(name);
    const ptx::Module m = ptx::parseFile(std::filesystem::path(RFSIM_SOURCE_DIR) / "workloads" / name /
                                         (std::string(name) + ".ptx"));
    backend::CompileOptions on, off, high;
    off.recolour_above = 255;
    high.recolour_above = 64;  // only counts over the scheduler's target
    const backend::CompiledModule a = backend::compileModule(m, on);
    const backend::CompiledModule b = backend::compileModule(m, off);
    const backend::CompiledModule c = backend::compileModule(m, high);
    const auto* ka = a.find(name);
    const auto* kb = b.find(name);
    const auto* kc = c.find(name);
    REQUIRE(ka);
    REQUIRE(kb);
    REQUIRE(kc);
    CHECK(ka->regs < kb->regs);
    CHECK(ka->regs <= 64);
    CHECK(ka->ra.spill_stores == 0);
    if (std::string(name) == "lt_laplace3d") {
      CHECK(kb->regs > 64);
      CHECK(kc->regs <= 64);
    } else {
      CHECK(ka->regs <= 48);  // ptxas' blocks per SM at 256 threads (44 registers)
      CHECK(kc->regs == kb->regs);
    }
  }
}
