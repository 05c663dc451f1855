#include <catch2/catch.hpp>

#include "cars_rename_directed.h"
#include "cars_rename_tb.h"
#include "common/error.h"
#include "mech/cars/rename_ref.h"

using namespace rfsim;
using namespace rfsim::cars;

TEST_CASE("reference model passes the directed cases", "[cars][rename]") {
  RenameRef ref(RenameParams::forSm(64, 2048, 4));
  CHECK(tb::runDirected(ref, tb::directedSteps()) > 200);
}

TEST_CASE("64 warps x 2048 registers: 11-bit pointers and counters as wide as any allotment", "[cars][rename]") {
  const RenameParams p = RenameParams::forSm(64, 2048, 4);
  CHECK(p.idxBits() == 11);
  CHECK(p.warpBits() == 6);
  CHECK(p.free_bits == 11);
  // A non-power-of-two warp count rounds up (48 warps -> 64 entries).
  CHECK(RenameParams::forSm(48, 2048, 4).num_warps == 64);
  RenameParams bad = p;
  bad.num_regs = 1000;
  CHECK_THROWS_AS(bad.check(), Error);
  bad = p;
  bad.read_ports = 9;
  CHECK_THROWS_AS(bad.check(), Error);
}

TEST_CASE("a callee's R16 lands in the stack, the caller's value stays where it was", "[cars][rename]") {
  RenameRef ref(RenameParams::forSm(64, 2048, 1));
  Inputs in;
  Outputs out;
  auto step = [&](Op op, uint32_t n, uint32_t base = 0, uint32_t frame = 0) {
    in = Inputs{};
    in.op = OpRequest{true, op, 5, base, frame, n, 0};
    ref.evaluate(in, out);
    ref.tick();
    return out.ack;
  };
  REQUIRE(step(Op::Launch, 8, 100, 24));
  auto rename = [&](uint32_t reg) {
    in = Inputs{};
    in.rd[0] = {5, reg};
    ref.evaluate(in, out);
    return out.rd_idx[0];
  };
  CHECK(rename(16) == 116);  // kernel's R16: Base + 16
  REQUIRE(step(Op::Call, 2));
  REQUIRE(step(Op::Push, 1));
  CHECK(rename(16) == 125);  // callee's R16: RFP (100 + 24 + 1) + 0
  CHECK(rename(17) == 117);  // not pushed: still the caller's physical register
}

TEST_CASE("the traffic's scoreboard catches a unit that renames wrongly", "[cars][rename][tb]") {
  // A faulty unit: the reference with one rename off by one every 5000 cycles.
  struct Faulty final : RenameUnit {
    RenameRef ref{RenameParams::forSm(64, 2048, 4)};
    uint64_t n = 0;
    const RenameParams& params() const override { return ref.params(); }
    void evaluate(const Inputs& in, Outputs& out) override {
      ref.evaluate(in, out);
      if (++n % 5000 == 0) out.rd_idx[0] ^= 1;
    }
    void tick() override { ref.tick(); }
    void reset() override { ref.reset(); }
  } faulty;
  CHECK_THROWS_WITH(tb::runRandom(faulty, tb::stressTraffic(64, 3), 20000),
                    Catch::Contains("CARS scoreboard at cycle 4999"));
}

TEST_CASE("random traffic on the reference alone: overflows, illegal operations and deep calls occur",
          "[cars][rename][tb]") {
  RenameRef ref(RenameParams::forSm(64, 2048, 4));
  const tb::RandomResult r = tb::runRandom(ref, tb::stressTraffic(64, 7), 100000);
  CHECK(r.cycles == 100000);
  CHECK(r.overflows > 100);
  CHECK(r.illegal > 100);
  CHECK(r.max_depth == 6);
  CHECK(r.stacked_renames > 10000);
}

TEST_CASE("a rename on one port gives what a whole evaluation gives for that port", "[cars][rename]") {
  // Two references under the same operations; each cycle's renames fill the
  // ports in turn, one unit evaluating only the filled port, the other all.
  RenameRef part(RenameParams::forSm(8, 256, 4)), whole(RenameParams::forSm(8, 256, 4));
  Inputs in;
  Outputs po, wo;
  auto op = [&](Op o, uint32_t warp, uint32_t n, uint32_t base = 0, uint32_t frame = 0) {
    in = Inputs{};
    in.op = OpRequest{true, o, warp, base, frame, n, 0};
    part.evaluate(in, po);
    whole.evaluate(in, wo);
    REQUIRE(po.ack == wo.ack);
    part.tick();
    whole.tick();
  };
  for (uint32_t w = 0; w < 8; ++w) op(Op::Launch, w, 12, w * 32, 20);
  uint32_t seed = 12345;
  auto rnd = [&](uint32_t m) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % m;
  };
  uint64_t stacked = 0;
  for (int cycle = 0; cycle < 2000; ++cycle) {
    in = Inputs{};
    for (uint32_t port = 0; port < 4; ++port) {
      in.rd[port] = {rnd(8), rnd(40)};
      in.dbg_warp = in.rd[port].warp;
      part.evaluateRename(in, po, port);
      whole.evaluate(in, wo);
      CHECK(po.rd_idx[port] == wo.rd_idx[port]);
      CHECK(po.rd_stacked[port] == wo.rd_stacked[port]);
      CHECK(po.dbg == wo.dbg);
      stacked += wo.rd_stacked[port];
    }
    part.tick();
    whole.tick();
    const uint32_t w = rnd(8);
    switch (rnd(4)) {
      case 0: op(Op::Call, w, 2); break;
      case 1: op(Op::Push, w, 1 + rnd(3)); break;
      case 2: op(Op::Pop, w, 1); break;
      default: op(Op::Ret, w, 0); break;
    }
  }
  CHECK(stacked > 100);
}
