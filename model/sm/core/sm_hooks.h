// The hooks a mechanism installs into an SM, as one bundle (docs/sm.md
// "Extension points", docs/mechanisms.md "Hooks"). A mechanism fills an
// SmHooks with the hooks it needs and hands it over once per SM, in
// Mechanism::attachSm, with Sm::install, before the first block launches.
// The Sm does not own the hooks; they must outlive it.
//
// The rules for a second bundle on the same SM (a second mechanism, in the
// order the mechanisms attach) are these, and only these:
//
//   hook            per SM     a second bundle's
//   allocator  (c)  one        refused (rfsim::Error), unless stacked
//   launch     (e)  one        refused, unless stacked
//   translator (a)  one        refused, unless stacked
//   level      (b)  one        refused, unless stacked
//   physical_rows   one        replaces the first's count (stacked only: it
//                              names the whole file, the first's rows included)
//   activation (h)  one        refused
//   bank_index      one        only before any translator; the last wins
//   stage_delay     summed     each mechanism's extra stages add up
//   issue_latency   summed     likewise
//   gates      (d)  chained    IssueGateChain, in installation order
//   events     (g)  chained    told in installation order
//   observers  (j)  chained    asked in installation order
//
// Stacked: a bundle whose translator places only the general registers
// (registers = kGeneral) installed over one that holds a translator for
// other register classes (a mechanism that computes register indices for
// classes of its own). The general registers go to the later translator,
// every other register to the earlier one (StackedTranslator); a warp is
// allocated by both, the later giving its base (StackedAllocator; a later
// bundle without an allocator keeps the earlier one's); both launch hooks
// hear of every warp, the earlier one's role and start PC winning
// (StackedLaunchHook); the later level replaces the earlier one, which is
// handed back (SmInstalled::level_under) for the reads and writes of the
// earlier mechanism's registers. The earlier mechanism's registers keep the
// rows at the top of the file (Mechanism::classRows).
//
// A hook left null (or 0) installs nothing: the baseline's stays (hooks.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sm/core/hooks.h"
#include "sm/opcoll/bank_map.h"
#include "sm/opcoll/operand_collector.h"
#include "sm/opcoll/regfile_level.h"

namespace rfsim::sm {

struct SmHooks {
  // Which registers `translator` (and `allocator`, `launch`, `level`)
  // place: all of them, or the general registers only, stacked over an
  // earlier bundle's translator when there is one.
  enum class Registers : uint8_t { kAll, kGeneral };

  // One per SM.
  WarpRegAllocator* allocator = nullptr;  // (c) per-warp register allocation
  WarpLaunchHook* launch = nullptr;       // (e) warp roles and start PCs
  RegTranslator* translator = nullptr;    // (a) register index -> register-file row
  Registers registers = Registers::kAll;
  RegFileLevel* level = nullptr;          // (b) a level in front of the main register file
  // The register file's rows holding the functional register values
  // (PhysRegFile; needs `translator` or an earlier one). 0: registers by
  // name in the functional warps.
  uint32_t physical_rows = 0;
  ActivationHook* activation = nullptr;   // (h) the two-level schedulers' activation
  // The bank of an operand from the architectural register or the
  // translated row (OperandCollectorConfig::bank_index).
  std::optional<BankIndex> bank_index;

  // Summed over the bundles: extra pipeline cycles between issue and
  // dispatch for every instruction (a mechanism's added stages in issue and
  // operand collection).
  uint32_t stage_delay = 0;
  // Summed over the bundles: extra pipeline cycles every instruction's
  // result takes, without holding a collector (a mechanism's added stage
  // ahead of the operand collector).
  uint32_t issue_latency = 0;

  // Chained, any number.
  std::vector<IssueGate*> gates;          // (d)
  std::vector<SmEventHook*> events;       // (g)
  std::vector<InstrObserver*> observers;  // (j); the first brings the scalar pipelines
};

// What Sm::install did.
struct SmInstalled {
  bool stacked = false;                  // the translator went over an earlier bundle's
  RegFileLevel* level_under = nullptr;   // stacked: the earlier bundle's level (null: none)
};

// The hooks installed in one SM, as the stages ask them. Baseline objects
// where nothing is installed (allocator), null otherwise (gate, launch,
// activation). Sm::install fills it by the rules above.
struct InstalledHooks {
  BaselineRegAllocator base_alloc;
  WarpRegAllocator* alloc = &base_alloc;
  IssueGate* gate = nullptr;  // one gate, or the chain of several
  WarpLaunchHook* launch = nullptr;
  ActivationHook* activation = nullptr;
  std::vector<SmEventHook*> events;
  std::vector<InstrObserver*> observers;
  uint32_t issue_latency = 0;  // SmHooks::issue_latency, summed

  bool baseAlloc() const { return alloc == &base_alloc; }

  // Stacking and chaining adapters the SM made (owned here).
  std::unique_ptr<IssueGateChain> gate_chain;
  std::vector<std::unique_ptr<RegTranslator>> translators;
  std::vector<std::unique_ptr<WarpRegAllocator>> allocators;
  std::vector<std::unique_ptr<WarpLaunchHook>> launches;
};

}  // namespace rfsim::sm
