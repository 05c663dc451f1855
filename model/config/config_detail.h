// Pieces shared by the reader, the writers and the validator of the
// configuration. Not part of the public API (include config_io.h instead).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "config/gpu_config.h"

namespace rfsim::config::detail {

// Limits of the C++ type behind an integer field, so that a value the range
// would allow but the type cannot hold is still refused (and so that a range
// written wider than its type cannot wrap silently).
struct IntType {
  const char* name;  // "uint32", "uint64", "int32"
  int64_t lo;
  uint64_t hi;
};

template <class T> IntType intTypeOf() {
  static_assert(std::is_integral_v<T> && sizeof(T) <= 8, "integer fields are at most 64 bits wide");
  const char* name = std::is_same_v<T, uint32_t>   ? "uint32"
                     : std::is_same_v<T, uint64_t> ? "uint64"
                     : std::is_same_v<T, int32_t>  ? "int32"
                     : std::is_same_v<T, int64_t>  ? "int64"
                                                   : "integer";
  const auto lo = std::numeric_limits<T>::min();
  const auto hi = std::numeric_limits<T>::max();
  return IntType{name, static_cast<int64_t>(lo), static_cast<uint64_t>(hi)};
}

// Strict parsers for the text of a plain YAML scalar. They return the reason
// a value is refused, or nothing when `out` was set. yaml-cpp's own as<T>()
// is not used: it takes "1.5" for 1 in some versions, wraps "-1" into an
// unsigned and reads y/n/on/off as booleans.
std::optional<std::string> parseInteger(const std::string& text, const IntType& type, IntRange range,
                                        int64_t& out);
std::optional<std::string> parseReal(const std::string& text, RealRange range, double& out);
std::optional<std::string> parseBool(const std::string& text, bool& out);
// Why `text` is not one of `choices`: the valid names and the closest one.
std::string choiceError(const std::string& text, const Choices& choices);

// The candidate closest to `key` by edit distance (insertions, deletions,
// substitutions and transpositions), if one is within `max_distance`.
std::optional<std::string> closestKey(const std::string& key, const std::vector<std::string>& candidates,
                                      int max_distance = 2);

// Round-trip text for the writers: a real always shows it is a real
// ("1132.0", not "1132") and reads back to the same double.
std::string formatReal(double value);
std::string joinChoices(const Choices& choices, std::string_view separator);

// A broken cross-field rule: the two keys concerned and why.
struct Violation {
  std::string key;
  std::string other_key;
  std::string reason;
};
std::optional<Violation> firstViolation(const GpuConfig& cfg);
std::string formatViolation(const std::string& where, const Violation& v);

}  // namespace rfsim::config::detail
