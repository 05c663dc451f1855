// A reader for the part of a Liberty (.lib) cell library that the gate-level
// energy estimate needs (docs/cost.md, "Energy per operation"): the supply
// voltage, and per cell its area, leakage, pins with their direction and
// input capacitance, flip-flop groups, and the internal-power tables (NLDM
// energy per transition, indexed by output load and input transition, or by
// input transition alone for an input pin's "passive" energy).
//
// The syntax is Liberty's general one: groups `name (args) { ... }`, simple
// attributes `name : value ;` and complex attributes `name (args) ;`, with
// C comments and backslash line continuations.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rfsim::cost {

// One group of the file, with its attributes and subgroups in file order.
struct LibertyGroup {
  std::string type;               // "cell", "pin", "internal_power", ...
  std::vector<std::string> args;  // cell (NAND2X1) -> {"NAND2X1"}
  std::map<std::string, std::string> simple;                          // name : value
  std::vector<std::pair<std::string, std::vector<std::string>>> complex;  // name (a, b)
  std::vector<LibertyGroup> groups;
  int line = 0;

  const std::string* attr(const std::string& name) const;
  std::vector<const LibertyGroup*> children(const std::string& type) const;
};

// Parses the whole file; throws rfsim::Error naming the file and line.
LibertyGroup parseLiberty(const std::string& text, const std::string& file);

// A lookup table: values over index_1 (and index_2 when two-dimensional),
// with the variable each index stands for (from the table's template when
// the table does not give its own indices).
struct LibertyTable {
  std::string var1, var2;
  std::vector<double> index1, index2;
  std::vector<double> values;  // row-major: index1 rows, index2 columns
  bool empty() const { return values.empty(); }
  // Bilinear interpolation (linear extrapolation beyond the ends) at the
  // given output load (pF) and input transition (ns), each variable routed to
  // its index by name.
  double lookup(double load_pf, double transition_ns) const;
};

struct LibertyPower {
  std::string related_pin;  // empty for an input pin's own (passive) energy
  LibertyTable rise, fall;  // energy per transition of the pin
};

struct LibertyPin {
  std::string name;
  std::string direction;  // input, output, inout, internal
  double capacitance = 0.0;
  bool clock = false;
  std::vector<LibertyPower> power;
};

struct LibertyCell {
  std::string name;
  double area = 0.0;
  double leakage = 0.0;  // in the library's leakage unit (LibertyLibrary::leakage_w)
  bool sequential = false;
  std::map<std::string, LibertyPin> pins;
  const LibertyPin* pin(const std::string& name) const;
};

struct LibertyLibrary {
  std::string name;
  double voltage = 0.0;    // nom_voltage
  double leakage_w = 1.0;  // watts per leakage unit ("1nW" -> 1e-9)
  double cap_pf = 1.0;     // pF per capacitance unit (capacitive_load_unit)
  std::map<std::string, LibertyCell> cells;
  const LibertyCell& cell(const std::string& name) const;  // throws when absent
};

// The library view of a parsed file; throws rfsim::Error when the file is
// not a library or a table is malformed.
LibertyLibrary readLiberty(const std::string& text, const std::string& file);

}  // namespace rfsim::cost
