#include "mech/regdem/predictor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "backend/depctl.h"
#include "common/error.h"
#include "ptx/analysis/loops.h"

namespace rfsim::regdem {

namespace {

using Kind = ptx::mach::DepTiming::Kind;

// The natural loop of back edge latch -> header: the header and every block
// that reaches the latch without passing through the header (Fig. 5's
// GetLoop).
std::vector<uint32_t> edgeLoop(const ptx::Function& fn, uint32_t header, uint32_t latch) {
  std::vector<bool> in(fn.blocks.size(), false);
  in[header] = true;
  std::vector<uint32_t> work;
  if (!in[latch]) in[latch] = true, work.push_back(latch);
  while (!work.empty()) {
    const uint32_t b = work.back();
    work.pop_back();
    for (uint32_t p : fn.blocks[b].preds)
      if (!in[p]) in[p] = true, work.push_back(p);
  }
  std::vector<uint32_t> out;
  for (uint32_t b = 0; b < in.size(); ++b)
    if (in[b]) out.push_back(b);
  return out;
}

class Estimator {
 public:
  Estimator(const ptx::Module& m, const PredictorParams& p) : m_(m), p_(p) {}

  StallEstimate run(uint32_t f) {
    if (auto it = done_.find(f); it != done_.end()) return it->second;
    if (f >= m_.functions.size()) throw Error(fmt::format("regdem predictor: no function {}", f));
    active_.push_back(f);
    const ptx::Function& fn = m_.functions[f];
    StallEstimate e;
    e.block_stall.assign(fn.blocks.size(), 0.0);
    struct Entry {
      bool set = false;
      Kind kind = Kind::Other;
      double stall = 0;
    };
    for (size_t b = 0; b < fn.blocks.size(); ++b) {
      std::array<Entry, ptx::mach::kDepBarriers> tracker{};
      double block = 0;
      for (const ptx::Instr& in : fn.blocks[b].instrs) {
        const double raw = std::max<double>(in.stall, 1);
        e.naive += raw;
        const double tp = p_.throughput(in);
        if (!(tp > 0))
          throw Error(fmt::format("regdem predictor: function {}: instruction with throughput {}", fn.name, tp));
        // eq. 2.
        double stall = raw * p_.occupancy * p_.max_throughput / tp;
        // Lines 13-19, before the instruction's own barriers are set (an
        // instruction that waits on a barrier and sets it again waits for
        // the earlier setter).
        for (uint32_t w = 0; w < ptx::mach::kDepBarriers; ++w) {
          if (!(in.wait >> w & 1) || !tracker[w].set) continue;
          const double lat = tracker[w].kind == Kind::Global   ? p_.gl_mem_stall
                             : tracker[w].kind == Kind::Shared ? p_.sh_mem_stall
                                                               : 0.0;
          if (tracker[w].stall < lat) block += lat - tracker[w].stall;
          tracker[w] = Entry{};
        }
        // Lines 7-12.
        const Kind k = (in.rbar || in.wbar) ? p_.kind(in) : Kind::Other;
        if (in.rbar) tracker[in.rbar - 1] = Entry{true, k, 0};
        if (in.wbar) tracker[in.wbar - 1] = Entry{true, k, 0};
        // A call runs its callee (estimated first: section 4's
        // interprocedural order); a recursive one counts its own stall.
        if (in.op == ptx::Op::Call && in.call != ptx::kNoSym && in.call < fn.calls.size() &&
            !fn.calls[in.call].indirect) {
          const uint32_t callee = fn.calls[in.call].callee;
          if (std::find(active_.begin(), active_.end(), callee) == active_.end()) stall += run(callee).stall_count;
        }
        // Lines 20-22.
        for (auto& t : tracker)
          if (t.set) t.stall += stall;
        block += stall;
        // Barriers are cleared before every jump (depctl.h).
        if (backend::isJump(in)) tracker = {};
      }
      e.block_stall[b] = block;
    }
    // Lines 23-28: once per back edge whose loop holds the block.
    const ptx::LoopInfo loops = ptx::findLoops(fn);
    for (const ptx::Loop& l : loops.loops)
      for (uint32_t latch : l.latches) {
        ++e.back_edges;
        for (uint32_t b : edgeLoop(fn, l.header, latch)) e.block_stall[b] *= p_.loop_factor;
      }
    for (double s : e.block_stall) e.stall_count += s;
    active_.pop_back();
    done_[f] = e;
    return e;
  }

 private:
  const ptx::Module& m_;
  const PredictorParams& p_;
  std::map<uint32_t, StallEstimate> done_;
  std::vector<uint32_t> active_;
};

}  // namespace

StallEstimate estimateStalls(const ptx::Module& m, uint32_t fn, const PredictorParams& p) {
  if (!p.throughput || !p.kind) throw Error("regdem predictor: throughput and kind functions are required");
  return Estimator(m, p).run(fn);
}

FTable::FTable(std::vector<std::pair<double, double>> points) : p_(std::move(points)) {
  if (p_.empty()) throw Error("regdem f(occupancy) table: no points");
  for (size_t i = 0; i < p_.size(); ++i) {
    if (!(p_[i].first > 0 && p_[i].first <= 1) || !(p_[i].second > 0))
      throw Error(fmt::format("regdem f(occupancy) table: point {}:{} (the occupancy must lie in (0, 1], the time "
                              "be positive)",
                              p_[i].first, p_[i].second));
    if (i && p_[i].first <= p_[i - 1].first)
      throw Error(fmt::format("regdem f(occupancy) table: occupancy {} after {} (they must ascend)", p_[i].first,
                              p_[i - 1].first));
  }
}

FTable FTable::parse(const std::string& text) {
  std::vector<std::pair<double, double>> pts;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t colon = item.find(':');
    double o = 0, t = 0;
    size_t used_o = 0, used_t = 0;
    bool ok = colon != std::string::npos;
    if (ok) {
      try {
        o = std::stod(item.substr(0, colon), &used_o);
        t = std::stod(item.substr(colon + 1), &used_t);
      } catch (const std::exception&) {
        ok = false;
      }
    }
    const auto trimmed = [](const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; };
    if (!ok || !trimmed(item.substr(0, colon).substr(used_o)) || !trimmed(item.substr(colon + 1).substr(used_t)))
      throw Error(fmt::format("regdem f(occupancy) table: entry '{}' is not occupancy:time", item));
    pts.emplace_back(o, t);
  }
  return FTable(std::move(pts));
}

double FTable::at(double x) const {
  if (p_.empty()) return 1.0;
  if (x <= p_.front().first) return p_.front().second;
  if (x >= p_.back().first) return p_.back().second;
  for (size_t i = 1; i < p_.size(); ++i)
    if (x <= p_[i].first) {
      const auto& [x0, y0] = p_[i - 1];
      const auto& [x1, y1] = p_[i];
      return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    }
  return p_.back().second;
}

}  // namespace rfsim::regdem
