#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "config/config_detail.h"

namespace rfsim::config::detail {

namespace {

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Optimal string alignment distance: Levenshtein plus adjacent
// transpositions, so "max_wraps" is one edit from "max_warps".
int editDistance(const std::string& a, const std::string& b) {
  const size_t n = a.size();
  const size_t m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

}  // namespace

std::optional<std::string> parseInteger(const std::string& text, const IntType& type, IntRange range,
                                        int64_t& out) {
  std::string_view s = text;
  const bool negative = !s.empty() && s.front() == '-';
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  // Decimal digits only: "1.5", "1e3", "0x10" and "abc" are all refused
  // rather than truncated or guessed at.
  if (!allDigits(s)) return fmt::format("expected an integer, got '{}'", text);
  // YAML 1.1 reads "010" as octal 8 and YAML 1.2 as decimal 10; refusing it
  // avoids a value that means different things to different tools.
  if (s.size() > 1 && s.front() == '0') return fmt::format("'{}': leading zeros are not allowed", text);

  uint64_t magnitude = 0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), magnitude);
  if (res.ec == std::errc::result_out_of_range)
    return fmt::format("value {} is beyond the limits of a 64-bit integer", text);

  int64_t value = 0;
  if (negative) {
    if (type.lo >= 0 && magnitude != 0)
      return fmt::format("negative value {} for an unsigned field ({})", text, type.name);
    constexpr uint64_t kMinMagnitude = static_cast<uint64_t>(INT64_MAX) + 1;
    if (magnitude > kMinMagnitude) return fmt::format("value {} is beyond the limits of a 64-bit integer", text);
    value = magnitude == kMinMagnitude ? INT64_MIN : -static_cast<int64_t>(magnitude);
    if (value < type.lo) return fmt::format("value {} is below the {} limit {}", value, type.name, type.lo);
  } else {
    if (magnitude > type.hi) return fmt::format("value {} exceeds the {} limit {}", magnitude, type.name, type.hi);
    // IntRange bounds are int64, so nothing above INT64_MAX can be in range.
    if (magnitude > static_cast<uint64_t>(INT64_MAX))
      return fmt::format("value {} out of range [{}, {}]", magnitude, range.lo, range.hi);
    value = static_cast<int64_t>(magnitude);
  }
  if (value < range.lo || value > range.hi)
    return fmt::format("value {} out of range [{}, {}]", value, range.lo, range.hi);
  out = value;
  return std::nullopt;
}

std::optional<std::string> parseReal(const std::string& text, RealRange range, double& out) {
  std::string_view s = text;
  // from_chars takes a leading '-' but not '+', which YAML allows.
  if (s.size() > 1 && s.front() == '+' && s[1] != '-') s.remove_prefix(1);
  double value = 0.0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), value, std::chars_format::general);
  if (res.ec == std::errc::result_out_of_range)
    return fmt::format("value {} is beyond the limits of a double", text);
  if (res.ec != std::errc() || res.ptr != s.data() + s.size() || s.empty())
    return fmt::format("expected a number, got '{}'", text);
  // from_chars also reads "inf" and "nan"; no field has a use for them.
  if (!std::isfinite(value)) return fmt::format("expected a finite number, got '{}'", text);
  if (value < range.lo || value > range.hi)
    return fmt::format("value {} out of range [{}, {}]", text, range.lo, range.hi);
  out = value;
  return std::nullopt;
}

std::optional<std::string> parseBool(const std::string& text, bool& out) {
  // Only the two YAML 1.2 spellings: yaml-cpp would also take y/n/yes/no/on/off,
  // and "n" for a field named trace is a typo more often than an answer.
  if (text == "true") {
    out = true;
    return std::nullopt;
  }
  if (text == "false") {
    out = false;
    return std::nullopt;
  }
  return fmt::format("expected true or false, got '{}'", text);
}

std::string choiceError(const std::string& text, const Choices& choices) {
  std::string reason = fmt::format("'{}' is not one of: {}", text, joinChoices(choices, ", "));
  if (auto near = closestKey(text, choices)) reason += fmt::format("; did you mean '{}'?", *near);
  return reason;
}

std::optional<std::string> closestKey(const std::string& key, const std::vector<std::string>& candidates,
                                      int max_distance) {
  std::optional<std::string> best;
  int best_distance = max_distance + 1;
  for (const auto& c : candidates) {
    const int d = editDistance(key, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string formatReal(double value) {
  // fmt's shortest round-trip form; it drops ".0", which would make 1132.0
  // look like an integer in the written YAML.
  std::string s = fmt::format("{}", value);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string joinChoices(const Choices& choices, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i) out += separator;
    out += choices[i];
  }
  return out;
}

}  // namespace rfsim::config::detail
