// The energy model's account (energy_model.h); docs/energy.md explains the
// choice behind each line.
#include "energy/energy_model.h"

#include <fmt/format.h>

#include "common/error.h"

namespace rfsim::energy {

namespace {

// The events of a statistic of the GPU group: a Scalar's value, a Vector's
// total, or one named element of a Vector ("sm.exec.thread_instrs_by_unit:sp").
uint64_t count(const stats::Group& gpu, const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string path = spec.substr(0, colon);
  const stats::Info* info = gpu.find(path);
  if (!info) throw Error(fmt::format("energy model: the GPU statistics have no '{}'", path));
  if (const auto* s = dynamic_cast<const stats::Scalar*>(info)) return s->get();
  const auto* v = dynamic_cast<const stats::Vector*>(info);
  if (!v) throw Error(fmt::format("energy model: '{}' is not a count", path));
  if (colon == std::string::npos) return v->total();
  const nlohmann::json j = v->value();
  const std::string elem = spec.substr(colon + 1);
  if (!j.is_object() || !j.contains(elem)) throw Error(fmt::format("energy model: '{}' has no element '{}'", path, elem));
  return j[elem].get<uint64_t>();
}

// One line of the baseline's account: the structure, the statistics whose
// sum is its events, and its energy per event.
struct Line {
  const char* name;
  std::vector<std::string> stats;
  double config::EnergyConfig::*pj;
};

// The access kinds (mem::AccessKind) that read and that write a cache line.
std::vector<std::string> kReads(const std::string& v) {
  return {v + ":global_load", v + ":local_load", v + ":atomic", v + ":other"};
}
std::vector<std::string> kWrites(const std::string& v) { return {v + ":global_store", v + ":local_store"}; }

// Per SM unless said otherwise; the GPU group sums the SMs (gpu.sm) and the
// L1Ds (gpu.l1d).
const std::vector<Line>& lines() {
  using E = config::EnergyConfig;
  static const std::vector<Line> t = {
      // Operands: one event per warp register (32 lanes x 32 bits) read from
      // or written to a bank, and per operand carried from a bank to a
      // collector through the crossbar.
      {"regfile_read", {"sm.opcoll.rf_reads"}, &E::regfile_read_pj},
      {"regfile_write", {"sm.opcoll.rf_writes"}, &E::regfile_write_pj},
      {"opcoll", {"sm.opcoll.rf_reads"}, &E::opcoll_pj},
      // Front end: fetch, decode, scheduling and scoreboard per warp
      // instruction issued; an I-cache read (the L0, or the L1I without
      // one) per I-buffer fill.
      {"issue", {"sm.warp_instrs"}, &E::issue_pj},
      {"l1i", {"sm.fetch.fills"}, &E::l1i_pj},
      // Execution: per active lane, by the operation's class.
      {"sp", {"sm.exec.thread_instrs_by_unit:sp"}, &E::sp_lane_pj},
      {"int", {"sm.exec.thread_instrs_by_unit:int"}, &E::int_lane_pj},
      {"sfu", {"sm.exec.thread_instrs_by_unit:sfu"}, &E::sfu_lane_pj},
      {"dp", {"sm.exec.thread_instrs_by_unit:dp"}, &E::dp_lane_pj},
      {"ldst", {"sm.exec.thread_instrs_by_unit:ldst"}, &E::ldst_lane_pj},
      // On-SM memories: a shared-memory pass (a bank-conflict-free warp
      // access; a conflict adds passes), a constant-cache access, an L1D
      // line request (a load or atomic reads, a store writes).
      {"shared", {"sm.ldst.shared_passes"}, &E::shared_pj},
      {"const", {"sm.ldst.const_accesses"}, &E::const_pj},
      {"l1d_read", kReads("l1d.accesses_by_kind"), &E::l1d_read_pj},
      {"l1d_write", kWrites("l1d.accesses_by_kind"), &E::l1d_write_pj},
      // The memory side: an L2 line access, a byte through the interconnect,
      // a byte from or to DRAM. (A miss's fill is its DRAM bytes and flits.)
      {"l2_read", kReads("mem.l2.accesses_by_kind"), &E::l2_read_pj},
      {"l2_write", kWrites("mem.l2.accesses_by_kind"), &E::l2_write_pj},
      {"icnt", {"mem.icnt.bytes"}, &E::icnt_pj_per_byte},
      {"dram_read", {"mem.dram.read_bytes"}, &E::dram_read_pj_per_byte},
      {"dram_write", {"mem.dram.write_bytes"}, &E::dram_write_pj_per_byte},
  };
  return t;
}

EnergyStats::Account makeAccount(const config::GpuConfig& cfg, const stats::Group& gpu,
                                 const std::vector<Structure>& mech) {
  EnergyStats::Account a;
  a.structures = baselineStructures(cfg.energy, gpu);
  for (const auto& s : mech) a.structures.push_back(s);
  for (const auto& s : a.structures) {
    const double nj = double(s.events) * s.pj_per_event * 1e-3;
    a.dynamic.emplace_back(s.name, nj);
    a.dynamic_nj += nj;
  }
  const uint64_t cycles = count(gpu, "cycles");
  const uint64_t sms = count(gpu, "num_sms");
  a.warp_instrs = count(gpu, "warp_instrs");
  a.thread_instrs = count(gpu, "thread_instrs");
  a.seconds = double(cycles) / (cfg.gpu.clock_mhz * 1e6);
  // Static power over the launch: every SM (idle ones too: no power gating
  // is modelled), the memory side, the board's constant part; W x s = J.
  const double ns = a.seconds * 1e9;  // W x ns = nJ
  a.static_parts.emplace_back("sm", cfg.energy.sm_static_w * double(sms) * ns);
  a.static_parts.emplace_back("memory", cfg.energy.mem_static_w * ns);
  a.static_parts.emplace_back("constant", cfg.energy.constant_w * ns);
  for (const auto& s : mech)
    if (s.static_w_per_sm > 0) a.static_parts.emplace_back(s.name, s.static_w_per_sm * double(sms) * ns);
  for (const auto& [name, nj] : a.static_parts) a.static_nj += nj;
  return a;
}

std::vector<std::string> names(const std::vector<Structure>& v) {
  std::vector<std::string> n;
  for (const auto& s : v) n.push_back(s.name);
  return n;
}

double lookup(const stats::FormulaVector::Entries& e, const std::string& name, const char* what) {
  for (const auto& [n, v] : e)
    if (n == name) return v;
  throw Error(fmt::format("energy model: no {} '{}'", what, name));
}

}  // namespace

std::vector<Structure> baselineStructures(const config::EnergyConfig& e, const stats::Group& gpu) {
  std::vector<Structure> out;
  for (const Line& l : lines()) {
    Structure s{l.name, 0, e.*l.pj, 0.0};
    for (const auto& st : l.stats) s.events += count(gpu, st);
    out.push_back(std::move(s));
  }
  return out;
}

EnergyStats::EnergyStats(stats::Group* parent, const config::GpuConfig& cfg, const stats::Group& gpu,
                         const std::vector<Structure>& mechanism_structures)
    : Group(parent, "energy", "energy: events x energy per event, plus static power x time (docs/energy.md)"),
      a_(makeAccount(cfg, gpu, mechanism_structures)),
      events(this, "events", stats::unit::Count, "events per structure", a_.structures.size(), names(a_.structures)),
      dynamic(this, "dynamic", stats::unit::Nanojoule, "dynamic energy per structure", [this] { return a_.dynamic; }),
      static_parts(this, "static", stats::unit::Nanojoule, "static energy: SMs, memory side, board, mechanisms' structures",
                   [this] { return a_.static_parts; }),
      ADD_STAT(dynamic_total, stats::unit::Nanojoule, "dynamic energy", [this] { return a_.dynamic_nj; }),
      ADD_STAT(static_total, stats::unit::Nanojoule, "static energy", [this] { return a_.static_nj; }),
      ADD_STAT(total, stats::unit::Nanojoule, "dynamic + static energy", [this] { return totalNj(); }),
      ADD_STAT(per_warp_instr, stats::unit::Nanojoule, "energy per warp instruction",
               [this] { return a_.warp_instrs ? totalNj() / double(a_.warp_instrs) : 0.0; }),
      ADD_STAT(power, stats::unit::Watt, "average power (energy / simulated time)",
               [this] { return a_.seconds > 0 ? totalNj() * 1e-9 / a_.seconds : 0.0; }),
      ADD_STAT(gops_per_watt, stats::unit::Ratio, "energy efficiency: thread instructions per nJ (Gop/s per W)",
               [this] { return totalNj() > 0 ? double(a_.thread_instrs) / totalNj() : 0.0; }) {
  for (size_t i = 0; i < a_.structures.size(); ++i) events[i] = a_.structures[i].events;
}

double EnergyStats::dynamicNj(const std::string& structure) const { return lookup(a_.dynamic, structure, "structure"); }
double EnergyStats::staticNj(const std::string& part) const { return lookup(a_.static_parts, part, "static part"); }

}  // namespace rfsim::energy
