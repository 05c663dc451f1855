// The register-file hierarchy seen by the operand collector (extension point
// (b)). Every operand read and every write-back goes through a RegFileLevel.
// The baseline level is the banked main register file, which always hits: the
// read then competes for its bank in the collector's arbiter. A mechanism may
// put a register-file cache level in front; on a miss it answers with the cycle its
// fill delivers the value, and the operand skips the banks. A level times
// its own banks (and those of the main register file behind it, with their
// own count and latency) with sm/opcoll/banked_array.h.
#pragma once

#include <cstdint>

namespace rfsim::sm {

struct ReadReply {
  enum class Kind : uint8_t {
    kBank,  // hit: read through the collector's bank arbiter (from this cycle on)
    kAt,    // the level delivers the value itself at cycle `at`; no bank port used
  };
  Kind kind = Kind::kBank;
  uint64_t at = 0;

  static ReadReply hit() { return {}; }
  static ReadReply availableAt(uint64_t cycle) { return {Kind::kAt, cycle}; }
};

class RegFileLevel {
 public:
  virtual ~RegFileLevel() = default;
  // Asked once per (deduplicated) operand when the instruction is allocated a
  // collector; `cycle` is the first cycle the read may be arbitrated in.
  virtual ReadReply read(uint32_t warp, uint32_t reg, uint32_t row, uint64_t cycle) = 0;
  // Told of every write-back the banks accepted, in the cycle it happens.
  virtual void write(uint32_t /*warp*/, uint32_t /*reg*/, uint32_t /*row*/, uint64_t /*cycle*/) {}
  // True when the level holds every written value itself (a register-file
  // cache, or its own model of the main register file): a write-back still books a write port of the
  // collector's bank, but it is counted as the level's
  // (OperandCollectorStats::level_writes), not as a main-register-file bank
  // write (SmStats rf_writes and the energy account's regfile_write line).
  virtual bool takesWrites() const { return false; }
  // Idle-cycle skipping (Sm::nextActiveCycle): the first cycle after `now`
  // at which the level changes by itself (a background fill or write-back
  // finishing that the SM must see); UINT64_MAX: only when read or written.
  // The default, `now`, cannot tell and keeps the SM ticking every cycle.
  virtual uint64_t nextEventCycle(uint64_t now) const { return now; }
};

// Baseline: the banked main register file. Its bank timing is the collector's
// arbiter, so every read is a hit there.
class MainRegFile final : public RegFileLevel {
 public:
  ReadReply read(uint32_t, uint32_t, uint32_t, uint64_t) override { return ReadReply::hit(); }
};

}  // namespace rfsim::sm
