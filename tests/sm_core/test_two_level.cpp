// The two-level scheduler inside the SM (sm.scheduler two_level): which
// waits take a warp out of the active pool (IssueStage::waitsLong). The
// policy's own pool logic is tested in tests/sm_issue.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "../func/machine_helpers.h"
#include "config/gpu_config.h"
#include "sm_test_util.h"

using namespace rfsim;
using namespace rfsim::test;

namespace {

// One warp of a hand-written machine kernel that loads from global memory,
// then runs `chain` dependent fp32 adds that do not read the loaded value,
// then uses it.
Timed runLoadThenChain(unsigned chain, const config::GpuConfig& cfg) {
  std::string body =
      "  ld.param.u64 %RD8, [out];\n  ld.global.u32 %R10, [%RD8];\n  mov.f32 %R2, 0f3F800000;\n";
  for (unsigned i = 0; i < chain; ++i)
    body += i % 2 == 0 ? "  add.f32 %R4, %R2, %R2;\n" : "  add.f32 %R2, %R4, %R4;\n";
  body += "  add.u32 %R11, %R10, 1;\n  st.global.u32 [%RD8], %R11;\n  st.global.f32 [%RD8+4], %R2;\n";
  const std::string text = fmt::format(
      ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n"
      "  .reg .b32 %R<64>;\n  .reg .b64 %RD<16>;\n{}  ret;\n}}\n",
      body);
  Loaded ld(test::parseMachine(text));
  const uint64_t out = buffer(ld.mem, std::vector<uint8_t>(64, 0));
  Launch l{"k", {1, 1, 1}, {32, 1, 1}, 0, {arg(out)}, {{out, 8}}};
  return runTimed(ld, l, cfg, 64);
}

uint64_t stat(const Timed& t, const std::string& k) { return t.stats.at("root.sm0." + smStat(k)).get<uint64_t>(); }

}  // namespace

// Gebhart et al. (ISCA 2011): the active set hides ALU latency, the pending
// set main-memory latency. A warp waiting on an add while its load is still
// outstanding waits on a short operation: it keeps its slot. Only the
// instruction that reads the loaded value (and the warp's exit) takes it
// out of the pool. Before, every short wait with a load outstanding demoted
// the warp: 32 more deactivations here, each one a register working set
// written back and fetched again under LTRF.
TEST_CASE("two-level: a short wait with a load outstanding keeps the warp active", "[sm][two_level]") {
  config::GpuConfig cfg;
  cfg.sm.scheduler = config::SchedulerPolicy::TwoLevel;
  cfg.pipeline.l1i_miss_latency = 1;  // fetch out of the way
  const Timed none = runLoadThenChain(0, cfg);
  const Timed chained = runLoadThenChain(32, cfg);
  INFO("deactivations without the chain " << stat(none, "deactivations") << ", with it "
                                          << stat(chained, "deactivations"));
  CHECK(stat(none, "deactivations") == 2);  // the load's use, the exit
  CHECK(stat(chained, "deactivations") == stat(none, "deactivations"));
  CHECK(stat(chained, "activations") == stat(none, "activations"));
  // The chain runs while the load is outstanding (an L1D miss): it waits on
  // its adds (scoreboard stalls) without leaving the pool.
  CHECK(chained.r.cycles < none.r.cycles + 32 * cfg.pipeline.fp32_add_latency);
  CHECK(chained.out[0][0] == 1);  // the loaded 0, plus one
}

// An instruction-cache miss is a wait on the memory hierarchy like a data
// cache miss (Sadrosadati et al., Section 3: "a long latency operation, such
// as a data cache miss"): a warp whose empty I-buffer waits on a line from
// the L2 leaves the pool, one whose line comes from the L1I stays. Without
// it, on LTRF's configuration (a 2 KB L1I, 200-cycle misses) the two active
// warps of a scheduler sat out every miss while ready warps waited pending.
TEST_CASE("two-level: a warp waiting on an L1I miss leaves the pool, an L1I hit keeps it", "[sm][two_level]") {
  config::GpuConfig cfg;
  cfg.sm.scheduler = config::SchedulerPolicy::TwoLevel;
  cfg.l1i.prefetch = config::IPrefetch::None;  // every new line a demand miss
  // 96 adds (16-byte instructions, 128-byte lines): 12 more lines.
  const Timed none = runLoadThenChain(0, cfg);
  const Timed lines = runLoadThenChain(96, cfg);
  INFO("deactivations " << stat(none, "deactivations") << " / " << stat(lines, "deactivations") << ", L1I misses "
                        << stat(none, "l1i_misses") << " / " << stat(lines, "l1i_misses"));
  CHECK(stat(lines, "l1i_misses") >= stat(none, "l1i_misses") + 12);
  CHECK(stat(lines, "deactivations") >= stat(lines, "l1i_misses") + 1);  // each miss, and the exit
  // Misses served as fast as an L1I hit: no fill waits on the L2, and the
  // warp leaves the pool only for its exit (the chain hides the load).
  cfg.pipeline.l1i_miss_latency = cfg.l1i.latency;
  const Timed hit = runLoadThenChain(96, cfg);
  CHECK(stat(hit, "l1i_misses") == stat(lines, "l1i_misses"));
  CHECK(stat(hit, "deactivations") <= 2);
}
