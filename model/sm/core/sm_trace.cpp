#include "sm/core/sm_trace.h"

#include <fmt/format.h>

#include "common/error.h"
#include "sm/core/sm.h"

namespace rfsim::sm {

namespace {
// The scopes are the modules of the GPU's hierarchy (sm/core/sm_units.h):
// gpu.sm0.<unit>.<signal>.
const char* const kGpu = "gpu";
const char* const kTop = "sm0";
// VCD identifier codes: printable ASCII 33..126, base 94.
std::string idCode(uint32_t n) {
  std::string s;
  do {
    s += char(33 + n % 94);
    n /= 94;
  } while (n);
  return s;
}
}  // namespace

SmTrace::SmTrace(const std::filesystem::path& vcd, uint32_t num_schedulers, uint64_t first, uint64_t last)
    : vcd_(vcd), nsched_(num_schedulers), first_(first),
      last_(last == UINT64_MAX ? first + kDefaultMaxCycles - 1 : last) {
  if (last_ < first_) throw Error(fmt::format("--trace-window: the last cycle {} is before the first {}", last_, first_));
  if (vcd_.has_parent_path()) std::filesystem::create_directories(vcd_.parent_path());
  f_ = std::fopen(vcd_.string().c_str(), "w");
  if (!f_) throw Error(fmt::format("cannot write the SM trace {}", vcd_.string()));
  addVar("fetch", "ibuf_fills", 8);
  addVar("fetch", "l1i_misses", 8);
  for (uint32_t i = 0; i < nsched_; ++i) {
    addVar("issue", fmt::format("s{}_warp", i), 32, true);
    addVar("issue", fmt::format("s{}_pc", i), 32);
    addVar("issue", fmt::format("s{}_op", i), 16);
    addVar("issue", fmt::format("s{}_unit", i), 8);
    addVar("issue", fmt::format("s{}_stall", i), 8);
  }
  addVar("opcoll", "busy_collectors", 8);
  addVar("opcoll", "bank_conflicts", 16);
  addVar("opcoll", "rf_reads", 16);
  addVar("opcoll", "rf_writes", 16);
  addVar("exec", "completed", 16);
  addVar("exec", "wb_refused", 16);
  prev_.assign(vars_.size(), 0);
  header();
}

SmTrace::~SmTrace() {
  try {
    close();
  } catch (...) {
  }
}

uint32_t SmTrace::addVar(const std::string& scope, const std::string& name, uint32_t width, bool is_signed) {
  vars_.push_back({scope, name, idCode(uint32_t(vars_.size())), width, is_signed});
  return uint32_t(vars_.size() - 1);
}

void SmTrace::header() {
  std::string h = "$date rfsim SM pipeline trace $end\n$version rfsim 0.1.0 $end\n";
  h += fmt::format("$comment SM 0, trace cycles {} to {}; 1 ns = 1 SM cycle $end\n", first_, last_);
  h += "$timescale 1ns $end\n";
  h += fmt::format("$scope module {} $end\n$scope module {} $end\n", kGpu, kTop);
  std::string scope;
  for (const Var& v : vars_) {
    if (v.scope != scope) {
      if (!scope.empty()) h += "$upscope $end\n";
      h += fmt::format("$scope module {} $end\n", v.scope);
      scope = v.scope;
    }
    // Signed values are wires too (two's complement, shown signed by the
    // .gtkw): GTKWave names an `integer` var without its [31:0] range, so a
    // save file naming s0_warp[31:0] would not find it.
    h += fmt::format("$var wire {} {} {} [{}:0] $end\n", v.width, v.id, v.name, v.width - 1);
  }
  h += "$upscope $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n";
  std::fputs(h.c_str(), f_);
}

void SmTrace::put(std::string& out, uint32_t var, uint64_t value) {
  const Var& v = vars_[var];
  value &= v.width >= 64 ? ~0ull : ((1ull << v.width) - 1);
  out += 'b';
  if (value == 0) {
    out += '0';
  } else {
    int top = 63 - __builtin_clzll(value);
    for (int b = top; b >= 0; --b) out += char('0' + ((value >> b) & 1));
  }
  out += ' ';
  out += v.id;
  out += '\n';
}

void SmTrace::record(const Sample& s) {
  const uint64_t t = cycle_++;
  if (!f_) return;
  ++recorded_;
  uint64_t vals[256];
  size_t n = 0;
  vals[n++] = s.ibuf_fills;
  vals[n++] = s.l1i_misses;
  for (uint32_t i = 0; i < nsched_; ++i) {
    const Sched& c = i < s.sched.size() ? s.sched[i] : Sched{};
    vals[n++] = uint64_t(int64_t(c.warp));
    vals[n++] = c.pc;
    vals[n++] = c.op;
    vals[n++] = c.unit;
    vals[n++] = c.stall;
    if (c.warp >= 0) ++issues_;
  }
  vals[n++] = s.busy_collectors;
  vals[n++] = s.bank_conflicts;
  vals[n++] = s.rf_reads;
  vals[n++] = s.rf_writes;
  vals[n++] = s.completed;
  vals[n++] = s.wb_refused;
  buf_.clear();
  if (!any_) {
    buf_ += fmt::format("#{}\n$dumpvars\n", t);
    for (size_t i = 0; i < n; ++i) put(buf_, uint32_t(i), prev_[i] = vals[i]);
    buf_ += "$end\n";
    any_ = true;
  } else {
    bool stamped = false;
    for (size_t i = 0; i < n; ++i) {
      if (vals[i] == prev_[i]) continue;
      if (!stamped) buf_ += fmt::format("#{}\n", t);
      stamped = true;
      put(buf_, uint32_t(i), prev_[i] = vals[i]);
    }
  }
  last_time_ = t;
  if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), f_);
}

std::filesystem::path SmTrace::gtkwPath() const {
  std::filesystem::path p = vcd_;
  return p.replace_extension(".gtkw");
}

GtkwView SmTrace::view() const {
  using F = GtkwSignal::Format;
  GtkwView v;
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(vcd_, ec);
  v.dumpfile = (ec ? vcd_ : abs).string();
  v.start_time = first_;
  // gtkwave draws 2^-zoom time units per 200 pixels: -3 is 8 cycles per 200 px.
  v.zoom = -3;
  const std::string top = std::string(kGpu) + "." + kTop + ".";
  v.open_scopes = {std::string(kGpu) + ".", top};
  for (const char* s : {"fetch", "issue", "opcoll", "exec"}) v.open_scopes.push_back(top + s + ".");
  const char* names[] = {"fetch (I-buffer fills, L1I misses)",
                         "issue (per scheduler: warp -1 = none, pc, op, unit, stall)",
                         "operand collector (busy, bank conflicts, RF reads/writes)",
                         "execute / writeback (completed, refused writebacks)"};
  const char* scopes[] = {"fetch", "issue", "opcoll", "exec"};
  for (int g = 0; g < 4; ++g) {
    GtkwGroup grp{names[g], {}};
    for (const Var& var : vars_)
      if (var.scope == scopes[g])
        grp.signals.push_back({fmt::format("{}{}.{}[{}:0]", top, var.scope, var.name, var.width - 1),
                               var.is_signed ? F::SignedDec : F::Dec});
    v.groups.push_back(std::move(grp));
  }
  return v;
}

void SmTrace::close() {
  if (closed_) return;
  closed_ = true;
  if (f_) {
    // One more time stamp so the last recorded cycle has a width.
    if (any_) std::fprintf(f_, "#%llu\n", static_cast<unsigned long long>(last_time_ + 1));
    std::fclose(f_);
    f_ = nullptr;
  }
  const std::string g = gtkwSaveFile(view());
  std::FILE* gf = std::fopen(gtkwPath().string().c_str(), "w");
  if (!gf) throw Error(fmt::format("cannot write {}", gtkwPath().string()));
  std::fwrite(g.data(), 1, g.size(), gf);
  std::fclose(gf);
}

void SmTrace::parseWindow(const std::string& spec, uint64_t& first, uint64_t& last) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) throw Error(fmt::format("--trace-window '{}': expected FIRST:LAST", spec));
  auto num = [&](const std::string& s, uint64_t dflt) -> uint64_t {
    if (s.empty()) return dflt;
    size_t pos = 0;
    uint64_t v = 0;
    try {
      v = std::stoull(s, &pos);
    } catch (...) {
      pos = 0;
    }
    if (pos != s.size() || s[0] == '-') throw Error(fmt::format("--trace-window '{}': '{}' is not a cycle", spec, s));
    return v;
  };
  first = num(spec.substr(0, colon), 0);
  last = num(spec.substr(colon + 1), UINT64_MAX);
}

// Sm's side of the trace (sm.h): the counters a traced cycle reports as
// differences (before / after the tick).
void Sm::traceCounters(uint64_t v[7]) const {
  const OperandCollectorStats& o = opc_->stats();
  uint64_t r = 0, w = 0;
  for (size_t b = 0; b < cfg_.regfile.num_banks && b < kMaxBanks; ++b) {
    r += o.bank_reads[b];
    w += o.bank_writes[b];
  }
  v[0] = fetch_.fills();
  v[1] = stats_->l1i_misses.get();
  v[2] = o.bank_conflicts;
  v[3] = r;
  v[4] = w;
  v[5] = wb_.retired();
  v[6] = stats_->writeback_retries.get();
}

void Sm::traceBegin() { traceCounters(trace_snap_); }

void Sm::traceEnd() {
  uint64_t now_vals[7];
  traceCounters(now_vals);
  SmTrace::Sample& s = trace_sample_;
  s.ibuf_fills = static_cast<uint32_t>(now_vals[0] - trace_snap_[0]);
  s.l1i_misses = static_cast<uint32_t>(now_vals[1] - trace_snap_[1]);
  s.bank_conflicts = static_cast<uint32_t>(now_vals[2] - trace_snap_[2]);
  s.rf_reads = static_cast<uint32_t>(now_vals[3] - trace_snap_[3]);
  s.rf_writes = static_cast<uint32_t>(now_vals[4] - trace_snap_[4]);
  s.completed = static_cast<uint32_t>(now_vals[5] - trace_snap_[5]);
  s.wb_refused = static_cast<uint32_t>(now_vals[6] - trace_snap_[6]);
  s.busy_collectors = opc_->busyCollectors();
  trace_->record(s);
  // A scheduler that did not get to issue() this cycle shows no issue.
  for (auto& ts : s.sched) ts.warp = -1;
}

}  // namespace rfsim::sm
