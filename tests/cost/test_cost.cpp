// Cost report: the parsers of the tools' output (fed excerpts captured from
// real Yosys 0.23 / OpenSTA 2.0.17 runs), the tool runner, the mechanisms'
// cost units as the registry declares them, and one small end-to-end
// synthesis of them all.
#include <catch2/catch.hpp>

#include "mech/cars/cars_config.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/error.h"
#include "config/gpu_config.h"
#include "cost/cost_report.h"
#include "cost/synth_flow.h"
#include "cost/synth_parsers.h"
#include "cost/tool_runner.h"
#include "mech/cars/cars_cost.h"
#include "mech/cars/storage_cost.h"
#include "mech/ltrf/ltrf_config.h"
#include "mech/ltrf/ltrf_cost.h"
#include "mech/mechanism.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using rfsim::Error;

namespace {

// A fresh folder under the system's temporary folder, removed on scope exit.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    path = fs::temp_directory_path() / ("rfsim-cost-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Every registered mechanism's cost units, as rfsim cost takes them.
std::vector<rfsim::cost::UnitGroupFn> registryUnits() {
  std::vector<rfsim::cost::UnitGroupFn> groups;
  for (const auto& m : rfsim::mech::all())
    if (m.cost) groups.push_back(m.cost);
  return groups;
}

// The registry's units with LTRF's tables of 32 registers instead of 256:
// the same flow and checks in seconds instead of minutes (`rfsim cost` and
// scripts/cost.sh synthesize the full size).
constexpr uint32_t kSmallLtrfRegs = 32;
std::vector<rfsim::cost::UnitGroupFn> registryUnitsSmallLtrf() {
  std::vector<rfsim::cost::UnitGroupFn> groups;
  for (const auto& fn : registryUnits())
    groups.push_back([fn](const rfsim::cost::CostContext& c) {
      rfsim::cost::UnitGroup g = fn(c);
      for (auto& u : g.units) {
        if (u.module != "ltrf_wcb") continue;
        uint64_t banks = 0, offsets = 0;
        for (auto& [k, v] : u.parameters) {
          if (k == "NumRegs") v = kSmallLtrfRegs;
          if (k == "NumBanks") banks = v;
          if (k == "NumOffsets") offsets = v;
        }
        u.declared_flops = rfsim::mech::ltrf::wcbRtlFlops(rfsim::mech::ltrf::kCostSliceWarps, kSmallLtrfRegs,
                                                          static_cast<uint32_t>(banks), static_cast<uint32_t>(offsets));
      }
      return g;
    });
  return groups;
}

const rfsim::cost::GroupReport& groupOf(const rfsim::cost::CostReport& r, const std::string& name) {
  for (const auto& g : r.groups)
    if (g.group.name == name) return g;
  FAIL("no cost group " << name);
  throw Error("unreachable");
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// `tee -o stat_cmos.json stat -json -tech cmos` after dfflegalize, cars_rename
// with NumWarps 4, NumRegs 128, NumReadPorts 2 ("design" section cut).
const char* kCmosJson = R"X({
   "creator": "Yosys 0.23 (git sha1 7ce5011c24b)",
   "invocation": "stat -json -tech cmos ",
   "modules": {
      "\\cars_rename": {
         "num_wires":         1853,
         "num_wire_bits":     2129,
         "num_pub_wires":     64,
         "num_pub_wire_bits": 340,
         "num_memories":      0,
         "num_memory_bits":   0,
         "num_processes":     0,
         "num_cells":         1990,
         "num_cells_by_type": {
            "$_ANDNOT_": 670,
            "$_AND_": 16,
            "$_DFF_P_": 104,
            "$_MUX_": 455,
            "$_NAND_": 28,
            "$_NOR_": 101,
            "$_NOT_": 98,
            "$_ORNOT_": 61,
            "$_OR_": 241,
            "$_XNOR_": 37,
            "$_XOR_": 179
         },
         "estimated_num_transistors": "16356"
      }
   }
}
)X";

// The same design without legalising the flops: Yosys cannot price them.
const char* kCmosPlusJson = R"X({
   "creator": "Yosys 0.23 (git sha1 7ce5011c24b)",
   "invocation": "stat -json -tech cmos ",
   "modules": {
      "\\cars_rename": {
         "num_cells":         1990,
         "num_cells_by_type": {
            "$_DFFE_PN0P_": 104,
            "$_MUX_": 455
         },
         "estimated_num_transistors": "10948+"
      }
   },
      "design": {
         "num_cells":         1990,
         "num_cells_by_type": {
            "$_DFFE_PN0P_": 104,
            "$_MUX_": 455
         },
         "estimated_num_transistors": "10948+"
      }
}
)X";

// `stat -json -liberty osu018_stdcells.lib` of the mapped netlist, cut.
const char* kMappedJson = R"X({
   "creator": "Yosys 0.23 (git sha1 7ce5011c24b)",
   "invocation": "stat -json -liberty /tmp/ys/osu/x/usr/share/qflow/tech/osu018/osu018_stdcells.lib ",
   "modules": {
      "\\cars_rename": {
         "num_cells":         1452,
         "num_cells_by_type": {
            "AOI22X1": 126,
            "BUFX2": 66,
            "DFFSR": 104,
            "INVX1": 156,
            "NAND2X1": 164,
            "OAI21X1": 238
         }
      }
   }
}
)X";

// `tee -o stat_mapped.txt stat -liberty ...`, head and tail.
const char* kMappedText = R"X(
12. Printing statistics.

=== cars_rename ===

   Number of wires:               1326
   Number of cells:               1441
     XOR2X1                         32

   Chip area for module '\cars_rename': 59941.000000

)X";

// `tee -o ltp.txt ltp -noff`, head.
const char* kLtpText = R"X(
5. Executing LTP pass (find longest path).

Longest topological path in cars_rename (length=26):
    0: \rsp_q[3] [0]
    1: $abc$4403$new_n260_ (via $abc$4403$auto$blifparse.cc:386:parse_blif$4406)
)X";

// OpenSTA `report_checks -path_delay max -digits 3`, NumWarps 4, middle cut.
const char* kStaMet = R"X(Startpoint: op_warp_i[0] (input port clocked by clk)
Endpoint: _2699_ (rising edge-triggered flip-flop clocked by clk)
Path Group: clk
Path Type: max

   Delay     Time   Description
-----------------------------------------------------------
   0.000    0.000   clock clk (rise edge)
   0.000    0.000   clock network delay (ideal)
   0.000    0.000 v input external delay
   0.019    0.019 v op_warp_i[0] (in)
   0.144    0.163 v _1270_/Y (BUFX4)
   0.105    0.267 v _1271_/Y (OR2X1)
   0.157    0.424 v _1272_/Y (BUFX4)
   0.168    2.575 v _2564_/Y (BUFX4)
   0.195    2.770 v _2582_/Y (BUFX4)
   0.122    2.891 v _2595_/Y (MUX2X1)
   0.000    2.891 v _2699_/D (DFFSR)
            2.891   data arrival time

  10.000   10.000   clock clk (rise edge)
   0.000   10.000   clock network delay (ideal)
   0.000   10.000   clock reconvergence pessimism
           10.000 ^ _2699_/CLK (DFFSR)
  -0.094    9.906   library setup time
            9.906   data required time
-----------------------------------------------------------
            9.906   data required time
           -2.891   data arrival time
-----------------------------------------------------------
            7.015   slack (MET)

)X";

// A path launched by a flop, at a 2 ns clock it does not meet (middle cut).
const char* kStaViolated = R"X(Startpoint: _2630_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: _2646_ (rising edge-triggered flip-flop clocked by clk)
Path Group: clk
Path Type: max

   Delay     Time   Description
-----------------------------------------------------------
   0.000    0.000   clock clk (rise edge)
   0.000    0.000   clock network delay (ideal)
   0.000    0.000 ^ _2630_/CLK (DFFSR)
   0.319    0.319 v _2630_/Q (DFFSR)
   0.114    0.433 ^ _1376_/Y (INVX1)
   0.082    0.515 v _1378_/Y (OAI22X1)
   0.122    2.813 v _2407_/Y (MUX2X1)
   0.000    2.813 v _2646_/D (DFFSR)
            2.813   data arrival time

   2.000    2.000   clock clk (rise edge)
   0.000    2.000   clock network delay (ideal)
   0.000    2.000   clock reconvergence pessimism
            2.000 ^ _2646_/CLK (DFFSR)
  -0.094    1.906   library setup time
            1.906   data required time
-----------------------------------------------------------
            1.906   data required time
           -2.813   data arrival time
-----------------------------------------------------------
           -0.907   slack (VIOLATED)

)X";

// `write_verilog -noattr -noexpr` of the mapped netlist, two flops.
const char* kMappedVerilog = R"X(  DFFSR _2698_ (
    .CLK(clk_i),
    .D(_0091_),
    .Q(\rsp_q[3] [4]),
    .R(rst_ni),
    .S(1'h1)
  );
  DFFSR _2699_ (
    .CLK(clk_i),
    .D(_0092_),
    .Q(\base_q[0] [0]),
    .R(rst_ni),
    .S(1'h1)
  );
)X";

}  // namespace

TEST_CASE("Yosys stat JSON parser", "[cost]") {
  using rfsim::cost::parseYosysStatJson;
  SECTION("transistors after legalising flops") {
    const auto s = parseYosysStatJson(kCmosJson, "stat_cmos.json");
    CHECK(s.creator == "Yosys 0.23 (git sha1 7ce5011c24b)");
    CHECK(s.module == "cars_rename");
    CHECK(s.cells == 1990);
    CHECK(s.cells_by_type.at("$_MUX_") == 455);
    CHECK(s.flops == 104);
    REQUIRE(s.transistors.has_value());
    CHECK(*s.transistors == 16356);
    CHECK(s.transistors_complete);
    CHECK_FALSE(s.area_um2.has_value());
  }
  SECTION("an incomplete count is flagged") {
    const auto s = parseYosysStatJson(kCmosPlusJson, "plus.json");
    CHECK(s.flops == 104);
    CHECK(*s.transistors == 10948);
    CHECK_FALSE(s.transistors_complete);
  }
  SECTION("mapped cells") {
    const auto s = parseYosysStatJson(std::string("\n12. Printing statistics.\n\n") + kMappedJson, "m");
    CHECK(s.cells == 1452);
    CHECK(s.flops == 104);
    CHECK(s.cells_by_type.at("DFFSR") == 104);
    CHECK_FALSE(s.transistors.has_value());
  }
  SECTION("garbage") {
    CHECK_THROWS_WITH(parseYosysStatJson("no json here", "x.json"), Contains("x.json"));
    CHECK_THROWS_WITH(parseYosysStatJson("{\"modules\": {}}", "y.json"), Contains("no module"));
  }
}

TEST_CASE("Yosys text parsers: chip area and longest path", "[cost]") {
  CHECK(rfsim::cost::parseYosysChipArea(kMappedText, "t") == Approx(59941.0));
  CHECK(rfsim::cost::parseLtpLength(kLtpText, "t") == 26);
  CHECK_THROWS_WITH(rfsim::cost::parseYosysChipArea("Number of cells: 3\n", "stat.txt"),
                    Contains("stat.txt") && Contains("Chip area"));
  CHECK_THROWS_AS(rfsim::cost::parseLtpLength("", "ltp.txt"), Error);
}

TEST_CASE("OpenSTA report parser", "[cost]") {
  using rfsim::cost::parseStaReport;
  SECTION("met, from an input port") {
    const auto p = parseStaReport(kStaMet, "sta.log");
    CHECK(p.startpoint == "op_warp_i[0]");
    CHECK(p.startpoint_kind == "input port clocked by clk");
    CHECK(p.endpoint == "_2699_");
    CHECK(p.endpoint_kind == "rising edge-triggered flip-flop clocked by clk");
    CHECK(p.arrival_ns == Approx(2.891));
    CHECK(p.required_ns == Approx(9.906));
    CHECK(p.slack_ns == Approx(7.015));
    CHECK(p.met);
    CHECK(p.cells == 6);
  }
  SECTION("violated, from a flop") {
    const auto p = parseStaReport(kStaViolated, "sta.log");
    CHECK(p.startpoint == "_2630_");
    CHECK(p.arrival_ns == Approx(2.813));
    CHECK(p.slack_ns == Approx(-0.907));
    CHECK_FALSE(p.met);
    CHECK(p.cells == 4);  // the launching flop and three gates
  }
  SECTION("no path") {
    CHECK_THROWS_WITH(parseStaReport("No paths found.\n", "sta.log"), Contains("sta.log") && Contains("no timing path"));
  }
}

TEST_CASE("flop Q net of a mapped netlist", "[cost]") {
  CHECK(rfsim::cost::flopOutputNet(kMappedVerilog, "_2699_") == "base_q[0][0]");
  CHECK(rfsim::cost::flopOutputNet(kMappedVerilog, "_2698_") == "rsp_q[3][4]");
  CHECK(rfsim::cost::flopOutputNet(kMappedVerilog, "_9999_").empty());
}

TEST_CASE("generated scripts carry the flow's parameters and constraints", "[cost]") {
  rfsim::cost::SynthParams p{"unit", {"unit_pkg.sv"}, {{"NumWarps", 4}, {"NumRegs", 128}, {"NumReadPorts", 2}}};
  const std::string ys = rfsim::cost::yosysScript(p, "/r", "/l/cells.lib");
  CHECK_THAT(ys, Contains("read_verilog -sv -DSYNTHESIS /r/unit_pkg.sv /r/unit.sv\n"));
  CHECK_THAT(ys, Contains("chparam -set NumWarps 4 -set NumRegs 128 -set NumReadPorts 2 unit"));
  p.packages.clear();
  CHECK_THAT(rfsim::cost::yosysScript(p, "/r", "/l/cells.lib"), Contains("read_verilog -sv -DSYNTHESIS /r/unit.sv\n"));
  CHECK_THAT(ys, Contains("dfflegalize -cell $_DFF_P_ 01"));
  CHECK_THAT(ys, Contains("abc -liberty /l/cells.lib -constr abc.constr"));
  CHECK_THAT(rfsim::cost::abcConstraints(), Contains("set_driving_cell INVX1"));
  const std::string tcl = rfsim::cost::staScript(p, "/l/cells.lib", 10.0);
  CHECK_THAT(tcl, Contains("create_clock -name clk -period 10 [get_ports clk_i]"));
  CHECK_THAT(tcl, Contains("set_false_path -from [get_ports rst_ni]"));
  CHECK_THAT(tcl, Contains("set_load 0.0372"));
  CHECK_THROWS_WITH(rfsim::cost::yosysScript(p, "/my rtl", "/l/cells.lib"), Contains("'/my rtl'"));
}

TEST_CASE("tool lookup follows the search path", "[cost]") {
  CHECK_THROWS_WITH(rfsim::cost::findTool("yosys", std::string("")),
                    "cost: 'yosys' not found on PATH; run scripts/setup.sh");
  TempDir dir("path");
  const fs::path fake = dir.path / "sta";
  std::ofstream(fake) << "#!/bin/sh\n";
  CHECK_THROWS_WITH(rfsim::cost::findTool("sta", dir.path.string()), Contains("'sta' not found"));
  fs::permissions(fake, fs::perms::owner_exec, fs::perm_options::add);
  CHECK(rfsim::cost::findTool("sta", "/nonexistent:" + dir.path.string()) == fake);

  rfsim::config::GpuConfig cfg;
  rfsim::cost::CostOptions o;
  o.work_dir = dir.path / "work";
  o.tool_search_path = "";
  CHECK_THROWS_WITH(rfsim::cost::buildCostReport(cfg, registryUnits(), o),
                    "cost: 'yosys' not found on PATH; run scripts/setup.sh");
}

TEST_CASE("analytic report needs no tools", "[cost]") {
  rfsim::config::GpuConfig cfg;
  rfsim::cost::CostOptions o;
  o.skip_synthesis = true;
  o.tool_search_path = "";
  const auto r = rfsim::cost::buildCostReport(cfg, registryUnits(), o);
  CHECK(r.warps == 64);
  CHECK(r.warp_registers == 2048);
  CHECK(r.notes.empty());
  CHECK_FALSE(r.synthesized);
  CHECK(r.result("cars_rename") == nullptr);
  const std::string md = rfsim::cost::toMarkdown(r);
  CHECK_THAT(md, Contains("(register file / (4 B x warp size)), 4 rename ports.\n"));
  CHECK_THAT(md, Contains("| stalled-warp list | W x log2(W) = 64 x 6 | 384 | 48 |"));
  CHECK_THAT(md, Contains("| **total** | | **2 112** | **264** |"));
  CHECK_THAT(md, Contains("Skipped"));
  const auto j = rfsim::cost::toJson(r);
  CHECK(j.at("read_ports") == rfsim::cars::carsConfig(cfg).rename_ports);
  CHECK(j.at("storage").at("paper").at("total_bytes") == 264.0);
  CHECK(j.at("storage").at("rtl").at("total_bits") == 64 * 55 + 11);
  CHECK(j.at("synthesis").is_null());
  CHECK(j.at("synthesis_ltrf_wcb").is_null());
  CHECK(j.at("energy").is_null());

  SECTION("a non-power-of-two configuration is rounded up and says so") {
    cfg.sm.max_warps = 48;
    cfg.regfile.size_kb = 96;  // 768 warp-registers
    const auto odd = rfsim::cost::buildCostReport(cfg, registryUnits(), o);
    CHECK(odd.warps == 64);
    CHECK(odd.warp_registers == 1024);
    REQUIRE(odd.notes.size() == 2);
    CHECK_THAT(rfsim::cost::toMarkdown(odd), Contains("costed for W = 64"));
  }
}

TEST_CASE("each mechanism's cost units are its RTL units, parameters from the configuration", "[cost]") {
  rfsim::config::GpuConfig cfg;
  cfg.sm.active_warps = 4;
  cfg.mechanisms.get<rfsim::mech::ltrf::LtrfConfig>("ltrf").regs_per_interval = 8;
  const rfsim::cost::CostContext ctx{cfg, 64, 2048};
  std::vector<std::string> modules;
  for (const auto& m : rfsim::mech::all()) {
    std::vector<std::string> units;
    if (m.cost) {
      const auto g = m.cost(ctx);
      CHECK(g.name == m.name);
      for (const auto& u : g.units) {
        units.push_back(u.module);
        modules.push_back(u.module);
        CHECK_FALSE(u.json_key.empty());
        CHECK(u.declared_flops > 0);
      }
    }
    CHECK(units == m.rtl_units);
  }
  CHECK(modules == std::vector<std::string>{"cars_rename", "cars_stalled_warps", "ltrf_wcb", "r2d2_regid"});
  const auto wcb = rfsim::mech::find("ltrf")->cost(ctx).units.at(0);
  CHECK(wcb.parameters == std::vector<std::pair<std::string, uint64_t>>{
                              {"NumWarps", rfsim::mech::ltrf::kCostSliceWarps}, {"NumRegs", 256}, {"NumBanks", 8}, {"NumOffsets", 4}});
  CHECK(wcb.declared_flops == rfsim::mech::ltrf::wcbRtlFlops(2, 256, 8, 4));
  // The 16-bank, 8-offset unit of the paper: 1 357 flops a warp, 31 for the offset queue.
  CHECK(rfsim::mech::ltrf::wcbRtlFlops(2, 256, 16, 8) == 2 * 1357 + 31);
  rfsim::cars::carsConfig(cfg).rename_ports = 0;
  CHECK_THROWS_WITH(rfsim::mech::find("cars")->cost(ctx), Contains("at least one read port"));
}

TEST_CASE("tool runner reports the tool, the log and the error line", "[cost][tools]") {
  TempDir dir("runner");
  std::ofstream(dir.path / "bad.ys") << "read_verilog /nonexistent/missing.sv\n";
  const std::string ye = errorOf([&] {
    rfsim::cost::runTool({rfsim::cost::findTool("yosys"), {"-s", "bad.ys"}, dir.path, "yosys.log"});
  });
  CHECK_THAT(ye, Contains("yosys failed") && Contains("yosys.log") && Contains("missing.sv"));
  // OpenSTA exits 0 after a failed command; the runner still notices.
  std::ofstream(dir.path / "bad.tcl") << "read_liberty /nonexistent/cells.lib\nexit\n";
  const std::string se = errorOf([&] {
    rfsim::cost::runTool({rfsim::cost::findTool("sta"), {"-no_splash", "-exit", "bad.tcl"}, dir.path, "sta.log"});
  });
  CHECK_THAT(se, Contains("sta failed") && Contains("sta.log") && Contains("cannot read file /nonexistent/cells.lib"));
}

TEST_CASE("a missing liberty file is named", "[cost][tools]") {
  TempDir dir("nolib");
  rfsim::config::GpuConfig cfg;
  rfsim::cost::CostOptions o;
  o.work_dir = dir.path;
  o.liberty = dir.path / "none.lib";
  CHECK_THROWS_WITH(rfsim::cost::buildCostReport(cfg, registryUnits(), o), Contains((dir.path / "none.lib").string()));
}

TEST_CASE("end-to-end synthesis of a 4-warp, 128-register, 2-port unit", "[cost][synth]") {
  const fs::path lib = RFSIM_OSU018_LIB;
  if (!fs::is_regular_file(lib))
    FAIL("OSU018 liberty " << lib.string() << " not found (RFSIM_OSU018_LIB); run scripts/setup.sh");
  TempDir dir("synth");
  rfsim::config::GpuConfig cfg;
  cfg.name = "tiny";
  cfg.sm.max_warps = 4;
  cfg.regfile.size_kb = 16;  // 16 KiB / (4 B x 32) = 128 warp-registers
  rfsim::cars::carsConfig(cfg).rename_ports = 2;
  rfsim::cost::CostOptions o;
  o.work_dir = dir.path / "synth";
  std::vector<std::string> progress;
  o.progress = [&](const std::string& line) { progress.push_back(line); };
  const auto r = rfsim::cost::buildCostReport(cfg, registryUnitsSmallLtrf(), o);
  CHECK(progress.front() == "synthesizing rtl/cars_rename.sv (cars: NumWarps = 4, NumRegs = 128, NumReadPorts = 2)");
  CHECK(progress.at(1) == "timing of cars_rename (OpenSTA)");
  CHECK(progress.size() == 10);  // four units synthesized and timed, two of them with an energy
  REQUIRE(r.result("cars_rename"));
  const auto& s = r.result("cars_rename")->synth;
  CHECK(r.warp_registers == 128);
  // Base, RFP, RSP, the free count and the stack size are log2(128) = 7
  // bits each; F once, 7 bits.
  CHECK(s.flops == 4 * (5 * 7) + 7);
  CHECK(s.flops == rfsim::cars::rtlStorage(4, 128).total_bits);
  CHECK(s.cells_by_type.at("DFFSR") == s.flops);
  CHECK(s.transistors_complete);
  CHECK(s.transistors > 24 * s.flops);  // more than the flops alone
  CHECK(s.transistors < 100000);
  CHECK(s.logic_levels > 5);
  CHECK(s.logic_levels < 100);
  CHECK(s.cells > s.flops);
  CHECK(s.area_um2 > 96.0 * s.flops);  // DFFPOSX1 is 96 um2; DFFSR is larger
  CHECK(s.area_um2 < 1e6);
  CHECK(s.gate_equivalents == Approx(s.area_um2 / 24.0));
  CHECK(s.critical_path_ns > 0.5);
  CHECK(s.critical_path_ns < 10.0);
  CHECK(s.critical_path_cells > 3);
  CHECK(s.fmax_mhz == Approx(1000.0 / (10.0 - s.slack_ns)));
  CHECK(s.setup_ns > 0.0);
  CHECK_FALSE(s.critical_start.empty());
  CHECK_THAT(s.critical_end, Contains("_q[") && Contains("flop"));
  CHECK_THAT(s.yosys_version, Contains("Yosys"));
  CHECK_THAT(s.sta_version, Contains("OpenSTA"));
  for (const char* f : {"synth.ys", "abc.constr", "sta.tcl", "yosys.log", "sta.log", "mapped.v"})
    CHECK(fs::is_regular_file(o.work_dir / f));
  const std::string md = rfsim::cost::toMarkdown(r);
  CHECK_THAT(md, Contains("| flip-flops | 147 |"));
  CHECK_THAT(md, Contains("rst_ni") && Contains("45 nm") && Contains("64-warp rename tables"));
  const auto j = rfsim::cost::toJson(r);
  CHECK(j.at("storage").at("paper").at("total_bytes") == 10.5);
  CHECK(j.at("synthesis").at("flops") == 147);
  CHECK(j.at("synthesis").at("parameters").at("NumReadPorts") == 2);
  // The stalled-warp list through the same flow: 4 entries of 2 bits and a
  // 3-bit count.
  REQUIRE(r.result("cars_stalled_warps"));
  const auto& stalled = r.result("cars_stalled_warps")->synth;
  CHECK(stalled.flops == 4 * 2 + 3);
  CHECK(stalled.cells > stalled.flops);
  CHECK(stalled.critical_path_ns > 0.0);
  CHECK(fs::is_regular_file(o.work_dir / "stalled_warps" / "mapped.v"));
  CHECK_THAT(md, Contains("## The stalled-warp list and warp status check") && Contains("| flip-flops (paper: 8) | 11 |"));
  CHECK(j.at("synthesis_stalled_warps").at("flops") == 11);
  CHECK(j.at("synthesis_stalled_warps").at("parameters").at("NumWarps") == 4);
  CHECK_FALSE(j.at("synthesis_stalled_warps").at("parameters").contains("NumRegs"));
  // R2D2's register ID unit: its 16 x (4 + 1) table bits are its only flops.
  REQUIRE(r.result("r2d2_regid"));
  const auto& regid = r.result("r2d2_regid")->synth;
  CHECK(regid.flops == 80);
  CHECK(regid.cells > regid.flops);
  CHECK(regid.critical_path_ns > 0.0);
  CHECK_THAT(md, Contains("## R2D2's physical register ID calculation") && Contains("| flip-flops (paper: 128 bits) | 80 |"));
  CHECK(j.at("synthesis_r2d2_regid").at("parameters").at("NumWarpRegs") == r.warp_registers);
  // LTRF's WCB/AAU slice: exactly the flops its RTL declares.
  using rfsim::mech::ltrf::kCostSliceWarps;
  REQUIRE(r.result("ltrf_wcb"));
  const auto& wcb = r.result("ltrf_wcb")->synth;
  CHECK(wcb.flops == rfsim::mech::ltrf::wcbRtlFlops(kCostSliceWarps, kSmallLtrfRegs, 16, 8));
  CHECK(wcb.critical_path_ns > 0.0);
  CHECK_THAT(md, Contains("## LTRF's warp control blocks") && Contains("114 880"));
  CHECK(j.at("synthesis_ltrf_wcb").at("parameters").at("NumWarps") == kCostSliceWarps);
  CHECK(j.at("synthesis_ltrf_wcb").at("parameters").at("NumBanks") == 16);
  // The gate-level energy of both netlists, their outputs checked against
  // the RTL's on the way (a difference throws).
  const auto& energy = r.result("cars_rename")->energy;
  const auto& stalled_energy = r.result("cars_stalled_warps")->energy;
  REQUIRE(energy.has_value());
  REQUIRE(stalled_energy.has_value());
  CHECK_FALSE(r.result("ltrf_wcb")->energy.has_value());  // no stimulus
  CHECK(energy->voltage == 1.8);
  CHECK(energy->clock_pj_per_cycle > 0.0);
  // The clock's share alone: 147 flops' clock pins, well under 1 pJ each.
  CHECK(energy->clock_pj_per_cycle < 147 * 1.0);
  CHECK(energy->idle_logic_pj_per_cycle < 0.01 * energy->phase("push").logic_pj);
  for (const char* ph : {"launch", "push", "rename", "pop", "call_ret"}) {
    CHECK(energy->phase(ph).toggles > 0);
    CHECK(energy->phase(ph).pj_per_op > 0.0);
  }
  for (const char* ph : {"push", "release", "remove"}) CHECK(stalled_energy->phase(ph).pj_per_op > 0.0);
  CHECK(energy->leakage_w > 0.0);
  CHECK(r.energy_scale == Approx(12.0 / 180 * 0.25));
  const auto keys = rfsim::cars::carsEnergyKeys(groupOf(r, "cars").view(), r.energy_scale);
  REQUIRE(keys.size() == 7);
  CHECK(keys[0].first == "rename_pj");
  CHECK(keys[0].second == Approx(energy->phase("rename").pj_per_op * r.energy_scale));
  CHECK_THAT(md, Contains("## Energy per operation") && Contains("`mechanisms.cars` keys") &&
                     Contains("`push_pop_pj`") && Contains("| per unit | cars_rename | cars_stalled_warps | scaled, both |"));
  CHECK(j.at("energy").at("units").size() == 2);
  CHECK(j.at("energy").at("cars_keys").at("rename_pj") == Approx(keys[0].second));
  CHECK_FALSE(fs::exists(o.work_dir / "energy_gl.vcd"));  // tens of MB; kept only on request
  CHECK(fs::is_regular_file(o.work_dir / "energy_stim.vcd"));
}
