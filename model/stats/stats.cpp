#include "stats/stats.h"

#include "common/error.h"

#include <cmath>
#include <stdexcept>

namespace rfsim::stats {

Info::Info(Group* parent, std::string name, std::string unit, std::string desc)
    : name_(std::move(name)), unit_(std::move(unit)), desc_(std::move(desc)) {
  if (parent) parent->addStat(this);
}

Vector::Vector(Group* parent, std::string name, std::string unit, std::string desc, size_t size,
               std::vector<std::string> subnames)
    : Info(parent, std::move(name), std::move(unit), std::move(desc)),
      v_(size, 0),
      subnames_(std::move(subnames)) {
  if (!subnames_.empty() && subnames_.size() != size)
    throw std::logic_error("stats::Vector " + this->name() + ": subnames do not match its size");
}

uint64_t Vector::total() const {
  uint64_t t = 0;
  for (auto x : v_) t += x;
  return t;
}

nlohmann::json Vector::value() const {
  if (subnames_.empty()) return v_;
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < v_.size(); ++i) j[subnames_[i]] = v_[i];
  return j;
}

void Vector::reset() {
  for (auto& x : v_) x = 0;
}

nlohmann::json Formula::value() const {
  double v = get();
  // JSON has no NaN or infinity; an undefined ratio (0/0) prints as null.
  if (!std::isfinite(v)) return nullptr;
  return v;
}

nlohmann::json FormulaVector::value() const {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [name, v] : get()) {
    if (std::isfinite(v))
      o[name] = v;
    else
      o[name] = nullptr;
  }
  return o;
}

Group::Group(Group* parent, std::string name, std::string desc)
    : parent_(parent), name_(std::move(name)), desc_(std::move(desc)) {
  if (parent_) parent_->children_.push_back(this);
}

Group::~Group() {
  if (!parent_) return;
  auto& c = parent_->children_;
  for (auto it = c.begin(); it != c.end(); ++it)
    if (*it == this) {
      c.erase(it);
      break;
    }
}

void Group::addStat(Info* s) { stats_.push_back(s); }

const Info* Group::find(const std::string& path) const {
  auto dot = path.find('.');
  if (dot == std::string::npos) {
    for (auto* s : stats_)
      if (s->name() == path) return s;
    return nullptr;
  }
  std::string head = path.substr(0, dot);
  for (auto* g : children_)
    if (g->name() == head) return g->find(path.substr(dot + 1));
  return nullptr;
}

void Group::resetAll() {
  for (auto* s : stats_) s->reset();
  for (auto* g : children_) g->resetAll();
}

void accumulate(Group& dst, const Group& src, Accumulate how) {
  const auto mismatch = [&](const std::string& what) {
    return Error("stats::accumulate: " + dst.name() + " and " + src.name() + " differ (" + what + ")");
  };
  if (dst.stats().size() != src.stats().size() || dst.children().size() != src.children().size())
    throw mismatch("number of statistics or groups");
  for (size_t i = 0; i < src.stats().size(); ++i) {
    Info* d = dst.stats()[i];
    const Info* s = src.stats()[i];
    if (d->name() != s->name()) throw mismatch(d->name() + " vs " + s->name());
    if (auto* ds = dynamic_cast<Scalar*>(d)) {
      const auto* ss = dynamic_cast<const Scalar*>(s);
      if (!ss) throw mismatch(d->name());
      if (how == Accumulate::kOverTime && ds->isMaxOverTime()) ds->sampleMax(ss->get());
      else *ds += ss->get();
    } else if (auto* dv = dynamic_cast<Vector*>(d)) {
      const auto* sv = dynamic_cast<const Vector*>(s);
      if (!sv || sv->size() != dv->size()) throw mismatch(d->name());
      for (size_t k = 0; k < dv->size(); ++k) (*dv)[k] += (*sv)[k];
    }
  }
  for (size_t i = 0; i < src.children().size(); ++i) accumulate(*dst.children()[i], *src.children()[i], how);
}

namespace {

void put(nlohmann::json& obj, const std::string& key, nlohmann::json v, const std::string& where) {
  if (obj.contains(key)) throw std::logic_error("statistics: '" + key + "' defined twice in " + where);
  obj[key] = std::move(v);
}

nlohmann::json groupJson(const Group& g) {
  nlohmann::json j = nlohmann::json::object();
  if (!g.desc().empty()) j["_desc"] = g.desc();
  for (auto* s : g.stats())
    put(j, s->name(), {{"value", s->value()}, {"unit", s->unit()}, {"desc", s->desc()}}, g.name());
  for (auto* c : g.children()) put(j, c->name(), groupJson(*c), g.name());
  return j;
}

void flatten(const Group& g, const std::string& prefix, nlohmann::json& out) {
  for (auto* s : g.stats()) put(out, prefix + s->name(), s->value(), g.name());
  for (auto* c : g.children()) flatten(*c, prefix + c->name() + ".", out);
}

}  // namespace

nlohmann::json toJson(const Group& root) {
  nlohmann::json j = nlohmann::json::object();
  j[root.name()] = groupJson(root);
  return j;
}

nlohmann::json groupToJson(const Group& g) { return groupJson(g); }

nlohmann::json toFlatJson(const Group& root) {
  nlohmann::json j = nlohmann::json::object();
  flatten(root, root.name() + ".", j);
  return j;
}

}  // namespace rfsim::stats
