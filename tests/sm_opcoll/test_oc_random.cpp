// Random traffic through the operand collector, checked every cycle against a
// brute-force reference written here from the rules (oldest instruction first,
// operand order within one, per-bank port limits, write ports, collector
// pools), plus invariants that do not depend on the reference: per cycle no
// bank grants more reads than it has ports, every operand is read, and no
// instruction waits for its reads longer than a bound.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "sm/opcoll/operand_collector.h"

using namespace rfsim::sm;

namespace {

struct RefInst {
  uint64_t tag;
  uint64_t alloc_cycle;
  UnitType unit;
  int pool;                   // unit type, or -1 for a general collector
  std::vector<unsigned> bank; // pending operands' banks, operand order
  bool ready = false;
};

struct Ref {
  OperandCollectorConfig cfg;
  std::vector<RefInst> insts;  // allocation order = age
  std::map<unsigned, unsigned> writes;
  std::vector<uint64_t> bank_reads;
  uint64_t conflicts = 0, port_stalls = 0, wconf = 0, fails = 0;

  explicit Ref(const OperandCollectorConfig& c) : cfg(c), bank_reads(c.num_banks, 0) {}

  unsigned bankOf(uint32_t warp, uint16_t reg) const { return (reg + cfg.bank_swizzle * warp) % cfg.num_banks; }

  unsigned used(int pool) const {
    return static_cast<unsigned>(std::count_if(insts.begin(), insts.end(), [&](const RefInst& i) { return i.pool == pool; }));
  }

  bool allocate(uint32_t warp, UnitType u, const std::vector<uint16_t>& regs, uint64_t tag, uint64_t cyc) {
    int pool = static_cast<int>(u);
    if (used(pool) >= cfg.unit_collectors[pool]) pool = -1;
    if (pool < 0 && used(-1) >= cfg.general_collectors) {
      ++fails;
      return false;
    }
    RefInst in{tag, cyc, u, pool, {}};
    std::vector<uint16_t> seen;
    for (uint16_t r : regs) {
      if (std::find(seen.begin(), seen.end(), r) != seen.end()) continue;
      seen.push_back(r);
      in.bank.push_back(bankOf(warp, r));
    }
    insts.push_back(in);
    return true;
  }

  bool write(uint32_t warp, uint16_t reg) {
    unsigned b = bankOf(warp, reg);
    if (writes[b] >= cfg.write_ports_per_bank) {
      ++wconf;
      return false;
    }
    ++writes[b];
    return true;
  }

  void cycle() {
    std::map<unsigned, unsigned> granted;
    for (auto& in : insts) {
      if (in.ready) continue;
      std::vector<unsigned> left;
      unsigned taken = 0;
      for (unsigned b : in.bank) {
        if (cfg.reads_per_collector && taken >= cfg.reads_per_collector) {
          ++port_stalls;
          left.push_back(b);
          continue;
        }
        unsigned ports = cfg.read_ports_per_bank;
        unsigned w = cfg.shared_read_write_ports ? std::min(writes[b], ports) : 0;
        if (granted[b] + w < ports) {
          ++granted[b];
          ++bank_reads[b];
          ++taken;
        } else {
          ++conflicts;
          left.push_back(b);
        }
      }
      in.bank = left;
      in.ready = left.empty();
    }
    for (auto& [b, n] : granted) REQUIRE(n <= cfg.read_ports_per_bank);
    writes.clear();
  }

  bool pop(UnitType u, uint64_t& tag) {
    for (auto it = insts.begin(); it != insts.end(); ++it)
      if (it->ready && it->unit == u) {
        tag = it->tag;
        insts.erase(it);
        return true;
      }
    return false;
  }
};

struct Coverage {
  uint64_t conflicts = 0, fails = 0, wconf = 0, port_stalls = 0;
};

void runRandom(uint64_t seed, Coverage& cov) {
  std::mt19937_64 rng(seed);
  auto pick = [&](unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };

  OperandCollectorConfig c;
  c.num_banks = 1u << pick(1, 4);
  c.read_ports_per_bank = pick(1, 2);
  c.write_ports_per_bank = pick(1, 2);
  c.bank_swizzle = pick(0, 1);
  c.shared_read_write_ports = chance(0.5);
  c.reads_per_collector = chance(0.3) ? 1 : 0;
  c.general_collectors = pick(0, 6);
  c.unit_collectors[static_cast<unsigned>(UnitType::SFU)] = pick(0, 2);
  c.unit_collectors[static_cast<unsigned>(UnitType::LDST)] = pick(0, 2);
  if (c.general_collectors + c.unit_collectors[2] + c.unit_collectors[4] == 0) c.general_collectors = 1;
  const unsigned regs_max = 40;
  INFO("seed " << seed << " banks " << c.num_banks << " rports " << c.read_ports_per_bank << " wports "
               << c.write_ports_per_bank << " shared " << c.shared_read_write_ports << " rpc " << c.reads_per_collector);

  OperandCollector oc(c);
  Ref ref(c);
  const UnitType units[3] = {UnitType::SP, UnitType::SFU, UnitType::LDST};
  uint64_t next_tag = 1;
  std::map<uint64_t, uint64_t> alloc_at;  // tag -> cycle allocated
  uint64_t reads_issued = 0, max_wait = 0;
  // A read waits at most for every older pending read of its bank, each bank
  // serving at least one per cycle (or one per two cycles when writes share
  // the port), and for the collector's own earlier operands.
  const unsigned collectors = c.general_collectors + c.unit_collectors[2] + c.unit_collectors[4];
  const uint64_t bound = (c.shared_read_write_ports ? 4 : 2) * collectors * 4 + 2;

  for (uint64_t now = 0; now < 3000; ++now) {
    // Write-back.
    // With shared ports the writes go first and could starve reads forever;
    // keep them sparse there so the starvation bound below is meaningful.
    unsigned nw = c.shared_read_write_ports ? (chance(0.2) ? 1 : 0) : pick(0, 3);
    for (unsigned k = nw; k; --k) {
      uint32_t w = pick(0, 7);
      uint16_t r = static_cast<uint16_t>(pick(0, regs_max));
      REQUIRE(oc.requestWrite(w, r) == ref.write(w, r));
    }
    // Dispatch: each unit takes its oldest ready instruction unless "busy".
    for (UnitType u : units) {
      if (chance(0.3)) continue;
      uint64_t a = 0, b = 0;
      bool got = oc.popReady(u, a);
      REQUIRE(got == ref.pop(u, b));
      if (got) {
        REQUIRE(a == b);
        alloc_at.erase(a);
      }
    }
    std::array<uint64_t, kMaxBanks> before = oc.stats().bank_reads;
    oc.cycle(now);
    ref.cycle();
    for (unsigned b = 0; b < c.num_banks; ++b) {
      REQUIRE(oc.stats().bank_reads[b] - before[b] <= c.read_ports_per_bank);
      REQUIRE(oc.stats().bank_reads[b] == ref.bank_reads[b]);
    }
    REQUIRE(oc.stats().bank_conflicts == ref.conflicts);
    REQUIRE(oc.stats().collector_port_stalls == ref.port_stalls);
    for (const auto& in : ref.insts) {
      if (!in.ready) {
        REQUIRE(now - in.alloc_cycle <= bound);
      } else {
        max_wait = std::max(max_wait, now - in.alloc_cycle);
      }
    }
    // Issue, after the collector's cycle; quieter near the end so all drains.
    bool drain = now > 2800;
    for (unsigned k = drain ? 0 : pick(0, 2); k; --k) {
      uint32_t w = pick(0, 7);
      UnitType u = units[pick(0, 2)];
      std::vector<uint16_t> regs(pick(0, 4));
      for (auto& r : regs) r = static_cast<uint16_t>(pick(0, regs_max));
      uint64_t tag = next_tag++;
      bool ok = oc.allocate(w, u, regs.data(), static_cast<unsigned>(regs.size()), tag);
      REQUIRE(ok == ref.allocate(w, u, regs, tag, now));
      if (ok) {
        alloc_at[tag] = now;
        reads_issued += regs.size();
      }
    }
    REQUIRE(oc.busyCollectors() == ref.insts.size());
  }
  REQUIRE(oc.stats().alloc_failures == ref.fails);
  REQUIRE(oc.stats().write_port_conflicts == ref.wconf);
  // Everything drained: every operand read (duplicates counted once).
  REQUIRE(alloc_at.empty());
  REQUIRE(oc.busyCollectors() == 0);
  REQUIRE(oc.stats().totalReads() + oc.stats().duplicate_reads == reads_issued);
  CHECK(max_wait <= bound);
  cov.conflicts += ref.conflicts;
  cov.fails += ref.fails;
  cov.wconf += ref.wconf;
  cov.port_stalls += ref.port_stalls;
}

}  // namespace

TEST_CASE("oc: random traffic matches a brute-force reference", "[oc]") {
  Coverage cov;
  for (uint64_t seed = 1; seed <= 40; ++seed) runRandom(seed, cov);
  // The traffic must have exercised the arbiter, the pools and the ports.
  CHECK(cov.conflicts > 1000);
  CHECK(cov.fails > 1000);
  CHECK(cov.wconf > 100);
  CHECK(cov.port_stalls > 100);
}
