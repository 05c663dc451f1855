// The execution-unit classes of an SM, shared by every part of the timing
// model that sorts instructions by unit (issue, operand collector, dispatch).
#pragma once

#include <cstdint>

namespace rfsim::sm {

enum class UnitType : uint8_t { SP, INT, SFU, DP, LDST, Count_ };
inline constexpr unsigned kNumUnitTypes = static_cast<unsigned>(UnitType::Count_);

inline const char* unitName(UnitType u) {
  switch (u) {
    case UnitType::SP: return "sp";
    case UnitType::INT: return "int";
    case UnitType::SFU: return "sfu";
    case UnitType::DP: return "dp";
    case UnitType::LDST: return "ldst";
    default: return "?";
  }
}

}  // namespace rfsim::sm
