// LTRF's configuration section, `mechanisms.ltrf:` (Sadrosadati et al.,
// ASPLOS'18; docs/ltrf.md, docs/ltrf.md), and the main
// register file's design points of the paper's Table 2.
//
// The main register file (MRF) is the register file the configuration's
// `regfile:` section sizes (its capacity sets occupancy); this section gives
// its bank count and latency as the mechanism models them, the register-file
// cache in front of it, and the variant:
//   bl         no cache: every operand read goes to the MRF's banks (the
//              paper's BL; with design point 1 and regfile.size_kb 272 it
//              is the 256 KB + 16 KB baseline, with 8x points the 2 MB MRF
//              without LTRF of Fig. 3b)
//   rfc        a demand-filled hardware register cache of the same size
//              (Gebhart et al. 2011, docs/ltrf.md): LRU per warp, evicted
//              values written back, flushed when the warp is deactivated
//   ltrf       compiler-placed prefetches of each register-interval's working
//              set; a deactivated warp writes back its whole set (section 5)
//   ltrf_plus  as ltrf, but only live registers move (the WCB's liveness
//              vector kept from the instructions' dead-operand bits)
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "config/gpu_config.h"

namespace rfsim::mech::ltrf {

// One row of Table 2, relative to #1 (256 KB high-performance SRAM, 16
// banks of 16 KB, a crossbar). "latency" is the paper's average access
// latency measured in GPGPU-Sim, queueing included (docs/ltrf.md); here it
// scales the bank latency and our banks add their own queueing.
struct DesignPoint {
  uint32_t id;
  const char* cell;
  double capacity, banks, latency, area, power;
};

inline constexpr std::array<DesignPoint, 7> kDesignPoints{{
    {1, "HP SRAM", 1, 1, 1.0, 1, 1},
    {2, "HP SRAM, 8x bank size", 8, 1, 1.25, 8, 8},
    {3, "HP SRAM, 8x banks", 8, 8, 1.5, 8, 8},
    {4, "LSTP SRAM, 8x bank size", 8, 1, 1.6, 8, 3.2},
    {5, "LSTP SRAM, 8x banks", 8, 8, 2.8, 8, 3.2},
    {6, "TFET SRAM", 8, 8, 5.3, 8, 1.05},
    {7, "DWM", 8, 8, 6.3, 0.25, 0.65},
}};

// Table 2's #1: the capacity and bank count every point is relative to.
inline constexpr uint32_t kBaseRfKb = 256;
inline constexpr uint32_t kBaseRfBanks = 16;
// The cache's capacity in the paper (16 KB), which BL gets as extra RF.
inline constexpr uint32_t kCacheKb = 16;

// The choice keys' values (config/gpu_config_fields.h: enums with their names).
enum class LtrfMode : uint8_t { Bl, Rfc, Ltrf, LtrfPlus };
inline const config::Choices& choiceNames(LtrfMode) {
  static const config::Choices names{"bl", "rfc", "ltrf", "ltrf_plus"};
  return names;
}
enum class Regions : uint8_t { Intervals, Strands };
inline const config::Choices& choiceNames(Regions) {
  static const config::Choices names{"intervals", "strands"};
  return names;
}
enum class Writeback : uint8_t { Live, Dirty };
inline const config::Choices& choiceNames(Writeback) {
  static const config::Choices names{"live", "dirty"};
  return names;
}
enum class Boundary : uint8_t { KeepOverlap, WholeSet };
inline const config::Choices& choiceNames(Boundary) {
  static const config::Choices names{"keep_overlap", "whole_set"};
  return names;
}
enum class LtrfFault : uint8_t { None, SkipFetch, DeadAll };
inline const config::Choices& choiceNames(LtrfFault) {
  static const config::Choices names{"none", "skip_fetch", "dead_all"};
  return names;
}

struct LtrfConfig {
  LtrfMode mode = LtrfMode::LtrfPlus;
  uint32_t design_point = 1;
  // The MRF: bank latency = ceil(latency x mrf_base_latency) unless
  // mrf_latency is given (the Fig. 15 sweep); banks = 16 x the point's
  // multiple unless mrf_banks is given.
  uint32_t mrf_base_latency = 1;
  uint32_t mrf_latency = 0;
  uint32_t mrf_banks = 0;
  // Section 5: the MRF -> cache crossbar is 4x narrower than the 1024-bit
  // baseline, so a register crosses it in 4 cycles.
  uint32_t xbar_cycles = 4;
  bool check_capacity = true;
  // The register-file cache: N registers per interval = N cache banks, one
  // entry per active warp in each (16 x 8 x 1024 b = 16 KB, Table 3).
  uint32_t regs_per_interval = 16;
  // LTRFconf (section 4.2): renumber the registers so that each interval's
  // working set spreads over the MRF's banks (renumber.h).
  bool renumber = false;
  // Where prefetches go: at register-intervals (LTRF), or at strands (the
  // regions of Gebhart et al.'s software-managed hierarchy, ended also by a
  // long-latency result's first use: the paper's "LTRF (strand)", Fig. 19).
  Regions regions = Regions::Intervals;
  // What a warp leaving an interval or the active pool writes back: "live"
  // (the paper: its live registers -- the WCB has no dirty bits), or
  // "dirty" (ltrf_plus: only live registers written since they were
  // fetched; a 256-bit dirty vector more per warp, not in the paper).
  Writeback writeback = Writeback::Live;
  // At an interval boundary (a prefetch), what happens to the registers of
  // the interval the warp leaves (docs/ltrf.md, left open by the paper):
  // "keep_overlap" writes back (live ones in LTRF+) only those not in the
  // new set, keeps the overlap and fetches the rest -- the paper moves
  // registers only at prefetches and (de)activations, and its AAU frees
  // slots register by register; "whole_set" writes the whole old set back
  // and fetches the whole new one (an upper bound on the traffic).
  Boundary boundary = Boundary::KeepOverlap;
  uint32_t rfc_latency = 1;
  // The warp control block (section 5.2): +1 cycle, two read ports.
  uint32_t wcb_cycles = 1;
  uint32_t wcb_ports = 2;
  // Energy per access (pJ) of the structures LTRF adds and of the MRF,
  // scaled by the design point's power (Table 2). The MRF's read and write
  // are the configuration's regfile_read_pj/regfile_write_pj when 0.
  double mrf_read_pj = 0.0;
  double mrf_write_pj = 0.0;
  double rfc_read_pj = 6.1;    // a 16 KB array is 1/16 of the 256 KB RF: its per-access energy taken as 1/8
  double rfc_write_pj = 8.6;   // of the RF's (bank size shrinks 8x with 16 x 8 entries; CACTI's trend)
  double xbar_pj = 31.3;       // a register over the MRF <-> cache crossbar: the collector crossbar's energy
  double wcb_pj = 0.9;         // a WCB lookup (a 256 x 5 b table read and a valid-bit test)
  // Co-simulate rtl/ltrf_wcb.sv (the WCBs' address lookup and the AAUs) in
  // lockstep with the C++ reference in every SM, every result compared.
  bool rtl = false;
  // A fault injected for the tests, showing that values go through the
  // cache: skip_fetch fetches no value (the slots keep stale ones), dead_all
  // takes every source register as dead (LTRF+ then drops live values).
  LtrfFault fault = LtrfFault::None;

  template <class V> void visit(V& v) {
    v.choice("mode", mode,
             "bl: no cache (every read from the MRF); rfc: demand-filled hardware cache; ltrf: interval "
             "prefetches, whole working sets move; ltrf_plus: only live registers move");
    v.integer("design_point", design_point, config::IntRange{1, 7}, "",
              "the MRF's design point of LTRF Table 2 (1: 256 KB HP SRAM; 6: TFET 8x at 5.3x; 7: DWM 8x at 6.3x)");
    v.integer("mrf_base_latency", mrf_base_latency, config::IntRange{1, 64}, "cycle",
              "the bank latency of design point 1; a point's is ceil(its latency x this)");
    v.integer("mrf_latency", mrf_latency, config::IntRange{0, 256}, "cycle",
              "the MRF's bank latency, overriding the design point's (0: from the design point)");
    v.integer("mrf_banks", mrf_banks, config::IntRange{0, 1024}, "bank",
              "the MRF's banks, a multiple of 16 (0: 16 x the design point's bank multiple)");
    v.integer("xbar_cycles", xbar_cycles, config::IntRange{1, 64}, "cycle",
              "cycles one register takes over the MRF <-> cache crossbar (4: 4x narrower than the baseline's)");
    v.boolean("check_capacity", check_capacity,
              "require regfile.size_kb to be the design point's capacity (plus 16 KB in bl mode)");
    v.integer("regs_per_interval", regs_per_interval, config::IntRange{2, 64}, "register",
              "N: registers per interval, the cache's banks (one entry per active warp in each)");
    v.boolean("renumber", renumber,
              "LTRFconf: renumber registers so that each interval's working set spreads over the MRF's 16 banks");
    v.choice("regions", regions,
             "where prefetches go: register-intervals (LTRF) or strands (LTRF (strand), Fig. 19)");
    v.choice("writeback", writeback,
             "what leaves the cache: live registers (the paper), or only those written since fetched (ltrf_plus)");
    v.choice("boundary", boundary,
             "at an interval's prefetch: keep the registers the old and new sets share (keep_overlap), or write "
             "back the whole old set and fetch the whole new one (whole_set)");
    v.integer("rfc_latency", rfc_latency, config::IntRange{1, 64}, "cycle", "the cache's bank latency");
    v.integer("wcb_cycles", wcb_cycles, config::IntRange{0, 16}, "cycle",
              "cycles a warp control block lookup adds to an operand read");
    v.integer("wcb_ports", wcb_ports, config::IntRange{1, 16}, "port",
              "read ports of a warp's control block (operands looked up per cycle)");
    v.real("mrf_read_pj", mrf_read_pj, config::RealRange{0.0, 1e6}, "pJ",
           "MRF warp-register read before the design point's power factor (0: energy.regfile_read_pj)");
    v.real("mrf_write_pj", mrf_write_pj, config::RealRange{0.0, 1e6}, "pJ",
           "MRF warp-register write before the design point's power factor (0: energy.regfile_write_pj)");
    v.real("rfc_read_pj", rfc_read_pj, config::RealRange{0.0, 1e6}, "pJ", "register-file cache read (warp register)");
    v.real("rfc_write_pj", rfc_write_pj, config::RealRange{0.0, 1e6}, "pJ", "register-file cache write");
    v.real("xbar_pj", xbar_pj, config::RealRange{0.0, 1e6}, "pJ", "one register over the MRF <-> cache crossbar");
    v.real("wcb_pj", wcb_pj, config::RealRange{0.0, 1e6}, "pJ", "one warp control block lookup");
    v.boolean("rtl", rtl,
              "co-simulate the Verilated WCB address lookup and AAUs (rtl/ltrf_wcb.sv) in lockstep in every SM");
    v.choice("fault", fault,
             "inject a fault (tests): skip_fetch moves no value into the cache, dead_all takes every source as dead");
  }

  // The section's rules between its keys (checked by validate()).
  std::optional<config::SectionViolation> check() const {
    if (mrfBanks() >= kBaseRfBanks && mrfBanks() % kBaseRfBanks)
      return config::SectionViolation{
          "mrf_banks", "", "must be a multiple of 16 (a warp's registers spread over 16 banks)"};
    if (writeback == Writeback::Dirty && mode != LtrfMode::LtrfPlus)
      return config::SectionViolation{"writeback", "mode",
                                      "dirty needs mode ltrf_plus (the gate sees every write there)"};
    return std::nullopt;
  }

  const DesignPoint& point() const { return kDesignPoints.at(design_point - 1); }
  uint32_t mrfLatency() const;
  uint32_t mrfBanks() const;
  bool cached() const { return mode != LtrfMode::Bl; }
  bool prefetching() const { return mode == LtrfMode::Ltrf || mode == LtrfMode::LtrfPlus; }
  bool livenessOnly() const { return mode == LtrfMode::LtrfPlus; }
};

}  // namespace rfsim::mech::ltrf
