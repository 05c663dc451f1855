#include "cost/synth_parsers.h"

#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace rfsim::cost {

namespace {

std::string stripEscape(const std::string& name) {
  std::string out;
  for (char c : name)
    if (c != '\\' && c != ' ') out += c;
  return out;
}

std::vector<std::string> tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string t;
  while (in >> t) out.push_back(t);
  return out;
}

double toDouble(const std::string& s, const std::string& what, const std::string& source) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || *end != '\0')
    throw Error(fmt::format("{}: {} '{}' is not a number", source, what, s));
  return v;
}

// "Startpoint: op_warp_i[5] (input port clocked by clk)" -> name, kind.
void splitPoint(const std::string& rest, std::string& name, std::string& kind) {
  const std::size_t paren = rest.find(" (");
  name = rest.substr(0, paren);
  kind.clear();
  if (paren != std::string::npos) {
    const std::size_t close = rest.rfind(')');
    kind = rest.substr(paren + 2, close == std::string::npos || close < paren ? std::string::npos
                                                                              : close - paren - 2);
  }
}

}  // namespace

YosysStat parseYosysStatJson(const std::string& text, const std::string& source) {
  // `tee -o` may put a pass header in front of the JSON object.
  const std::size_t brace = text.find('{');
  if (brace == std::string::npos) throw Error(fmt::format("{}: no Yosys stat JSON found", source));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(brace), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: Yosys stat JSON does not parse: {}", source, e.what()));
  }
  YosysStat s;
  s.creator = j.value("creator", "");
  const auto modules = j.find("modules");
  if (modules == j.end() || !modules->is_object() || modules->empty())
    throw Error(fmt::format("{}: Yosys stat JSON lists no module", source));
  s.module = stripEscape(modules->begin().key());
  // "design" sums the hierarchy; a flattened design has one module anyway.
  const nlohmann::json& d = j.contains("design") ? j.at("design") : modules->begin().value();
  try {
    s.cells = d.at("num_cells").get<uint64_t>();
    for (const auto& [type, count] : d.at("num_cells_by_type").items()) {
      s.cells_by_type[type] = count.get<uint64_t>();
      if (type.find("DFF") != std::string::npos) s.flops += count.get<uint64_t>();
    }
    if (d.contains("estimated_num_transistors")) {
      const nlohmann::json& t = d.at("estimated_num_transistors");
      if (t.is_number()) {
        s.transistors = t.get<uint64_t>();
        s.transistors_complete = true;
      } else {
        const std::string v = t.get<std::string>();
        s.transistors = std::strtoull(v.c_str(), nullptr, 10);
        s.transistors_complete = v.find('+') == std::string::npos;
      }
    }
    if (d.contains("area")) s.area_um2 = d.at("area").get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: unexpected Yosys stat JSON: {}", source, e.what()));
  }
  return s;
}

double parseYosysChipArea(const std::string& text, const std::string& source) {
  const std::string key = "Chip area for module";
  const std::size_t at = text.rfind(key);  // the last one is the top of `stat -top`
  if (at == std::string::npos) throw Error(fmt::format("{}: no '{}' line", source, key));
  const std::size_t colon = text.find("': ", at);
  const std::size_t eol = text.find('\n', at);
  if (colon == std::string::npos || (eol != std::string::npos && colon > eol))
    throw Error(fmt::format("{}: malformed '{}' line", source, key));
  const std::string value = text.substr(colon + 3, eol == std::string::npos ? eol : eol - colon - 3);
  const auto t = tokens(value);
  return toDouble(t.empty() ? std::string() : t.front(), "chip area", source);
}

uint32_t parseLtpLength(const std::string& text, const std::string& source) {
  const std::string key = "Longest topological path in ";
  const std::size_t at = text.find(key);
  if (at == std::string::npos) throw Error(fmt::format("{}: no '{}' line", source, key));
  const std::size_t len = text.find("(length=", at);
  const std::size_t eol = text.find('\n', at);
  if (len == std::string::npos || (eol != std::string::npos && len > eol))
    throw Error(fmt::format("{}: malformed ltp line", source));
  return static_cast<uint32_t>(std::strtoul(text.c_str() + len + 8, nullptr, 10));
}

StaPath parseStaReport(const std::string& text, const std::string& source) {
  StaPath p;
  bool have_start = false, have_end = false, have_arrival = false, have_required = false,
       have_slack = false;
  std::vector<std::string> path_instances;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto t = tokens(line);
    if (t.empty()) continue;
    if (!have_start && t[0] == "Startpoint:") {
      splitPoint(line.substr(line.find(':') + 2), p.startpoint, p.startpoint_kind);
      have_start = true;
    } else if (!have_end && t[0] == "Endpoint:") {
      splitPoint(line.substr(line.find(':') + 2), p.endpoint, p.endpoint_kind);
      have_end = true;
    } else if (line.find("data arrival time") != std::string::npos) {
      if (!have_arrival) p.arrival_ns = toDouble(t[0], "data arrival time", source);
      have_arrival = true;
    } else if (line.find("data required time") != std::string::npos) {
      if (!have_required) p.required_ns = toDouble(t[0], "data required time", source);
      have_required = true;
    } else if (!have_slack && t.size() >= 3 && t[1] == "slack") {
      p.slack_ns = toDouble(t[0], "slack", source);
      p.met = t[2] == "(MET)";
      have_slack = true;
    } else if (have_start && !have_arrival && t.size() >= 2) {
      // "0.097    0.205 v _43505_/Y (INVX2)": a pin of a cell on the data path.
      const std::string& cell = t.back();
      const std::string& pin = t[t.size() - 2];
      const std::size_t slash = pin.rfind('/');
      if (cell.size() > 2 && cell.front() == '(' && cell.back() == ')' && cell != "(net)" &&
          slash != std::string::npos)
        path_instances.push_back(pin.substr(0, slash));
    }
  }
  if (!have_start || !have_end || !have_arrival || !have_slack)
    throw Error(fmt::format("{}: no timing path in the OpenSTA report (Startpoint/Endpoint/data "
                            "arrival time/slack missing)",
                            source));
  std::set<std::string> seen;
  for (const std::string& inst : path_instances)
    if (inst != p.endpoint && seen.insert(inst).second) ++p.cells;
  return p;
}

std::string flopOutputNet(const std::string& verilog, const std::string& instance) {
  const std::size_t at = verilog.find(" " + instance + " (");
  if (at == std::string::npos) return {};
  const std::size_t end = verilog.find(");", at);
  const std::size_t q = verilog.find(".Q(", at);
  if (q == std::string::npos || (end != std::string::npos && q > end)) return {};
  const std::size_t close = verilog.find(')', q + 3);
  if (close == std::string::npos) return {};
  return stripEscape(verilog.substr(q + 3, close - q - 3));
}

}  // namespace rfsim::cost
