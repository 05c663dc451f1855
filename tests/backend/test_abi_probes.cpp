// The calling convention against NVIDIA's: the probes scripts/abi_probe.py
// generates (committed in abi_probes/), compiled by our back end, must spill
// and frame exactly as ptxas -v reported for them (CUDA 13.0, sm_75; the
// figures below are that script's output, docs/abi.md). The two probes where
// ptxas saves 4 bytes in a leaf whose address is taken are a known
// difference, asserted as such so that a change shows.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "backend/backend.h"
#include "ptx/parser.h"

using namespace rfsim;

namespace {

struct Probe {
  const char* file;
  const char* function;
  uint32_t ptxas_spill_stores, ptxas_frame;
  bool matches;  // false: a documented difference
};

const Probe kProbes[] = {
    {"00.ptx", "leaf", 0, 0, true},  {"01.ptx", "leaf", 0, 0, true},   {"02.ptx", "leaf", 0, 0, true},
    {"03.ptx", "mid", 8, 8, true},   {"04.ptx", "mid", 12, 16, true},  {"05.ptx", "mid", 24, 24, true},
    {"06.ptx", "mid", 40, 40, true}, {"07.ptx", "mid", 72, 72, true},  {"08.ptx", "mid", 16, 16, true},
    {"09.ptx", "mid", 8, 8, true},   {"10.ptx", "leaf", 0, 0, true},   {"11.ptx", "leaf", 4, 8, false},
    {"12.ptx", "leaf", 4, 8, false},
};

}  // namespace

TEST_CASE("calling convention: spill stores and frames equal ptxas' on the ABI probes", "[backend][abi]") {
  const auto dir = std::filesystem::path(RFSIM_SOURCE_DIR) / "tests/backend/abi_probes";
  for (const Probe& p : kProbes) {
    INFO(p.file << " " << p.function);
    const backend::CompiledModule cm = backend::compileModule(ptx::parseFile(dir / p.file));
    const backend::FunctionReport* r = cm.find(p.function);
    REQUIRE(r != nullptr);
    if (p.matches) {
      CHECK(r->spill_store_bytes == p.ptxas_spill_stores);
      CHECK(r->spill_load_bytes == p.ptxas_spill_stores);
      CHECK(r->frame_bytes == p.ptxas_frame);
    } else {
      CHECK(r->spill_store_bytes == 0);
      CHECK(r->frame_bytes == 0);
    }
  }
}
