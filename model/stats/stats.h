// Hierarchical statistics, after gem5's statistics::Group and ADD_STAT.
//
// A unit's statistics are members of a struct derived from Group; each member
// registers itself with its group on construction, so the hot path touches a
// plain integer (`++stats.renames`) and the registry only matters when the
// printer walks it at the end of a run:
//
//   struct RenameStats : stats::Group {
//     explicit RenameStats(stats::Group* parent)
//         : Group(parent, "rename", "register rename unit"),
//           ADD_STAT(renames, stats::unit::Count, "operand indices renamed") {}
//     stats::Scalar renames;
//   };
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rfsim::stats {

namespace unit {
inline constexpr const char* Count = "count";
inline constexpr const char* Cycle = "cycle";
inline constexpr const char* Second = "second";
inline constexpr const char* Byte = "byte";
inline constexpr const char* Register = "register";
inline constexpr const char* Ratio = "ratio";
inline constexpr const char* Rate = "per_second";
inline constexpr const char* Nanojoule = "nJ";
inline constexpr const char* Watt = "W";
}  // namespace unit

class Group;

// What every statistic has: a name, a unit and a one-line description.
class Info {
 public:
  Info(Group* parent, std::string name, std::string unit, std::string desc);
  virtual ~Info() = default;
  Info(const Info&) = delete;
  Info& operator=(const Info&) = delete;

  const std::string& name() const { return name_; }
  const std::string& unit() const { return unit_; }
  const std::string& desc() const { return desc_; }
  virtual nlohmann::json value() const = 0;
  virtual void reset() = 0;

 private:
  std::string name_;
  std::string unit_;
  std::string desc_;
};

// A counter. Arithmetic is on a plain uint64_t.
class Scalar final : public Info {
 public:
  using Info::Info;
  Scalar& operator++() { ++v_; return *this; }
  Scalar& operator+=(uint64_t n) { v_ += n; return *this; }
  Scalar& operator=(uint64_t n) { v_ = n; return *this; }
  // Keeps the maximum seen (high-water marks).
  void sampleMax(uint64_t n) { if (n > v_) v_ = n; }
  // A high-water mark or a size of the machine: accumulate(..., kOverTime)
  // keeps the maximum instead of adding (a workload's launches, summed).
  Scalar& maxOverTime() { max_over_time_ = true; return *this; }
  bool isMaxOverTime() const { return max_over_time_; }
  uint64_t get() const { return v_; }
  nlohmann::json value() const override { return v_; }
  void reset() override { v_ = 0; }

 private:
  uint64_t v_ = 0;
  bool max_over_time_ = false;
};

// A fixed-size array of counters (per bank, per warp, per operation kind),
// optionally with a name for each element.
class Vector final : public Info {
 public:
  Vector(Group* parent, std::string name, std::string unit, std::string desc, size_t size,
         std::vector<std::string> subnames = {});
  uint64_t& operator[](size_t i) { return v_[i]; }
  uint64_t operator[](size_t i) const { return v_[i]; }
  size_t size() const { return v_.size(); }
  uint64_t total() const;
  nlohmann::json value() const override;
  void reset() override;

 private:
  std::vector<uint64_t> v_;
  std::vector<std::string> subnames_;
};

// A value computed from other statistics when printed (rates, ratios).
class Formula final : public Info {
 public:
  Formula(Group* parent, std::string name, std::string unit, std::string desc,
          std::function<double()> f)
      : Info(parent, std::move(name), std::move(unit), std::move(desc)), f_(std::move(f)) {}
  double get() const { return f_ ? f_() : 0.0; }
  nlohmann::json value() const override;
  void reset() override {}

 private:
  std::function<double()> f_;
};

// Named real values computed when printed (an energy per structure): a JSON
// object {name: value}, in the order the function gives them.
class FormulaVector final : public Info {
 public:
  using Entries = std::vector<std::pair<std::string, double>>;
  FormulaVector(Group* parent, std::string name, std::string unit, std::string desc, std::function<Entries()> f)
      : Info(parent, std::move(name), std::move(unit), std::move(desc)), f_(std::move(f)) {}
  Entries get() const { return f_ ? f_() : Entries{}; }
  nlohmann::json value() const override;
  void reset() override {}

 private:
  std::function<Entries()> f_;
};

class Group {
 public:
  // A root group has no parent.
  explicit Group(Group* parent, std::string name, std::string desc = "");
  virtual ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  const std::string& name() const { return name_; }
  const std::string& desc() const { return desc_; }
  const std::vector<Info*>& stats() const { return stats_; }
  const std::vector<Group*>& children() const { return children_; }

  // Finds a statistic by dotted path relative to this group ("rename.renames").
  const Info* find(const std::string& path) const;
  void resetAll();

 private:
  friend class Info;
  void addStat(Info* s);

  Group* parent_;
  std::string name_;
  std::string desc_;
  std::vector<Info*> stats_;
  std::vector<Group*> children_;
};

// Adds every counter of `src` into the counter of the same name in `dst`
// (Scalars and Vectors, recursively through child groups; Formulas are
// computed, not added). Totals over units of the same kind, e.g. the SMs of
// a GPU. Throws rfsim::Error when the two trees do not have the same
// statistics in the same order.
//
// kOverUnits adds everything (units side by side: the SMs of a launch);
// kOverTime adds counts but keeps the maximum of the Scalars marked
// maxOverTime() (one unit's successive periods: a workload's launches).
enum class Accumulate { kOverUnits, kOverTime };
void accumulate(Group& dst, const Group& src, Accumulate how = Accumulate::kOverUnits);

// JSON printer. Each statistic becomes {"value", "unit", "desc"}; each group an
// object of its statistics and child groups. A name used twice in one group is
// a programming error and throws.
nlohmann::json toJson(const Group& root);
// The same object without the root's name around it: {"_desc", stats..., children...}.
nlohmann::json groupToJson(const Group& g);
// Flat {"a.b.c": value} map, handy for scripts and golden files.
nlohmann::json toFlatJson(const Group& root);

}  // namespace rfsim::stats

#define ADD_STAT(n, ...) n(this, #n, __VA_ARGS__)
