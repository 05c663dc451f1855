#include "cars_rename_tb.h"

namespace rfsim::tb {

RandomResult runRandom(cars::RenameUnit& unit, const cars::TrafficParams& t, uint64_t cycles) {
  cars::CallTraffic traffic(unit.params(), t, "test bench");
  cars::Inputs in;
  cars::Outputs out;
  RandomResult r;
  for (uint64_t c = 0; c < cycles; ++c) {
    traffic.next(in);
    unit.evaluate(in, out);
    traffic.observe(in, out);
    if (in.op.valid) {
      ++r.ops;
      r.acked += out.ack;
      r.overflows += out.overflow;
      r.illegal += out.illegal;
      if (traffic.depth(in.op.warp) > r.max_depth) r.max_depth = traffic.depth(in.op.warp);
    }
    r.renames += unit.params().read_ports;
    for (uint32_t i = 0; i < unit.params().read_ports; ++i) r.stacked_renames += out.rd_stacked[i];
    unit.tick();
    ++r.cycles;
  }
  return r;
}

cars::TrafficParams stressTraffic(uint32_t warps, uint64_t seed) {
  cars::TrafficParams t;
  t.warps = warps;
  t.kernel_regs = 20;
  t.stack_regs = 12;  // 64 x 32 = 2048: the whole register file
  t.max_fru = 8;
  t.max_depth = 6;
  t.op_rate = 0.6;
  t.illegal_rate = 0.01;
  t.relaunch_rate = 0.02;
  t.seed = seed;
  return t;
}

}  // namespace rfsim::tb
