#include "mech/cars/stalled_warps.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "common/gtkw.h"
#include "common/results_dir.h"
#include "mech/cars/rename_lockstep.h"

namespace rfsim::cars {

std::string describe(const StalledOutputs& o) {
  return fmt::format("sel_valid {} sel_warp {} release {} count {} error {} dbg_entry {}", o.sel_valid, o.sel_warp,
                     o.release, o.count, o.error, o.dbg_entry);
}

StalledRef::StalledRef(uint32_t num_warps) : n_(num_warps), entry_(num_warps, 0) {
  if (num_warps == 0 || num_warps > 64 || (num_warps & (num_warps - 1)))
    throw Error(fmt::format("stalled-warp list: {} warps (a power of two up to 64)", num_warps));
}

void StalledRef::reset() {
  std::fill(entry_.begin(), entry_.end(), 0);
  count_ = 0;
}

// As rtl/cars_stalled_warps.sv, line by line.
void StalledRef::evaluate(const StalledInputs& in, StalledOutputs& out) {
  out = StalledOutputs{};
  bool rm_found = false, push_dup = false;
  sel_idx_ = rm_idx_ = 0;
  for (uint32_t i = 0; i < count_; ++i) {
    if (!out.sel_valid && (in.elig >> entry_[i] & 1u)) {
      out.sel_valid = true;
      sel_idx_ = i;
    }
    if (!rm_found && entry_[i] == in.rm_warp) {
      rm_found = true;
      rm_idx_ = i;
    }
    push_dup |= entry_[i] == in.push_warp;
  }
  out.sel_warp = entry_[sel_idx_];
  const bool release_req = in.check && out.sel_valid && in.fit;
  const bool two_ops = (in.push && in.rm) || (in.push && release_req) || (in.rm && release_req);
  out.error = two_ops || (in.push && (count_ == n_ || push_dup)) || (in.rm && !rm_found);
  out.release = release_req && !out.error;
  out.count = count_;
  out.dbg_entry = entry_[in.dbg_idx % n_];
  in_ = in;
  out_ = out;
}

void StalledRef::tick() {
  if (out_.error) return;
  if (in_.push) {
    entry_[count_ % n_] = in_.push_warp;
    ++count_;
  } else if (out_.release || in_.rm) {
    const uint32_t gap = out_.release ? sel_idx_ : rm_idx_;
    for (uint32_t i = gap; i + 1 < n_; ++i) entry_[i] = entry_[i + 1];
    --count_;
  }
  in_ = StalledInputs{};
  out_ = StalledOutputs{};
}

StalledWarpList::StalledWarpList(uint32_t num_warps, bool rtl) : ref_(num_warps) {
  if (rtl) rtl_ = std::make_unique<StalledRtl>(num_warps);
}

StalledWarpList::~StalledWarpList() = default;

StalledOutputs StalledWarpList::eval(StalledInputs in) {
  // The debug port walks the entries, one per evaluation, so that the
  // lockstep check reads the whole array over time.
  in.dbg_idx = static_cast<uint32_t>(clocks_ % ref_.numWarps());
  StalledOutputs out;
  ref_.evaluate(in, out);
  if (rtl_) {
    if (rtl_->tracing()) {
      const uint64_t cycle = now_ ? now_() : clocks_;
      in_cycle_ = cycle == last_cycle_ ? in_cycle_ + 1 : 0;
      last_cycle_ = cycle;
      // Operations of one SM cycle follow each other within its 1000 ps.
      const uint64_t t = cycle * 1000 + std::min<uint32_t>(in_cycle_, 49) * 20;
      rtl_->setTime(t, t + 10, cycle >= trace_first_ && cycle <= trace_last_);
    }
    StalledOutputs dut;
    rtl_->evaluate(in, dut);
    ++comparisons_;
    if (!(dut == out))
      throw CosimMismatch(fmt::format("stalled-warp list, co-simulation mismatch at clock {}: reference {}; rtl {}",
                                      clocks_, describe(out), describe(dut)));
  }
  return out;
}

void StalledWarpList::tick() {
  ref_.tick();
  if (rtl_) rtl_->tick();
  ++clocks_;
}

StalledOutputs StalledWarpList::step(const StalledInputs& in, const char* what) {
  const StalledOutputs out = eval(in);
  if (out.error)
    throw Error(fmt::format("CARS stalled-warp list: {} refused ({} warps listed)", what, list_.size()));
  tick();
  return out;
}

void StalledWarpList::checkWarp(uint32_t warp) const {
  if (warp >= ref_.numWarps())
    throw Error(fmt::format("CARS stalled-warp list: warp slot {} beyond its {} warps", warp, ref_.numWarps()));
}

void StalledWarpList::push(uint32_t warp) {
  checkWarp(warp);
  StalledInputs in;
  in.push = true;
  in.push_warp = warp;
  step(in, "deactivating a warp");
  list_.push_back(warp);
}

void StalledWarpList::remove(uint32_t warp) {
  checkWarp(warp);
  StalledInputs in;
  in.rm = true;
  in.rm_warp = warp;
  step(in, "removing a warp");
  list_.erase(std::find(list_.begin(), list_.end(), warp));
}

std::optional<uint32_t> StalledWarpList::release(uint64_t elig, const std::function<bool(uint32_t)>& fits) {
  StalledInputs in;
  in.check = true;
  in.elig = elig;
  // The selection is combinational: the allocator answers about it in the
  // same clock, and the unit evaluates again with the answer.
  const StalledOutputs sel = eval(in);
  in.fit = sel.sel_valid && fits(sel.sel_warp);
  const StalledOutputs out = step(in, "the warp status check");
  if (!out.release) return std::nullopt;
  const auto it = std::find(list_.begin(), list_.end(), out.sel_warp);
  if (it == list_.end() || std::any_of(list_.begin(), it, [&](uint32_t w) { return elig >> w & 1u; }))
    throw Error(fmt::format("CARS stalled-warp list: released warp {}, which is not the oldest eligible one",
                            out.sel_warp));
  list_.erase(it);
  return out.sel_warp;
}

void StalledWarpList::traceTo(const std::filesystem::path& vcd, const std::filesystem::path& gtkw, uint64_t first,
                              uint64_t last) {
  if (!rtl_) return;
  rtl_->traceTo(vcd);
  trace_first_ = first;
  trace_last_ = last;
  using F = GtkwSignal::Format;
  const std::string top = "TOP.cars_stalled_warps.";
  const uint32_t n = ref_.numWarps();
  uint32_t ww = 0;
  while ((1u << ww) < n) ++ww;
  auto sig = [&](const std::string& name, uint32_t width, F f) {
    return GtkwSignal{width == 1 ? top + name : fmt::format("{}{}[{}:0]", top, name, width - 1), f};
  };
  GtkwView v;
  v.dumpfile = vcd.string();
  v.start_time = first * 1000;
  // The list changes rarely: the whole window across the wave pane (about
  // 1400 pixels; gtkwave draws 2^-zoom ps per 200 pixels), 60 cycles at least.
  const double ps_per_200px = std::max<double>(60.0, double(last - first + 1)) * 1000.0 / 7.0;
  v.zoom = -static_cast<int>(std::ceil(std::log2(ps_per_200px)));
  v.open_scopes = {"TOP.", "TOP.cars_stalled_warps."};
  v.groups.push_back({"deactivate / remove",
                      {sig("push_i", 1, F::Bin), sig("push_warp_i", ww, F::Dec), sig("rm_i", 1, F::Bin),
                       sig("rm_warp_i", ww, F::Dec)}});
  v.groups.push_back({"warp status check",
                      {sig("check_i", 1, F::Bin), sig("elig_i", n, F::Hex), sig("sel_valid_o", 1, F::Bin),
                       sig("sel_warp_o", ww, F::Dec), sig("fit_i", 1, F::Bin), sig("release_o", 1, F::Bin)}});
  std::vector<GtkwSignal> list{sig("count_q", ww + 1, F::Dec)};
  for (uint32_t i = 0; i < 8 && i < n; ++i) list.push_back(sig(fmt::format("entry_q[{}]", i), ww, F::Dec));
  v.groups.push_back({"the list (entry 0 oldest)", list});
  writeFileAtomic(gtkw, gtkwSaveFile(v));
}

void StalledWarpList::closeTrace() {
  if (rtl_) rtl_->closeTrace();
}

}  // namespace rfsim::cars
