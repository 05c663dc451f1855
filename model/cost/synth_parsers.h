// Readers of the text the cost flow's tools write. Each takes the captured
// text, so tests can feed them excerpts of real runs; each throws rfsim::Error
// naming `source` when the text does not have the expected shape.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace rfsim::cost {

// Yosys `stat -json` (with or without -tech cmos / -liberty).
struct YosysStat {
  std::string creator;  // "Yosys 0.23 (git sha1 7ce5011c24b)"
  std::string module;   // top module, without Yosys' leading backslash
  uint64_t cells = 0;
  std::map<std::string, uint64_t> cells_by_type;
  uint64_t flops = 0;  // cells whose type names a D flip-flop ("$_DFF_P_", "DFFSR", ...)
  std::optional<uint64_t> transistors;  // -tech cmos only
  // False when Yosys printed "N+": some cells (enable/reset flops) were not counted.
  bool transistors_complete = false;
  std::optional<double> area_um2;  // only newer Yosys writes the area into the JSON
};
YosysStat parseYosysStatJson(const std::string& text, const std::string& source);

// "Chip area for module '\top': 1162735.000000" of text `stat -liberty`.
double parseYosysChipArea(const std::string& text, const std::string& source);

// "Longest topological path in top (length=35):" of `ltp -noff`.
uint32_t parseLtpLength(const std::string& text, const std::string& source);

// The first path of OpenSTA `report_checks -path_delay max`.
struct StaPath {
  std::string startpoint;       // "op_warp_i[5]" or a flop instance "_2630_"
  std::string startpoint_kind;  // "input port clocked by clk"
  std::string endpoint;
  std::string endpoint_kind;    // "rising edge-triggered flip-flop clocked by clk"
  double arrival_ns = 0.0;      // data arrival time
  double required_ns = 0.0;     // data required time
  double slack_ns = 0.0;
  bool met = false;
  uint32_t cells = 0;  // distinct cell instances the data path passes, endpoint excluded
};
StaPath parseStaReport(const std::string& text, const std::string& source);

// The net on the Q pin of flop `instance` in a netlist written by Yosys'
// `write_verilog -noattr -noexpr`, with Yosys' escaping removed
// ("\base_q[37] [0]" -> "base_q[37][0]"); empty when not found.
std::string flopOutputNet(const std::string& verilog, const std::string& instance);

}  // namespace rfsim::cost
