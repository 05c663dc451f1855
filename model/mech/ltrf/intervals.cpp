// LTRF's register-interval formation (intervals.h): Algorithm 1 with block
// cutting, calls as intervals of their own, then Algorithm 2 repeated, every
// check against the whole interval's register set (docs/ltrf.md).
#include "mech/ltrf/intervals.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "ptx/machine.h"

namespace rfsim::mech::ltrf {

// ---------------------------------------------------------------------------
// RegSet

uint32_t RegSet::count() const {
  uint32_t n = 0;
  for (uint64_t w : w_) n += uint32_t(__builtin_popcountll(w));
  return n;
}

RegSet& RegSet::operator|=(const RegSet& o) {
  if (o.w_.size() > w_.size()) w_.resize(o.w_.size(), 0);
  for (size_t i = 0; i < o.w_.size(); ++i) w_[i] |= o.w_[i];
  return *this;
}

uint32_t RegSet::unionCount(const RegSet& a, const RegSet& b) {
  const size_t n = std::max(a.w_.size(), b.w_.size());
  uint32_t c = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = (i < a.w_.size() ? a.w_[i] : 0) | (i < b.w_.size() ? b.w_[i] : 0);
    c += uint32_t(__builtin_popcountll(x));
  }
  return c;
}

std::vector<uint32_t> RegSet::members() const {
  std::vector<uint32_t> m;
  for (size_t i = 0; i < w_.size(); ++i)
    for (int b = 0; b < 64; ++b)
      if ((w_[i] >> b) & 1) m.push_back(uint32_t(i * 64 + b));
  return m;
}

// ---------------------------------------------------------------------------

RegSet namedRegs(const ptx::Function& fn, const ptx::Instr& in, bool machine) {
  RegSet s;
  auto add = [&](uint32_t r, uint8_t mbits) {
    if (r == ptx::kNoReg) return;
    if (machine) {
      if (!ptx::mach::isGpr(r) || r == ptx::mach::kRZ) return;
      s.set(r);
      if (mbits == 64 && r + 1 < ptx::mach::kRZ) s.set(r + 1);
    } else if (r < fn.regs.size() && fn.regs[r].type != ptx::Type::Pred) {
      s.set(r);
    }
  };
  auto operand = [&](const ptx::Operand& o) {
    switch (o.kind) {
      case ptx::OperandKind::Reg:
      case ptx::OperandKind::Addr: add(o.regs[0], o.mbits); break;
      case ptx::OperandKind::Vec:
        for (int k = 0; k < o.vec_n; ++k) add(o.regs[k], o.mbits);
        break;
      default: break;
    }
  };
  for (int d = 0; d < in.ndst; ++d) operand(in.dst[d]);
  for (int k = 0; k < in.nsrc; ++k) operand(in.src[k]);
  if (machine && in.op == ptx::Op::Call && in.call < fn.calls.size()) {
    const ptx::CallInfo& c = fn.calls[in.call];
    if (c.indirect && c.target_reg != ptx::kNoReg) add(c.target_reg, 64);  // a code address: a pair
    for (uint32_t r : fn.calls[in.call].machine_uses) add(r, 32);
    for (uint32_t r : fn.calls[in.call].machine_defs) add(r, 32);
  }
  return s;
}

namespace {

constexpr uint32_t kUnknown = 0xffffffffu;

class Former {
 public:
  Former(const ptx::Function& fn, uint32_t n, bool machine, bool strands)
      : fn_(fn), strands_(strands), machine_(machine) {
    out_.n = n;
  }

  Intervals run() {
    if (out_.n == 0) throw Error(fmt::format("{}: ltrf: registers per interval must be at least 1", fn_.name));
    initSegments();
    pass1();
    out_.pass1_intervals = uint32_t(out_.intervals.size());
    while (!strands_ && pass2()) ++out_.pass2_rounds;  // strands are not merged
    return std::move(out_);
  }

 private:
  // Segments start as the blocks, with every call cut out into a segment of its own.
  void initSegments() {
    for (uint32_t b = 0; b < fn_.blocks.size(); ++b) {
      out_.segments.push_back({b, 0, uint32_t(fn_.blocks[b].instrs.size())});
    }
    out_.seg_succs.assign(out_.segments.size(), {});
    out_.seg_preds.assign(out_.segments.size(), {});
    for (uint32_t b = 0; b < fn_.blocks.size(); ++b)
      for (uint32_t s : fn_.blocks[b].succs) {
        out_.seg_succs[b].push_back(s);
        out_.seg_preds[s].push_back(b);
      }
    is_call_.assign(out_.segments.size(), false);
    for (uint32_t b = 0; b < fn_.blocks.size(); ++b) {
      uint32_t seg = b;
      for (uint32_t k = 0; k < fn_.blocks[b].instrs.size(); ++k) {
        if (fn_.blocks[b].instrs[k].op != ptx::Op::Call) continue;
        if (k > out_.segments[seg].begin) seg = cut(seg, k);
        is_call_[seg] = true;
        if (k + 1 < out_.segments[seg].end) seg = cut(seg, k + 1);
      }
    }
    out_.interval_of.assign(out_.segments.size(), kUnknown);
  }

  // Splits segment s before instruction k of its block: s keeps [begin, k),
  // a new segment gets [k, end) and s's successors. Returns the new one.
  uint32_t cut(uint32_t s, uint32_t k) {
    const uint32_t t = uint32_t(out_.segments.size());
    Segment tail = out_.segments[s];
    tail.begin = k;
    out_.segments[s].end = k;
    out_.segments.push_back(tail);
    out_.seg_succs.push_back(out_.seg_succs[s]);
    out_.seg_preds.push_back({s});
    for (uint32_t x : out_.seg_succs[s])
      for (uint32_t& p : out_.seg_preds[x])
        if (p == s) p = t;
    out_.seg_succs[s] = {t};
    is_call_.push_back(false);  // a call segment is one instruction: never the tail of a cut
    if (out_.interval_of.size() < out_.segments.size()) out_.interval_of.resize(out_.segments.size(), kUnknown);
    return t;
  }

  uint32_t newInterval(uint32_t seg) {
    out_.interval_of[seg] = uint32_t(out_.intervals.size());
    Interval iv;
    iv.segments = {seg};
    iv.call = is_call_[seg];
    out_.intervals.push_back(iv);
    return out_.interval_of[seg];
  }

  // Algorithm 1's TRAVERSE: adds segment s's registers to its interval,
  // cutting s before the instruction that would take the set past N.
  void traverse(uint32_t s, std::vector<uint32_t>& work) {
    const uint32_t i = out_.interval_of[s];
    const Segment seg = out_.segments[s];
    const auto& instrs = fn_.blocks[seg.block].instrs;
    for (uint32_t k = seg.begin; k < seg.end; ++k) {
      RegSet r = namedRegs(fn_, instrs[k], machine_);
      const bool waits = strands_ && readsPending(instrs[k], i);
      if (!waits && RegSet::unionCount(out_.intervals[i].regs, r) <= out_.n) {
        out_.intervals[i].regs |= r;
        if (strands_ && longLatency(instrs[k])) addPending(instrs[k], i);
        continue;
      }
      if (r.count() > out_.n)
        throw Error(fmt::format("ltrf: function {}, PTX line {}: one instruction names {} registers, more than the "
                                "{} of a register-interval",
                                fn_.name, instrs[k].loc.line, r.count(), out_.n));
      if (k == seg.begin) {
        // Nothing of s fits: it leaves the interval and starts its own.
        auto& segs = out_.intervals[i].segments;
        segs.erase(std::remove(segs.begin(), segs.end(), s), segs.end());
        newInterval(s);
        work.push_back(s);
        return;
      }
      const uint32_t t = cut(s, k);
      newInterval(t);
      work.push_back(t);
      return;
    }
  }

  // Strands (Gebhart et al. 2011b, LTRF's Fig. 19 baseline): a strand also
  // ends before an instruction that reads the result of a long-latency load
  // (global or local) issued in it.
  static bool longLatency(const ptx::Instr& in) {
    return (in.op == ptx::Op::Ld || in.op == ptx::Op::Ldu) &&
           (in.space == ptx::Space::Global || in.space == ptx::Space::Local || in.space == ptx::Space::Generic ||
            in.space == ptx::Space::None);
  }
  void addPending(const ptx::Instr& in, uint32_t i) {
    if (pending_.size() <= i) pending_.resize(i + 1);
    for (int d = 0; d < in.ndst; ++d) {
      ptx::Instr only;
      only.ndst = 1;
      only.dst[0] = in.dst[d];
      pending_[i] |= namedRegs(fn_, only, machine_);
    }
  }
  bool readsPending(const ptx::Instr& in, uint32_t i) const {
    if (i >= pending_.size()) return false;
    ptx::Instr srcs = in;
    srcs.ndst = 0;
    const RegSet r = namedRegs(fn_, srcs, machine_);
    return RegSet::unionCount(pending_[i], r) < pending_[i].count() + r.count();
  }

  bool predsIn(uint32_t h, uint32_t i) const {
    const auto& p = out_.seg_preds[h];
    if (p.empty()) return false;
    for (uint32_t x : p)
      if (out_.interval_of[x] != i) return false;
    return true;
  }

  void pass1() {
    std::vector<uint32_t> work;
    if (out_.segments.empty()) return;
    newInterval(0);
    work.push_back(0);
    for (;;) {
      while (!work.empty()) {
        const uint32_t s = work.back();
        work.pop_back();
        traverse(s, work);
        const uint32_t i = out_.interval_of[s];
        if (i == kUnknown) continue;
        bool grew = true;
        while (grew && !out_.intervals[i].call) {
          grew = false;
          for (uint32_t h = 0; h < out_.segments.size(); ++h) {
            if (out_.interval_of[h] != kUnknown || is_call_[h] || !predsIn(h, i)) continue;
            out_.interval_of[h] = i;
            out_.intervals[i].segments.push_back(h);
            traverse(h, work);
            grew = true;
          }
        }
        for (uint32_t m : std::vector<uint32_t>(out_.intervals[i].segments))
          for (uint32_t x : out_.seg_succs[m])
            if (out_.interval_of[x] == kUnknown) {
              newInterval(x);
              work.push_back(x);
            }
      }
      // Segments no path from the entry reaches get intervals of their own.
      auto it = std::find(out_.interval_of.begin(), out_.interval_of.end(), kUnknown);
      if (it == out_.interval_of.end()) break;
      const uint32_t s = uint32_t(it - out_.interval_of.begin());
      newInterval(s);
      work.push_back(s);
    }
  }

  // Algorithm 2, once: returns whether any interval merged.
  bool pass2() {
    const auto& iv = out_.intervals;
    const uint32_t n = uint32_t(iv.size());
    std::vector<std::vector<uint32_t>> ipreds(n), isuccs(n);
    for (uint32_t s = 0; s < out_.segments.size(); ++s)
      for (uint32_t x : out_.seg_succs[s]) {
        const uint32_t a = out_.interval_of[s], b = out_.interval_of[x];
        // Edges inside an interval, its loop's back edge included, are not
        // edges of the interval graph: a loop's interval joins the enclosing
        // one when everything entering it from outside comes from there
        // (each repetition flattens one level of nesting, section 4.1).
        if (a == b) continue;
        if (std::find(isuccs[a].begin(), isuccs[a].end(), b) == isuccs[a].end()) isuccs[a].push_back(b);
        if (std::find(ipreds[b].begin(), ipreds[b].end(), a) == ipreds[b].end()) ipreds[b].push_back(a);
      }
    std::vector<uint32_t> next(n, kUnknown);
    std::vector<Interval> groups;
    std::vector<uint32_t> work;
    auto group = [&](uint32_t i) {
      next[i] = uint32_t(groups.size());
      groups.push_back(iv[i]);
      work.push_back(i);
    };
    const uint32_t entry = out_.interval_of.empty() ? kUnknown : out_.interval_of[0];
    if (entry == kUnknown) return false;
    group(entry);
    for (;;) {
      while (!work.empty()) {
        const uint32_t i = work.back();
        work.pop_back();
        const uint32_t g = next[i];
        bool grew = true;
        while (grew && !groups[g].call) {
          grew = false;
          for (uint32_t h = 0; h < n; ++h) {
            if (next[h] != kUnknown || iv[h].call || ipreds[h].empty()) continue;
            bool in = true;
            for (uint32_t p : ipreds[h]) in = in && next[p] == g;
            if (!in || RegSet::unionCount(groups[g].regs, iv[h].regs) > out_.n) continue;
            next[h] = g;
            groups[g].regs |= iv[h].regs;
            groups[g].segments.insert(groups[g].segments.end(), iv[h].segments.begin(), iv[h].segments.end());
            grew = true;
          }
        }
        for (uint32_t x = 0; x < n; ++x) {
          if (next[x] != g) continue;
          for (uint32_t sx : isuccs[x])
            if (next[sx] == kUnknown) group(sx);
        }
      }
      auto it = std::find(next.begin(), next.end(), kUnknown);
      if (it == next.end()) break;
      group(uint32_t(it - next.begin()));
    }
    if (groups.size() == n) return false;
    for (uint32_t s = 0; s < out_.segments.size(); ++s) out_.interval_of[s] = next[out_.interval_of[s]];
    out_.intervals = std::move(groups);
    return true;
  }

  const ptx::Function& fn_;
  bool strands_ = false;
  std::vector<RegSet> pending_;  // strands: long-latency results of each interval
  bool machine_;
  Intervals out_;
  std::vector<bool> is_call_;
};

}  // namespace

Intervals formIntervals(const ptx::Function& fn, uint32_t n, bool machine, bool strands) {
  return Former(fn, n, machine, strands).run();
}

}  // namespace rfsim::mech::ltrf
