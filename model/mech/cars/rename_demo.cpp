#include "mech/cars/rename_demo.h"

#include "common/sc_kernel.h"

#include "mech/cars/cars_config.h"

#include <chrono>

#include <sys/resource.h>

#include "mech/cars/rename_ref.h"

namespace rfsim::cars {

RenameParams paramsFor(const config::GpuConfig& cfg) {
  return RenameParams::forSm(cfg.sm.max_warps, cfg.warpRegisters(), carsConfig(cfg).rename_ports);
}

TrafficParams trafficFor(const config::GpuConfig& cfg) {
  TrafficParams t;
  t.warps = cfg.sm.max_warps;
  t.kernel_regs = demoConfig(cfg).kernel_regs;
  t.stack_regs = demoConfig(cfg).stack_regs;
  t.max_fru = demoConfig(cfg).max_fru;
  t.max_depth = demoConfig(cfg).max_depth;
  t.op_rate = demoConfig(cfg).op_rate;
  t.seed = demoConfig(cfg).seed;
  return t;
}

RenameDemo::RenameDemo(sc_core::sc_module_name name, const config::GpuConfig& cfg, const DemoOptions& opt,
                       stats::Group* parent)
    : sc_module(name),
      clk("clk"),
      limit_(demoConfig(cfg).cycles),
      traffic_(paramsFor(cfg), trafficFor(cfg), opt.source),
      stats_(parent) {
  const RenameParams p = paramsFor(cfg);
  if (opt.rtl) {
    auto ls = std::make_unique<RenameLockstep>(p);
    lockstep_ = ls.get();
    if (!opt.vcd.empty()) ls->rtl().traceTo(opt.vcd, opt.trace_start, opt.trace_cycles);
    unit_ = std::move(ls);
  } else {
    unit_ = std::make_unique<RenameRef>(p);
  }
  SC_METHOD(step);
  sensitive << clk.pos();
  dont_initialize();
}

void RenameDemo::step() {
  if (error_ || cycles_ >= limit_) return;
  try {
    traffic_.next(in_);
    unit_->evaluate(in_, out_);
    traffic_.observe(in_, out_);
    stats_.record(unit_->params(), in_, out_);
    if (in_.op.valid) stats_.max_depth.sampleMax(traffic_.depth(in_.op.warp));
    unit_->tick();
    if (++cycles_ == limit_) sc_core::sc_stop();
  } catch (...) {
    error_ = std::current_exception();
    sc_core::sc_stop();
  }
}

DemoResult runRenameDemo(const config::GpuConfig& cfg, const DemoOptions& opt, stats::Group& root) {
  // A SystemC kernel of its own (it ends with sc_stop()): the demo can run
  // again, or beside a GPU simulation, in one process. Declared first, so
  // the clock and the modules below go before it.
  ScKernel kernel;
  ScKernel::Scope in(kernel);
  const sc_core::sc_time period(1e6 / cfg.gpu.clock_mhz, sc_core::SC_PS);
  sc_core::sc_clock clock("clock", period);
  RenameDemo demo("cars_rename_demo", cfg, opt, &root);
  demo.clk(clock);

  stats::Group host(&root, "host", "the simulating machine");
  stats::Scalar wall_us(&host, "wall_time", "microsecond", "host time spent in the simulation kernel");
  stats::Scalar rtl_checks(&host, "rtl_comparisons", stats::unit::Cycle,
                           "cycles on which every RTL output was compared with the reference");
  stats::Scalar peak_rss(&host, "peak_rss", "KiB", "peak resident memory of the process");
  stats::Formula speed(&host, "cycles_per_second", stats::unit::Rate, "simulated cycles per host second",
                       [&] { return wall_us.get() ? demo.cycles() * 1e6 / double(wall_us.get()) : 0.0; });

  // sc_stop() at the last cycle is the normal end, not news.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const auto t1 = std::chrono::steady_clock::now();
  demo.rethrow();

  DemoResult r;
  r.cycles = demo.cycles();
  r.host_seconds = std::chrono::duration<double>(t1 - t0).count();
  r.rtl_comparisons = demo.comparisons();
  wall_us = static_cast<uint64_t>(r.host_seconds * 1e6);
  rtl_checks = r.rtl_comparisons;
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0) peak_rss = static_cast<uint64_t>(ru.ru_maxrss);  // KiB on Linux
  r.stats = stats::toJson(root);
  r.flat = stats::toFlatJson(root);
  return r;
}

}  // namespace rfsim::cars
