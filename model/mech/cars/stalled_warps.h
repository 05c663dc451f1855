// CARS' stalled-warp list and warp status check (CARS section IV-B2; cost in
// IV-C): the C++ reference, the Verilated rtl/cars_stalled_warps.sv, the two
// in lockstep, and StalledWarpList, the register allocation's view of it.
//
// The fields mirror the ports of rtl/cars_stalled_warps.sv one to one. One
// evaluate() + tick() is one clock of the unit and carries one operation:
// the list is clocked once per operation it applies (a push, a removal or a
// release), and an SM cycle that deactivates or releases several warps (a
// block arriving, several warps exiting) applies them one after another.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rfsim::cars {

struct StalledInputs {
  bool push = false;
  uint32_t push_warp = 0;
  bool rm = false;
  uint32_t rm_warp = 0;
  bool check = false;  // the warp status check asks for a release
  uint64_t elig = 0;   // the warps it may release
  bool fit = false;    // the selected warp's registers fit
  uint32_t dbg_idx = 0;
};

struct StalledOutputs {
  bool sel_valid = false;
  uint32_t sel_warp = 0;
  bool release = false;
  uint32_t count = 0;
  bool error = false;
  uint32_t dbg_entry = 0;
  bool operator==(const StalledOutputs& o) const {
    return sel_valid == o.sel_valid && sel_warp == o.sel_warp && release == o.release && count == o.count &&
           error == o.error && dbg_entry == o.dbg_entry;
  }
};
std::string describe(const StalledOutputs& o);

class StalledUnit {
 public:
  virtual ~StalledUnit() = default;
  virtual uint32_t numWarps() const = 0;
  virtual void evaluate(const StalledInputs& in, StalledOutputs& out) = 0;
  virtual void tick() = 0;
  virtual void reset() = 0;
};

// The reference: the same age-ordered array of entries as the RTL,
// including what lies past the count (the debug port can read it).
class StalledRef final : public StalledUnit {
 public:
  explicit StalledRef(uint32_t num_warps);
  uint32_t numWarps() const override { return n_; }
  void evaluate(const StalledInputs& in, StalledOutputs& out) override;
  void tick() override;
  void reset() override;

 private:
  uint32_t n_;
  std::vector<uint32_t> entry_;
  uint32_t count_ = 0;
  StalledInputs in_{};
  StalledOutputs out_{};
  uint32_t sel_idx_ = 0, rm_idx_ = 0;
};

// The Verilated RTL (built for RFSIM_CARS_NUM_WARPS warps).
class StalledRtl final : public StalledUnit {
 public:
  static uint32_t builtWarps();
  explicit StalledRtl(uint32_t num_warps);
  ~StalledRtl() override;
  uint32_t numWarps() const override { return n_; }
  void evaluate(const StalledInputs& in, StalledOutputs& out) override;
  void tick() override;
  void reset() override;
  // A VCD of the unit; each evaluation and clock edge is dumped at the time
  // setTime() gave (picoseconds, increasing) when `dump` was set.
  void traceTo(const std::filesystem::path& vcd);
  void setTime(uint64_t eval_ps, uint64_t edge_ps, bool dump) { eval_ps_ = eval_ps, edge_ps_ = edge_ps, dump_ = dump; }
  bool tracing() const;
  void closeTrace();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint32_t n_;
  uint64_t eval_ps_ = 0, edge_ps_ = 0;
  bool dump_ = false;
  bool idle_pending_ = false;  // as RenameRtl: the idle inputs after an untraced edge not yet evaluated
};

// The register allocation's list (cars_regions.h): each operation is one
// clock of the unit -- the reference alone, or the reference and the RTL in
// lockstep, every output compared (a difference throws CosimMismatch). The
// list's contents are mirrored here, oldest first, for the allocator's
// questions (which stalled warps could run) and the deadlock report.
class StalledWarpList {
 public:
  StalledWarpList(uint32_t num_warps, bool rtl);
  ~StalledWarpList();
  void push(uint32_t warp);
  void remove(uint32_t warp);
  // The warp status check: the oldest listed warp with its bit in `elig`,
  // released (removed) when fits(warp) says its registers fit; nullopt when
  // no listed warp is eligible or the oldest eligible does not fit.
  std::optional<uint32_t> release(uint64_t elig, const std::function<bool(uint32_t)>& fits);
  const std::deque<uint32_t>& entries() const { return list_; }
  bool empty() const { return list_.empty(); }
  size_t size() const { return list_.size(); }

  // The SM cycle, for the waveform's time stamps.
  void setClock(std::function<uint64_t()> now) { now_ = std::move(now); }
  // Writes the RTL's waveform (and a GTKWave view) for SM cycles [first, last].
  void traceTo(const std::filesystem::path& vcd, const std::filesystem::path& gtkw, uint64_t first, uint64_t last);
  void closeTrace();

  uint64_t clocks() const { return clocks_; }
  uint64_t comparisons() const { return comparisons_; }
  bool rtl() const { return rtl_ != nullptr; }

 private:
  void checkWarp(uint32_t warp) const;
  StalledOutputs step(const StalledInputs& in, const char* what);
  StalledOutputs eval(StalledInputs in);
  void tick();
  StalledRef ref_;
  std::unique_ptr<StalledRtl> rtl_;
  std::deque<uint32_t> list_;
  std::function<uint64_t()> now_;
  uint64_t clocks_ = 0, comparisons_ = 0;
  uint64_t trace_first_ = 0, trace_last_ = 0, last_cycle_ = UINT64_MAX;
  uint32_t in_cycle_ = 0;  // operations already applied in the current SM cycle
};

}  // namespace rfsim::cars
