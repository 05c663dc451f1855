#include "cost/report_text.h"

#include <cmath>

#include <fmt/format.h>

namespace rfsim::cost {

std::string grouped(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), " ");
  return s;
}

std::string bytesText(double bytes) {
  return bytes == std::floor(bytes) ? grouped(static_cast<uint64_t>(bytes)) : fmt::format("{:g}", bytes);
}

std::string groupedRound(double v) { return grouped(static_cast<uint64_t>(std::llround(v))); }

}  // namespace rfsim::cost
