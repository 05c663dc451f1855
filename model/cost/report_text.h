// Number formats of the cost report, for the text its contributors write.
#pragma once

#include <cstdint>
#include <string>

namespace rfsim::cost {

// 1234567 -> "1 234 567".
std::string grouped(uint64_t v);
// A whole number of bytes grouped, a fractional one as %g.
std::string bytesText(double bytes);
// A rounded area or gate count, grouped.
std::string groupedRound(double v);

}  // namespace rfsim::cost
