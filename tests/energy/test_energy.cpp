// The energy model's account (model/energy/energy_model.h) on scripted
// event counts: every line is events x energy per event, static power is
// charged over the launch's time, the account is linear in the counts.
#include <catch2/catch.hpp>

#include "config/gpu_config.h"
#include "energy/energy_model.h"
#include "gpu/gpu_stats.h"
#include "mem/tlm/hierarchy.h"

using namespace rfsim;

namespace {

// Energies chosen so that every line has its own value.
config::GpuConfig scriptedConfig() {
  config::GpuConfig c;
  c.gpu.clock_mhz = 1000.0;  // 1 cycle = 1 ns
  auto& e = c.energy;
  e.regfile_read_pj = 10;
  e.regfile_write_pj = 20;
  e.opcoll_pj = 3;
  e.issue_pj = 40;
  e.l1i_pj = 7;
  e.sp_lane_pj = 1;
  e.int_lane_pj = 0.5;
  e.sfu_lane_pj = 4;
  e.dp_lane_pj = 8;
  e.ldst_lane_pj = 0.25;
  e.shared_pj = 30;
  e.const_pj = 5;
  e.l1d_read_pj = 50;
  e.l1d_write_pj = 9;
  e.l2_read_pj = 100;
  e.l2_write_pj = 110;
  e.icnt_pj_per_byte = 2;
  e.dram_read_pj_per_byte = 30;
  e.dram_write_pj_per_byte = 20;
  e.sm_static_w = 0.5;
  e.mem_static_w = 10;
  e.constant_w = 20;
  return c;
}

// A launch with known counts: 1000 cycles on 4 SMs.
void script(gpu::GpuStats& g, uint64_t k) {
  g.cycles = 1000 * k;
  g.num_sms = 4;
  g.warp_instrs = 100 * k;
  g.thread_instrs = 3000 * k;
  g.sm.warp_instrs = 100 * k;
  g.sm.rf_reads[0] = 150 * k;
  g.sm.rf_reads[1] = 50 * k;  // 200 reads in all
  g.sm.rf_writes[2] = 80 * k;
  g.sm.fetch.fills = 10 * k;
  g.sm.thread_instrs_by_unit[0] = 1600 * k;  // sp
  g.sm.thread_instrs_by_unit[1] = 800 * k;   // int
  g.sm.thread_instrs_by_unit[2] = 64 * k;    // sfu
  g.sm.thread_instrs_by_unit[3] = 32 * k;    // dp
  g.sm.thread_instrs_by_unit[4] = 504 * k;   // ldst
  g.sm.shared_passes = 12 * k;
  g.sm.const_accesses = 6 * k;
  // By access kind: global_load, global_store, local_load, local_store, atomic, other.
  const uint64_t l1d[] = {10, 5, 3, 2, 1, 1}, l2[] = {6, 3, 1, 2, 1, 0};
  for (size_t i = 0; i < 6; ++i) {
    g.l1d.accesses_by_kind[i] = l1d[i] * k;
    g.mem->l2.accesses_by_kind[i] = l2[i] * k;
  }
  g.l1d.accesses = 22 * k;  // not what the account reads: the kinds are
  g.mem->l2.accesses = 13 * k;
  g.mem->icnt.bytes = 1000 * k;
  g.mem->dram.read_bytes = 512 * k;
  g.mem->dram.write_bytes = 128 * k;
}

}  // namespace

TEST_CASE("energy: each structure is its events times its energy per event", "[energy]") {
  const config::GpuConfig cfg = scriptedConfig();
  gpu::GpuStats g(nullptr, "gpu", cfg, 4);
  script(g, 1);
  const energy::EnergyStats e(nullptr, cfg, g);
  // pJ -> nJ: / 1000.
  CHECK(e.dynamicNj("regfile_read") == Approx(200 * 10 / 1000.0));
  CHECK(e.dynamicNj("regfile_write") == Approx(80 * 20 / 1000.0));
  CHECK(e.dynamicNj("opcoll") == Approx(200 * 3 / 1000.0));
  CHECK(e.dynamicNj("issue") == Approx(100 * 40 / 1000.0));
  CHECK(e.dynamicNj("l1i") == Approx(10 * 7 / 1000.0));
  CHECK(e.dynamicNj("sp") == Approx(1600 * 1 / 1000.0));
  CHECK(e.dynamicNj("int") == Approx(800 * 0.5 / 1000.0));
  CHECK(e.dynamicNj("sfu") == Approx(64 * 4 / 1000.0));
  CHECK(e.dynamicNj("dp") == Approx(32 * 8 / 1000.0));
  CHECK(e.dynamicNj("ldst") == Approx(504 * 0.25 / 1000.0));
  CHECK(e.dynamicNj("shared") == Approx(12 * 30 / 1000.0));
  CHECK(e.dynamicNj("const") == Approx(6 * 5 / 1000.0));
  CHECK(e.dynamicNj("l1d_read") == Approx((10 + 3 + 1 + 1) * 50 / 1000.0));  // loads, atomics, other
  CHECK(e.dynamicNj("l1d_write") == Approx((5 + 2) * 9 / 1000.0));
  CHECK(e.dynamicNj("l2_read") == Approx((6 + 1 + 1) * 100 / 1000.0));
  CHECK(e.dynamicNj("l2_write") == Approx((3 + 2) * 110 / 1000.0));
  CHECK(e.dynamicNj("icnt") == Approx(1000 * 2 / 1000.0));
  CHECK(e.dynamicNj("dram_read") == Approx(512 * 30 / 1000.0));
  CHECK(e.dynamicNj("dram_write") == Approx(128 * 20 / 1000.0));
  const double dynamic = (2000 + 1600 + 600 + 4000 + 70 + 1600 + 400 + 256 + 256 + 126 + 360 + 30 + 750 + 63 + 800 +
                          550 + 2000 + 15360 + 2560) / 1000.0;
  CHECK(e.account().dynamic_nj == Approx(dynamic));
  CHECK(e.dynamic_total.get() == Approx(dynamic));

  // 1000 cycles at 1000 MHz = 1 us; W x us = uJ = 1000 nJ.
  CHECK(e.account().seconds == Approx(1e-6));
  CHECK(e.staticNj("sm") == Approx(4 * 0.5 * 1000));
  CHECK(e.staticNj("memory") == Approx(10 * 1000));
  CHECK(e.staticNj("constant") == Approx(20 * 1000));
  const double total = dynamic + 32000;
  CHECK(e.total.get() == Approx(total));
  CHECK(e.per_warp_instr.get() == Approx(total / 100));
  CHECK(e.power.get() == Approx(total * 1e-9 / 1e-6));
  CHECK(e.gops_per_watt.get() == Approx(3000 / total));
  CHECK_THROWS_WITH(e.dynamicNj("nonesuch"), Catch::Contains("nonesuch"));

  // The statistics say the same, with units.
  const nlohmann::json j = stats::groupToJson(e);
  CHECK(j["events"]["value"]["regfile_read"] == 200);
  CHECK(j["events"]["value"]["dram_read"] == 512);
  CHECK(j["dynamic"]["unit"] == "nJ");
  CHECK(j["dynamic"]["value"]["dram_read"].get<double>() == Approx(15.36));
  CHECK(j["static"]["value"]["memory"].get<double>() == Approx(10000));
  CHECK(j["power"]["unit"] == "W");
}

TEST_CASE("energy: a mechanism's structures join the account, dynamic and static", "[energy]") {
  const config::GpuConfig cfg = scriptedConfig();
  gpu::GpuStats g(nullptr, "gpu", cfg, 4);
  script(g, 1);
  const energy::EnergyStats base(nullptr, cfg, g);
  const energy::EnergyStats with(nullptr, cfg, g, {{"mech.table", 500, 2.0, 0.001}});
  CHECK(with.dynamicNj("mech.table") == Approx(1.0));
  CHECK(with.staticNj("mech.table") == Approx(4 * 0.001 * 1000));  // 4 SMs x 1 mW x 1 us
  CHECK(with.totalNj() == Approx(base.totalNj() + 1.0 + 4.0));
  CHECK(with.account().structures.back().name == "mech.table");
}

TEST_CASE("energy: the account of summed launches is the sum of their accounts", "[energy]") {
  const config::GpuConfig cfg = scriptedConfig();
  gpu::GpuStats a(nullptr, "gpu", cfg, 4), b(nullptr, "gpu", cfg, 4), sum(nullptr, "gpu", cfg, 4);
  script(a, 1);
  script(b, 3);
  stats::accumulate(sum, a, stats::Accumulate::kOverTime);
  stats::accumulate(sum, b, stats::Accumulate::kOverTime);
  const energy::EnergyStats ea(nullptr, cfg, a), eb(nullptr, cfg, b), es(nullptr, cfg, sum);
  CHECK(es.dynamic_total.get() == Approx(ea.dynamic_total.get() + eb.dynamic_total.get()));
  CHECK(es.static_total.get() == Approx(ea.static_total.get() + eb.static_total.get()));
  CHECK(es.total.get() == Approx(ea.total.get() + eb.total.get()));
  // The SM count is the machine's, not a sum: static power is not doubled.
  CHECK(es.staticNj("sm") == Approx(4 * 0.5 * 4000));
}

TEST_CASE("energy: zero energies give zero, an idle launch only static", "[energy]") {
  config::GpuConfig cfg = scriptedConfig();
  gpu::GpuStats g(nullptr, "gpu", cfg, 4);
  g.cycles = 1000;
  g.num_sms = 4;
  const energy::EnergyStats e(nullptr, cfg, g);
  CHECK(e.dynamic_total.get() == 0.0);
  CHECK(e.static_total.get() == Approx(32000));
  CHECK(e.per_warp_instr.get() == 0.0);  // no instructions: defined as 0, not NaN
}
