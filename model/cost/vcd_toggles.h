// Toggle counts per signal bit from a VCD file, split into time windows
// (the gate-level energy estimate, docs/cost.md). Only the top scope's
// variables are read (the netlist's nets and ports); a bit that goes to or
// comes from x or z is not counted as a toggle.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace rfsim::cost {

struct BitToggles {
  uint64_t rises = 0, falls = 0;
};

struct VcdToggles {
  // Per bit ("net" for a 1-bit variable, "bus[3]" for bit 3 of a vector),
  // one entry per window.
  std::map<std::string, std::vector<BitToggles>> bits;
  uint64_t end_time = 0;  // the last time stamp of the file
};

// Windows [bounds[i], bounds[i + 1]) in the file's time units; a change at
// time t falls in the window that holds t. Changes before bounds[0] or from
// bounds.back() on are not counted. Throws rfsim::Error naming the file and
// line on a malformed file.
VcdToggles countToggles(const std::filesystem::path& vcd, const std::vector<uint64_t>& bounds);

// Copies a VCD keeping only the top scope's variables named in `keep` (and
// their value changes), so that a co-simulation compares the ports alone.
void filterVcd(const std::filesystem::path& in, const std::filesystem::path& out,
               const std::vector<std::string>& keep);

}  // namespace rfsim::cost
