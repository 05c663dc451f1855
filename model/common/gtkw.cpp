#include "common/gtkw.h"

#include <fmt/format.h>

namespace rfsim {

namespace {
// Trace flags from gtkwave's analyzer.h.
constexpr unsigned kHex = 0x02, kDec = 0x04, kBin = 0x08, kRightJustify = 0x20, kBlank = 0x200;
constexpr unsigned kSigned = 0x400;
constexpr unsigned kGroupBegin = 0x800000, kGroupEnd = 0x1000000;

unsigned flags(GtkwSignal::Format f) {
  switch (f) {
    case GtkwSignal::Format::Bin: return kBin | kRightJustify;
    case GtkwSignal::Format::Hex: return kHex | kRightJustify;
    case GtkwSignal::Format::Dec: return kDec | kRightJustify;
    case GtkwSignal::Format::SignedDec: return kDec | kSigned | kRightJustify;
  }
  return kDec | kRightJustify;
}
}  // namespace

std::string gtkwSaveFile(const GtkwView& v) {
  std::string s;
  s += "[*] GTKWave save file written by rfsim\n";
  s += fmt::format("[dumpfile] \"{}\"\n", v.dumpfile);
  s += fmt::format("[timestart] {}\n", v.start_time);
  // Tall enough for a few dozen traces without scrolling (1920x1400 screens).
  s += "[size] 1920 1340\n[pos] -1 -1\n";
  s += fmt::format("*{:.6f} {} -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n",
                   double(v.zoom), v.start_time);
  for (const auto& scope : v.open_scopes) s += fmt::format("[treeopen] {}\n", scope);
  // The signal search tree starts folded and narrow so the wave pane gets the
  // width; unfold it (and drag its edge) to add signals.
  s += "[sst_width] 40\n[signals_width] 400\n[sst_expanded] 0\n[sst_vpaned_height] 260\n";
  for (const auto& g : v.groups) {
    s += fmt::format("@{:x}\n-{}\n", kGroupBegin | kBlank, g.name);
    unsigned last = 0;
    for (const auto& sig : g.signals) {
      const unsigned f = flags(sig.format);
      if (f != last) s += fmt::format("@{:x}\n", f);
      last = f;
      s += sig.path + "\n";
    }
    s += fmt::format("@{:x}\n-{}\n", kGroupEnd | kBlank, g.name);
  }
  s += "[pattern_trace] 1\n[pattern_trace] 0\n";
  return s;
}

}  // namespace rfsim
