// Writes GTKWave save files (.gtkw) that open a waveform on chosen signals,
// grouped and formatted, instead of an empty signal pane.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rfsim {

struct GtkwSignal {
  enum class Format { Bin, Hex, Dec, SignedDec };
  std::string path;  // full hierarchical name as the waveform spells it, with its bit range
  Format format = Format::Dec;
};

struct GtkwGroup {
  std::string name;
  std::vector<GtkwSignal> signals;
};

struct GtkwView {
  std::string dumpfile;       // as gtkwave should find it (relative to where it is started)
  uint64_t start_time = 0;    // in the waveform's time unit
  int zoom = -8;              // gtkwave zoom: log2 of pixels per time unit
  std::vector<std::string> open_scopes;  // expanded in the hierarchy tree
  std::vector<GtkwGroup> groups;
};

std::string gtkwSaveFile(const GtkwView& view);

}  // namespace rfsim
