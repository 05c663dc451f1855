// The `mechanisms:` section of the configuration: which register-file
// mechanisms are switched on, and one typed section per mechanism.
//
// The baseline configuration names no mechanism. A mechanism declares its
// section's struct in its own folder (model/mech/<name>/, with the usual
// visit() field list) and registers it here, by name, when the mechanisms
// are registered (mech::registerMechanisms(), called once by every program's
// entry point). A GpuConfig made after that carries one section per
// registered mechanism, read, written, overridden (--set
// mechanisms.<name>.<key>=VALUE) and documented like every other section.
//
// The section structs reach the configuration's visitors through DynVisitor,
// a virtual interface with one method per field kind; DynAdapter<V> forwards
// each call to a concrete visitor V (the YAML reader, the writers, ...).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config/gpu_config_fields.h"

namespace rfsim::config {

class ErasedSection;

class DynVisitor {
 public:
  virtual ~DynVisitor() = default;
  virtual void integer(const char* key, uint32_t& ref, IntRange r, const char* unit, const char* desc) = 0;
  virtual void integer(const char* key, uint64_t& ref, IntRange r, const char* unit, const char* desc) = 0;
  virtual void integer(const char* key, int32_t& ref, IntRange r, const char* unit, const char* desc) = 0;
  virtual void integers(const char* key, std::vector<uint32_t>& ref, IntRange r, const char* unit,
                        const char* desc) = 0;
  virtual void real(const char* key, double& ref, RealRange r, const char* unit, const char* desc) = 0;
  virtual void boolean(const char* key, bool& ref, const char* desc) = 0;
  virtual void text(const char* key, std::string& ref, const char* desc) = 0;
  virtual void choice(const char* key, ChoiceRef ref, const char* desc) = 0;
  virtual void section(const char* key, ErasedSection& sub, const char* desc) = 0;
};

// A section whose struct the configuration does not know.
class SectionBase {
 public:
  virtual ~SectionBase() = default;
  virtual void accept(DynVisitor& v) = 0;
  virtual std::unique_ptr<SectionBase> clone() const = 0;
};

template <class S> class SectionOf final : public SectionBase {
 public:
  SectionOf() = default;
  explicit SectionOf(const S& s) : value(s) {}
  void accept(DynVisitor& v) override { value.visit(v); }
  std::unique_ptr<SectionBase> clone() const override { return std::make_unique<SectionOf<S>>(value); }
  S value;
};

template <class V> class DynAdapter final : public DynVisitor {
 public:
  explicit DynAdapter(V& v) : v_(v) {}
  void integer(const char* k, uint32_t& r, IntRange g, const char* u, const char* d) override { v_.integer(k, r, g, u, d); }
  void integer(const char* k, uint64_t& r, IntRange g, const char* u, const char* d) override { v_.integer(k, r, g, u, d); }
  void integer(const char* k, int32_t& r, IntRange g, const char* u, const char* d) override { v_.integer(k, r, g, u, d); }
  void integers(const char* k, std::vector<uint32_t>& r, IntRange g, const char* u, const char* d) override {
    v_.integers(k, r, g, u, d);
  }
  void real(const char* k, double& r, RealRange g, const char* u, const char* d) override { v_.real(k, r, g, u, d); }
  void boolean(const char* k, bool& r, const char* d) override { v_.boolean(k, r, d); }
  void text(const char* k, std::string& r, const char* d) override { v_.text(k, r, d); }
  void choice(const char* k, ChoiceRef r, const char* d) override { v_.choice(k, r, d); }
  void section(const char* k, ErasedSection& s, const char* d) override;

 private:
  V& v_;
};

// A value-semantic holder of one mechanism's section.
class ErasedSection {
 public:
  ErasedSection() = default;
  explicit ErasedSection(std::unique_ptr<SectionBase> p) : p_(std::move(p)) {}
  ErasedSection(const ErasedSection& o) : p_(o.p_ ? o.p_->clone() : nullptr) {}
  ErasedSection& operator=(const ErasedSection& o) {
    if (this != &o) p_ = o.p_ ? o.p_->clone() : nullptr;
    return *this;
  }
  ErasedSection(ErasedSection&&) noexcept = default;
  ErasedSection& operator=(ErasedSection&&) noexcept = default;

  template <class V> void visit(V& v) {
    if (!p_) return;
    DynAdapter<V> a(v);
    p_->accept(a);
  }
  void visit(DynVisitor& v) {
    if (p_) p_->accept(v);
  }
  // The struct behind it; throws std::logic_error when it is another type.
  template <class S> const S& as() const {
    auto* s = dynamic_cast<const SectionOf<S>*>(p_.get());
    if (!s) throw std::logic_error("mechanism section of another type");
    return s->value;
  }
  template <class S> S& as() { return const_cast<S&>(static_cast<const ErasedSection*>(this)->as<S>()); }

 private:
  std::unique_ptr<SectionBase> p_;
};

template <class V> void DynAdapter<V>::section(const char* k, ErasedSection& s, const char* d) { v_.section(k, s, d); }

// A broken rule inside a mechanism's section: keys relative to the section.
struct SectionViolation {
  std::string key, other_key, reason;
};

// What a mechanism registers for its section.
struct SectionType {
  std::string name;  // the mechanism's name, also the section's key
  std::string desc;
  std::function<ErasedSection()> make;  // a section with the defaults
  // Cross-field rules of the section (validate()); may be empty.
  std::function<std::optional<SectionViolation>(const ErasedSection&)> check;
  // Top-level sections of earlier configurations that are now sections
  // below this one ("demo": mechanisms.<name>.demo): a file or --set that
  // still gives one is refused with the new key.
  std::vector<std::string> moved_in;
};

// The section types registered so far, in registration order. Filled once
// at start-up (mech::registerMechanisms) and read-only afterwards: a table of
// types, not simulation state.
const std::vector<SectionType>& mechanismSectionTypes();
// Registers a section type; a second registration of a name is ignored.
void registerMechanismSection(SectionType t);

struct MechanismsConfig {
  // Comma-separated mechanism names (`--mech` overrides it); empty: the baseline.
  std::string enabled;
  std::vector<std::pair<std::string, ErasedSection>> sections;
  std::vector<std::string> section_descs;
  // Dotted keys below a mechanism's section that a file or --set gave (not a
  // field: the reader records them so that a key given for a mechanism that
  // is off can be warned about once the enabled set is final).
  std::vector<std::string> given;

  MechanismsConfig() {
    for (const auto& t : mechanismSectionTypes()) {
      sections.emplace_back(t.name, t.make());
      section_descs.push_back(t.desc);
    }
  }

  template <class V> void visit(V& v) {
    v.text("enabled", enabled,
           "mechanisms switched on, comma-separated (rfsim mechanisms lists them; empty: the baseline); "
           "--mech overrides it");
    for (size_t i = 0; i < sections.size(); ++i)
      v.section(sections[i].first.c_str(), sections[i].second, section_descs[i].c_str());
  }

  // The names in `enabled`, in order, without blanks.
  std::vector<std::string> enabledList() const;
  bool isEnabled(const std::string& name) const;
  // The given keys of mechanisms that are not enabled.
  std::vector<std::string> keysOfDisabled() const;
  // The section of mechanism `name` as its struct S; throws std::logic_error
  // when no such mechanism registered a section.
  template <class S> const S& get(const std::string& name) const {
    for (const auto& [n, s] : sections)
      if (n == name) return s.template as<S>();
    throw std::logic_error("no configuration section registered for mechanism " + name);
  }
  template <class S> S& get(const std::string& name) {
    return const_cast<S&>(static_cast<const MechanismsConfig*>(this)->get<S>(name));
  }
};

}  // namespace rfsim::config
