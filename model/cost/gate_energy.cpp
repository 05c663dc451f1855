#include "cost/gate_energy.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.h"
#include "common/results_dir.h"
#include "cost/liberty.h"
#include "cost/synth_flow.h"
#include "cost/tool_runner.h"
#include "cost/vcd_toggles.h"

namespace fs = std::filesystem;

namespace rfsim::cost {

std::string Stimulus::toVcd(uint32_t period_ns) const {
  if (period_ns < 2 || period_ns % 2) throw Error("stimulus: the period must be an even number of ns");
  std::string out = "$timescale 1ns $end\n";
  out += fmt::format("$scope module {} $end\n", module);
  auto code = [](size_t i) { return fmt::format("s{}", i); };
  out += fmt::format("$var wire 1 {} {} $end\n", code(0), clock);
  for (size_t i = 0; i < signals.size(); ++i) {
    if (signals[i].width == 0 || signals[i].width > 64)
      throw Error(fmt::format("stimulus: signal {} is {} bits wide (1 to 64)", signals[i].name, signals[i].width));
    out += fmt::format("$var wire {} {} {} $end\n", signals[i].width, code(i + 1), signals[i].name);
  }
  out += "$upscope $end\n$enddefinitions $end\n";
  for (size_t c = 0; c < cycles.size(); ++c) {
    if (cycles[c].size() != signals.size())
      throw Error(fmt::format("stimulus: cycle {} has {} values for {} signals", c, cycles[c].size(), signals.size()));
    out += fmt::format("#{}\n0{}\n", c * period_ns, code(0));
    for (size_t i = 0; i < signals.size(); ++i) {
      if (c > 0 && cycles[c][i] == cycles[c - 1][i]) continue;
      if (signals[i].width == 1) out += fmt::format("{}{}\n", cycles[c][i] & 1, code(i + 1));
      else out += fmt::format("b{:b} {}\n", cycles[c][i], code(i + 1));
    }
    out += fmt::format("#{}\n1{}\n", c * period_ns + period_ns / 2, code(0));
  }
  out += fmt::format("#{}\n0{}\n", cycles.size() * period_ns, code(0));
  return out;
}

const PhaseEnergy& GateEnergy::phase(const std::string& n) const {
  for (const auto& p : phases)
    if (p.name == n) return p;
  throw Error(fmt::format("cost: {} has no energy phase '{}'", module, n));
}

namespace {

struct PinRef {
  const LibertyCell* cell;
  const LibertyPin* pin;
};

// The mapped netlist as nets: each bit, its driver and its loads. Bits joined
// by `assign` are one net.
class Netlist {
 public:
  Netlist(const std::string& text, const LibertyLibrary& lib) {
    std::string stmt;
    for (char c : text) {
      if (c == ';') {
        statement(stmt, lib);
        stmt.clear();
      } else {
        stmt += c;
      }
    }
  }

  struct Net {
    std::vector<std::string> names;
    std::optional<PinRef> driver;
    std::vector<PinRef> loads;
    bool output_port = false;
  };
  const std::vector<const LibertyCell*>& instances() const { return instances_; }
  // One entry per net (alias sets merged).
  std::vector<Net> nets() const {
    std::map<std::string, Net> by_root;
    for (const auto& [name, info] : bits_) {
      Net& n = by_root[root(name)];
      n.names.push_back(name);
      if (info.driver) n.driver = info.driver;
      n.loads.insert(n.loads.end(), info.loads.begin(), info.loads.end());
      n.output_port |= info.output_port;
    }
    std::vector<Net> out;
    for (auto& [r, n] : by_root) out.push_back(std::move(n));
    return out;
  }

 private:
  struct Bit {
    std::optional<PinRef> driver;
    std::vector<PinRef> loads;
    bool output_port = false;
  };
  struct Decl {
    int msb = 0, lsb = 0;
    bool vector = false;
  };

  static std::string trim(std::string s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
  }
  // "\entry_q[63] [0]" -> "entry_q[63][0]"; "x [3]" -> "x[3]".
  static std::string norm(std::string s) {
    s = trim(s);
    if (!s.empty() && s[0] == '\\') {
      s.erase(0, 1);
      const size_t sp = s.find_first_of(" \t");
      if (sp != std::string::npos) s = s.substr(0, sp) + trim(s.substr(sp));
    } else {
      s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
              s.end());
    }
    return s;
  }
  static bool isConstant(const std::string& s) { return s.find('\'') != std::string::npos; }

  // The bits of a reference, most significant first ("" for a constant bit).
  std::vector<std::string> expand(const std::string& ref) const {
    std::string r = trim(ref);
    if (r.empty()) return {};
    if (r[0] == '{') {
      std::vector<std::string> out;
      const std::string inner = r.substr(1, r.rfind('}') - 1);
      std::stringstream ss(inner);
      std::string part;
      while (std::getline(ss, part, ',')) {
        auto b = expand(part);
        out.insert(out.end(), b.begin(), b.end());
      }
      return out;
    }
    if (isConstant(r)) {
      const size_t q = r.find('\'');
      const int w = q ? std::stoi(r.substr(0, q)) : 1;
      return std::vector<std::string>(static_cast<size_t>(w), "");
    }
    const std::string n = norm(r);
    auto it = decls_.find(n);
    if (it != decls_.end() && it->second.vector) {
      std::vector<std::string> out;
      const Decl& d = it->second;
      for (int i = d.msb; d.msb >= d.lsb ? i >= d.lsb : i <= d.lsb; d.msb >= d.lsb ? --i : ++i)
        out.push_back(fmt::format("{}[{}]", n, i));
      return out;
    }
    return {n};
  }

  void declare(const std::string& kind, std::string rest) {
    rest = trim(rest);
    Decl d;
    if (!rest.empty() && rest[0] == '[') {
      const size_t colon = rest.find(':'), close = rest.find(']');
      d.msb = std::stoi(rest.substr(1, colon - 1));
      d.lsb = std::stoi(rest.substr(colon + 1, close - colon - 1));
      d.vector = true;
      rest = rest.substr(close + 1);
    }
    const std::string name = norm(rest);
    decls_[name] = d;
    if (kind == "output")
      for (const std::string& b : expand(name)) bits_[b].output_port = true;
  }

  void statement(const std::string& raw, const LibertyLibrary& lib) {
    std::string s = trim(raw);
    if (s.rfind("endmodule", 0) == 0) s = trim(s.substr(9));
    // Comments (the header line) and attributes are not written with -noattr.
    while (s.rfind("/*", 0) == 0) s = trim(s.substr(s.find("*/") + 2));
    if (s.empty() || s.rfind("module", 0) == 0) return;
    std::istringstream ss(s);
    std::string kw;
    ss >> kw;
    if (kw == "input" || kw == "output" || kw == "wire" || kw == "inout") {
      declare(kw, s.substr(kw.size()));
      return;
    }
    if (kw == "assign") {
      const size_t eq = s.find('=');
      const auto lhs = expand(s.substr(6, eq - 6)), rhs = expand(s.substr(eq + 1));
      for (size_t i = 0; i < std::min(lhs.size(), rhs.size()); ++i) {
        const std::string& a = lhs[lhs.size() - 1 - i];
        const std::string& b = rhs[rhs.size() - 1 - i];
        if (a.empty() || b.empty()) continue;
        bits_[a];
        bits_[b];
        unite(a, b);
      }
      return;
    }
    // An instance: CELL NAME ( .PIN(net), ... )
    std::string inst;
    ss >> inst;
    const LibertyCell& cell = lib.cell(kw);
    instances_.push_back(&cell);
    size_t pos = s.find('(');
    while ((pos = s.find('.', pos)) != std::string::npos) {
      const size_t open = s.find('(', pos);
      // The net may hold parentheses only inside an escaped name; OSU pins are plain.
      size_t close = open + 1;
      int depth = 1;
      for (; close < s.size() && depth; ++close) {
        if (s[close] == '(') ++depth;
        if (s[close] == ')') --depth;
      }
      const std::string pin = trim(s.substr(pos + 1, open - pos - 1));
      const std::string net = s.substr(open + 1, close - open - 2);
      pos = close;
      const LibertyPin* p = cell.pin(pin);
      if (!p) throw Error(fmt::format("cost: netlist cell {} ({}) has no pin {} in {}", inst, kw, pin, lib.name));
      for (const std::string& b : expand(net)) {
        if (b.empty()) continue;
        Bit& bit = bits_[b];
        if (p->direction == "output") bit.driver = PinRef{&cell, p};
        else bit.loads.push_back(PinRef{&cell, p});
      }
    }
  }

  std::string root(const std::string& n) const {
    auto it = parent_.find(n);
    std::string r = n;
    while (it != parent_.end() && it->second != r) {
      r = it->second;
      it = parent_.find(r);
    }
    return r;
  }
  void unite(const std::string& a, const std::string& b) {
    const std::string ra = root(a), rb = root(b);
    if (ra != rb) parent_[ra] = rb;
  }

  std::vector<const LibertyCell*> instances_;
  std::map<std::string, Decl> decls_;
  std::map<std::string, Bit> bits_;
  std::unordered_map<std::string, std::string> parent_;
};

// The port names of the netlist's module header: module m(a, b, c);
std::vector<std::string> modulePorts(const std::string& netlist, const std::string& module) {
  const size_t m = netlist.find("module " + module + "(");
  if (m == std::string::npos) throw Error(fmt::format("cost: mapped.v has no module {}", module));
  const size_t open = netlist.find('(', m), close = netlist.find(')', open);
  std::vector<std::string> out;
  std::stringstream ss(netlist.substr(open + 1, close - open - 1));
  std::string p;
  while (std::getline(ss, p, ',')) {
    p.erase(std::remove_if(p.begin(), p.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
            p.end());
    if (!p.empty() && p[0] == '\\') p.erase(0, 1);
    if (!p.empty()) out.push_back(p);
  }
  return out;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

GateEnergy computeGateEnergy(const Stimulus& st, const std::string& liberty_text, const std::string& liberty_file,
                             const std::string& netlist_text, const fs::path& netlist_vcd, double period_ns) {
  const LibertyLibrary lib = readLiberty(liberty_text, liberty_file);
  const Netlist netlist(netlist_text, lib);
  const uint64_t period = static_cast<uint64_t>(period_ns);
  std::vector<uint64_t> bounds;
  for (const auto& ph : st.phases) {
    if (!bounds.empty() && bounds.back() != ph.first * period)
      throw Error(fmt::format("cost: energy phase {} does not start where the one before ends", ph.name));
    if (bounds.empty()) bounds.push_back(ph.first * period);
    bounds.push_back((ph.first + ph.cycles) * period);
  }
  const VcdToggles tog = countToggles(netlist_vcd, bounds);
  const double v2 = lib.voltage * lib.voltage;

  GateEnergy g;
  g.module = st.module;
  g.voltage = lib.voltage;
  for (const auto& ph : st.phases) g.phases.push_back({ph.name, ph.cycles, ph.ops});
  uint64_t missing = 0;
  for (const Netlist::Net& n : netlist.nets()) {
    const std::vector<BitToggles>* t = nullptr;
    bool clock = false;
    for (const std::string& name : n.names) {
      if (name == st.clock) clock = true;
      if (!t) {
        auto it = tog.bits.find(name);
        if (it != tog.bits.end()) t = &it->second;
      }
    }
    if (!n.driver && n.loads.empty()) continue;  // a dangling name
    ++g.nets;
    if (!t) {
      ++missing;
      continue;
    }
    double cap = n.output_port ? kOutputLoadPf : 0.0;
    for (const PinRef& l : n.loads) cap += l.pin->capacitance;
    const double load = cap / lib.cap_pf;  // tables are indexed in the library's unit
    double rise_pj = 0.5 * cap * v2, fall_pj = 0.5 * cap * v2;
    if (n.driver) {
      std::vector<double> r, f;
      for (const LibertyPower& p : n.driver->pin->power) {
        if (p.related_pin.empty()) continue;
        if (!p.rise.empty()) r.push_back(p.rise.lookup(load, kNominalTransitionNs));
        if (!p.fall.empty()) f.push_back(p.fall.lookup(load, kNominalTransitionNs));
      }
      rise_pj += mean(r);
      fall_pj += mean(f);
    }
    for (const PinRef& l : n.loads)
      for (const LibertyPower& p : l.pin->power) {
        if (!p.related_pin.empty()) continue;
        if (!p.rise.empty()) rise_pj += p.rise.lookup(0.0, kNominalTransitionNs);
        if (!p.fall.empty()) fall_pj += p.fall.lookup(0.0, kNominalTransitionNs);
      }
    for (size_t w = 0; w < g.phases.size(); ++w) {
      const double e = static_cast<double>((*t)[w].rises) * rise_pj + static_cast<double>((*t)[w].falls) * fall_pj;
      if (clock) {
        g.phases[w].clock_pj += e;
      } else {
        g.phases[w].logic_pj += e;
        g.phases[w].toggles += (*t)[w].rises + (*t)[w].falls;
      }
    }
  }
  if (missing * 100 > g.nets)
    throw Error(fmt::format("cost: {} of {} nets of {} are missing from {}", missing, g.nets, st.module,
                            netlist_vcd.string()));
  double leakage = 0.0;
  for (const LibertyCell* c : netlist.instances()) leakage += c->leakage;
  g.leakage_w = leakage * lib.leakage_w;
  const PhaseEnergy& idle = g.phase("idle");
  if (idle.cycles == 0) throw Error("cost: the idle energy phase has no cycles");
  g.clock_pj_per_cycle = idle.clock_pj / static_cast<double>(idle.cycles);
  g.idle_logic_pj_per_cycle = idle.logic_pj / static_cast<double>(idle.cycles);
  for (PhaseEnergy& p : g.phases) {
    g.cycles += p.cycles;
    if (p.ops)
      p.pj_per_op = (p.logic_pj - g.idle_logic_pj_per_cycle * static_cast<double>(p.cycles)) / static_cast<double>(p.ops);
  }
  return g;
}

GateEnergy runGateEnergy(const Stimulus& st, const GateEnergyOptions& o) {
  const fs::path yosys = findTool("yosys", o.tool_search_path);
  const fs::path vcd2fst = findTool("vcd2fst", o.tool_search_path);
  const fs::path dir = fs::absolute(o.work_dir);
  std::error_code ec;
  if (!fs::is_regular_file(dir / "mapped.v", ec))
    throw Error(fmt::format("cost: {} has no mapped.v: synthesize {} first", dir.string(), st.module));
  const uint32_t period = static_cast<uint32_t>(o.clock_period_ns);
  if (period != o.clock_period_ns || period < 2 || period % 2)
    throw Error(fmt::format("cost: the energy simulation needs an even clock period in whole ns, not {}",
                            o.clock_period_ns));
  writeFileAtomic(dir / "energy_stim.vcd", st.toVcd(period));
  runTool({vcd2fst, {"energy_stim.vcd", "energy_stim.fst"}, dir, "energy_vcd2fst.log"});

  std::string params;
  for (const auto& [k, v] : o.parameters) params += fmt::format(" -set {} {}", k, v);
  const std::string rtl = fs::absolute(o.rtl_dir).lexically_normal().string();
  std::string sources;
  for (const std::string& f : o.packages) sources += fmt::format("{}/{} ", rtl, f);
  writeFileAtomic(dir / "energy_rtl.ys",
                  fmt::format("# Generated by rfsim cost (model/cost/gate_energy.cpp); see docs/cost.md.\n"
                              "# The RTL under the energy stimulus: the reference the netlist is compared with.\n"
                              "read_verilog -sv -DSYNTHESIS {sources}{rtl}/{top}.sv\n"
                              "chparam{params} {top}\n"
                              "prep -top {top}\n"
                              "sim -r energy_stim.fst -scope {top} -vcd energy_rtl.vcd -q\n",
                              fmt::arg("rtl", rtl), fmt::arg("sources", sources), fmt::arg("top", st.module),
                              fmt::arg("params", params)));
  runTool({yosys, {"-q", "-s", "energy_rtl.ys"}, dir, "energy_rtl.log"});
  // Ports only: the netlist keeps some internal names of the RTL for other
  // signals (a constant-folded part of a wider one), which must not be compared.
  const std::string netlist = readTextFile(dir / "mapped.v");
  filterVcd(dir / "energy_rtl.vcd", dir / "energy_rtl_ports.vcd", modulePorts(netlist, st.module));
  runTool({vcd2fst, {"energy_rtl_ports.vcd", "energy_rtl.fst"}, dir, "energy_vcd2fst.log"});
  const std::string lib = fs::absolute(o.liberty).lexically_normal().string();
  writeFileAtomic(dir / "energy_gl.ys",
                  fmt::format("# Generated by rfsim cost (model/cost/gate_energy.cpp); see docs/cost.md.\n"
                              "# The OSU018 netlist, cells modelled from the liberty file, under the RTL's\n"
                              "# inputs; -sim-cmp stops at the first output that differs from the RTL's.\n"
                              "read_liberty -ignore_miss_func {lib}\n"
                              "read_verilog mapped.v\n"
                              "hierarchy -top {top}\n"
                              "flatten\n"
                              "sim -r energy_rtl.fst -scope {top} -sim-cmp -vcd energy_gl.vcd -q\n",
                              fmt::arg("lib", lib), fmt::arg("top", st.module)));
  runTool({yosys, {"-q", "-s", "energy_gl.ys"}, dir, "energy_gl.log"});
  GateEnergy g = computeGateEnergy(st, readTextFile(o.liberty), o.liberty.string(), netlist, dir / "energy_gl.vcd",
                                   o.clock_period_ns);
  // The netlist run's log names every netlist wire the RTL's file lacks (MBs).
  for (const char* f : {"energy_rtl.vcd", "energy_rtl.fst", "energy_stim.fst", "energy_gl.log"}) fs::remove(dir / f, ec);
  if (!o.keep_vcd) fs::remove(dir / "energy_gl.vcd", ec);
  return g;
}

}  // namespace rfsim::cost
