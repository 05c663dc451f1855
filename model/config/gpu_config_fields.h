// Field descriptors the configuration structs hand to a visitor (gpu_config.h
// explains the visitor protocol). Separate so that a section declared in its
// own header (energy_config.h, a mechanism's section) needs only this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace rfsim::config {

// Field descriptors handed to a visitor. `lo`/`hi` are inclusive bounds.
struct IntRange {
  int64_t lo;
  int64_t hi;
};
struct RealRange {
  double lo;
  double hi;
};
using Choices = std::vector<std::string>;

// A key with a fixed set of values is an enum whose enumerators are 0..n-1,
// declared together with its names, in the same order and in the enum's own
// namespace (argument-dependent lookup finds them):
//   enum class Dependency : uint8_t { Scoreboard, Barriers };
//   inline const Choices& choiceNames(Dependency) {
//     static const Choices names{"scoreboard", "barriers"};
//     return names;
//   }
// The configuration reads, writes and documents the key by these names; the
// code compares enum values.
template <class E> const std::string& choiceName(E value) {
  static_assert(std::is_enum_v<E>, "a choice is an enum");
  return choiceNames(value).at(static_cast<size_t>(value));
}

// The enum field of a choice key as the visitors see it: its names and the
// index of its value. Converts implicitly from the field, so that visit()
// passes the field itself.
class ChoiceRef {
 public:
  template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  ChoiceRef(E& field)  // NOLINT(google-explicit-constructor)
      : field_(&field),
        names_(&choiceNames(field)),
        get_([](const void* f) { return static_cast<size_t>(*static_cast<const E*>(f)); }),
        set_([](void* f, size_t i) { *static_cast<E*>(f) = static_cast<E>(i); }) {}

  const Choices& names() const { return *names_; }
  const std::string& name() const { return names_->at(get_(field_)); }
  // Sets the field to the value named `name`; false when no value has it.
  bool set(const std::string& name) {
    for (size_t i = 0; i < names_->size(); ++i) {
      if ((*names_)[i] == name) {
        set_(field_, i);
        return true;
      }
    }
    return false;
  }

 private:
  void* field_;
  const Choices* names_;
  size_t (*get_)(const void*);
  void (*set_)(void*, size_t);
};

// A visitor V provides:
//   v.integer(key, uint32_t& / uint64_t& / int& ref, IntRange, unit, desc)
//   v.integers(key, std::vector<uint32_t>& ref, IntRange, unit, desc)
//                                          -- a list of integers, each in the range
//   v.real(key, double& ref, RealRange, unit, desc)
//   v.boolean(key, bool& ref, desc)
//   v.text(key, std::string& ref, desc)
//   v.choice(key, ChoiceRef ref, desc)     -- ref: an enum field (above)
//   v.section(key, Struct& sub, desc)      -- recurses into sub.visit(v)

}  // namespace rfsim::config
