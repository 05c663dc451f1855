#include <catch2/catch.hpp>

#include "common/gtkw.h"

using namespace rfsim;

TEST_CASE("GTKWave save files name the dump, open groups and format signals", "[common][gtkw]") {
  GtkwView v;
  v.dumpfile = "/tmp/x.vcd";
  v.groups.push_back({"ports", {{"TOP.m.a", GtkwSignal::Format::Bin}, {"TOP.m.b[3:0]", GtkwSignal::Format::Hex}}});
  const std::string s = gtkwSaveFile(v);
  CHECK_THAT(s, Catch::Contains("[dumpfile] \"/tmp/x.vcd\""));
  // Group begin/end flags and per-signal formats as gtkwave's analyzer.h has them.
  CHECK_THAT(s, Catch::Contains("@800200\n-ports\n@28\nTOP.m.a\n@22\nTOP.m.b[3:0]\n@1000200\n-ports\n"));
}
