// The fatbin reader (runtime/fatbin.h) on fatbins nvcc 13 wrote
// (tests/cudart/fixtures, scripts/gen_fatbin_fixtures.sh) and on broken ones.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/error.h"
#include "ptx/parser.h"
#include "runtime/fatbin.h"

using namespace rfsim;
using namespace rfsim::rt;

namespace {

std::vector<uint8_t> fixture(const std::string& name) {
  std::ifstream f(std::string(RFSIM_SOURCE_DIR) + "/tests/cudart/fixtures/" + name, std::ios::binary);
  REQUIRE(f);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Every fatbin of a .nv_fatbin section, one after the other (nvcc puts an
// empty one first).
std::vector<Fatbin> section(const std::vector<uint8_t>& s) {
  std::vector<Fatbin> out;
  for (size_t off = 0; off + 16 <= s.size();) {
    Fatbin fb = parseFatbin(s.data() + off, s.size() - off, "section");
    off += (fb.size + 7) / 8 * 8;
    if (!fb.entries.empty()) out.push_back(std::move(fb));
  }
  return out;
}

std::string onlyPtx(const std::string& name) {
  const auto fbs = section(fixture(name));
  REQUIRE(fbs.size() == 1);
  const FatbinEntry* e = fbs[0].choosePtx();
  REQUIRE(e != nullptr);
  return e->payload;
}

}  // namespace

TEST_CASE("fatbin: plain zstd and LZ4 entries hold the same PTX", "[cudart][fatbin]") {
  const auto plain = section(fixture("plain.fatbin"));
  REQUIRE(plain.size() == 1);
  REQUIRE(plain[0].entries.size() == 1);
  const FatbinEntry& e = plain[0].entries[0];
  CHECK(e.kind == FatbinKind::Ptx);
  CHECK(e.arch == 75);
  CHECK(e.ptx_version == 90);
  CHECK(e.compression == "none");
  const std::string text = e.payload;
  CHECK(text.find(".entry _Z5scalePffi") != std::string::npos);
  CHECK(text.back() != '\0');  // trailing NULs stripped
  CHECK(section(fixture("lz4.fatbin"))[0].entries[0].compression == "lz4");
  CHECK(onlyPtx("lz4.fatbin") == text);
  // zstd, two archs: the newest arch is chosen, and its PTX says so.
  const auto z = section(fixture("zstd.fatbin"));
  REQUIRE(z[0].entries.size() == 2);
  CHECK(z[0].entries[0].compression == "zstd");
  CHECK(z[0].choosePtx()->arch == 80);
  CHECK(z[0].choosePtx()->payload.find(".target sm_80") != std::string::npos);
  // And the front end reads what comes out.
  const ptx::Module m = ptx::parseString(text, "plain.fatbin");
  CHECK(m.functions.size() >= 1);
}

TEST_CASE("fatbin: SASS alone names the -gencode to add", "[cudart][fatbin]") {
  const auto fbs = section(fixture("sass.fatbin"));
  REQUIRE(!fbs.empty());
  for (const Fatbin& fb : fbs) {
    CHECK(fb.choosePtx() == nullptr);
    CHECK(fb.elfArchs() == "sm_75");
  }
  try {
    ptxModules(fbs, "app");
    FAIL("no error");
  } catch (const Error& err) {
    const std::string m = err.what();
    CHECK(m.find("only SASS (sm_75") != std::string::npos);
    CHECK(m.find("-gencode arch=compute_75,code=compute_75") != std::string::npos);
  }
}

TEST_CASE("fatbin: corrupt and truncated fatbins are refused with the byte offset", "[cudart][fatbin]") {
  std::vector<uint8_t> s = fixture("zstd.fatbin");
  const size_t at = 16;  // the fatbin with the entries
  // Wrong magic.
  std::vector<uint8_t> bad = s;
  bad[at] ^= 0xff;
  CHECK_THROWS_WITH(parseFatbin(bad.data() + at, bad.size() - at, "app"), Catch::Contains("not a CUDA fatbin"));
  // Truncated: the header says more than there is.
  CHECK_THROWS_WITH(parseFatbin(s.data() + at, 100, "app"), Catch::Contains("truncated fatbin"));
  // A compressed payload that does not decompress.
  bad = s;
  for (size_t i = at + 16 + 80; i < at + 16 + 80 + 40; ++i) bad[i] ^= 0x5a;
  CHECK_THROWS_WITH(parseFatbin(bad.data() + at, bad.size() - at, "app"), Catch::Contains("fatbin entry 0 at byte 16"));
  // An entry header that runs past the end.
  bad = s;
  const uint64_t huge = 1ull << 40;
  std::memcpy(bad.data() + at + 16 + 8, &huge, 8);
  CHECK_THROWS_WITH(parseFatbin(bad.data() + at, bad.size() - at, "app"), Catch::Contains("truncated entry"));
  // A wrapper with the wrong magic.
  const uint64_t wrapper[3] = {0x1234, 0, 0};
  CHECK_THROWS_WITH(parseFatbinWrapper(wrapper, "app"), Catch::Contains("not a CUDA fatbin wrapper"));
}

TEST_CASE("fatbin: a device link keeps the registered modules and what they call", "[cudart][fatbin]") {
  const std::string main_tu =
      ".version 9.0\n.target sm_75\n.address_size 64\n"
      ".extern .func (.param .b32 func_retval0) _Z5twicei\n(\n.param .b32 p\n)\n;\n"
      ".visible .entry _Z1kPi(\n.param .u64 a\n)\n{\nret;\n}\n";
  const std::string helper_tu =
      ".version 9.0\n.target sm_75\n.address_size 64\n"
      ".visible .func (.param .b32 func_retval0) _Z5twicei(\n.param .b32 p\n)\n{\nret;\n}\n";
  const std::string unused_tu =
      ".version 9.0\n.target sm_75\n.address_size 64\n.visible .global .align 4 .b32 lonely[4];\n";
  const std::string devrt =
      ".version 9.0\n.target sm_75\n.address_size 64\n"
      ".entry __nv_static_52__x_22_cuda_device_runtime_cu_1__Z6memsetv(\n)\n{\nisspacep.global %p1, %rd1;\n}\n"
      ".visible .global .align 4 .b32 cudartErrorTable[4];\n";
  const std::vector<std::string> mods = {main_tu, helper_tu, unused_tu, devrt};
  // The device runtime's kernel and table are registered too, but only the
  // application's code pulls modules in.
  const std::vector<std::string> roots = {"_Z1kPi", "__nv_static_52__x_22_cuda_device_runtime_cu_1__Z6memsetv",
                                          "cudartErrorTable"};
  CHECK(linkedModules(mods, roots) == std::vector<size_t>{0, 1});
  CHECK(isDeviceRuntime(devrt));
  CHECK_FALSE(isDeviceRuntime(main_tu));
  // A module defining a registered variable is kept.
  CHECK(linkedModules(mods, {"_Z1kPi", "lonely"}) == std::vector<size_t>{0, 1, 2});
}

TEST_CASE("fatbin: kernels without parameters and file-scope variables are found as definitions", "[cudart][fatbin]") {
  const std::string hdr = ".version 9.0\n.target sm_75\n.address_size 64\n";
  // nvcc writes a kernel without parameters as `.visible .entry _Z4initv()`.
  const std::string noparams = hdr + ".global .align 4 .b8 data[256];\n.visible .entry _Z4initv()\n{\nret;\n}\n";
  const std::string weak = hdr + ".weak .func _Z1fv()\n{\nret;\n}\n";
  const std::string ret_and_name = hdr + ".visible .func (.param .b32 func_retval0) _Z3twoi(.param .b32 p)\n{\nret;\n}\n";
  const std::string vars = hdr + ".global .align 4 .u32 total;\n.const .align 4 .f32 coef[4] = {1.0, 2.0, 3.0, 4.0};\n";
  const std::string decl_only = hdr + ".extern .func _Z1fv()\n;\n";
  const std::vector<std::string> mods = {noparams, weak, ret_and_name, vars, decl_only};
  CHECK(linkedModules(mods, {"_Z4initv"}) == std::vector<size_t>{0});
  CHECK(linkedModules(mods, {"_Z1fv"}) == std::vector<size_t>{1});
  CHECK(linkedModules(mods, {"_Z3twoi"}) == std::vector<size_t>{2});
  // Variables without .visible (a __device__ variable's form) are roots too.
  CHECK(linkedModules(mods, {"total"}) == std::vector<size_t>{3});
  CHECK(linkedModules(mods, {"coef"}) == std::vector<size_t>{3});
  CHECK(linkedModules(mods, {"data"}) == std::vector<size_t>{0});
  // A declaration defines nothing; a kernel that calls the weak function pulls it in.
  const std::string caller = hdr + ".extern .func _Z1fv()\n;\n.visible .entry _Z1kv()\n{\ncall _Z1fv, ();\nret;\n}\n";
  CHECK(linkedModules({caller, weak, decl_only}, {"_Z1kv"}) == std::vector<size_t>{0, 1});
}

// Every kernel, function and module-scope variable of the project's committed
// PTX (nvcc 13's own output) is found by the device link's definition reader
// as the PTX parser sees it.
TEST_CASE("fatbin: the device link finds every definition of the committed PTX", "[cudart][fatbin]") {
  namespace fs = std::filesystem;
  size_t files = 0, defs = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(RFSIM_SOURCE_DIR) / "workloads")) {
    if (e.path().extension() != ".ptx") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const rfsim::ptx::Module m = rfsim::ptx::parseString(text, e.path().string());
    ++files;
    std::vector<std::string> names;
    for (const auto& f : m.functions)
      if (!f.is_extern) names.push_back(f.name);
    for (const auto& sym : m.symbols)
      if (sym.owner < 0 && !sym.is_extern && !sym.is_function &&
          (sym.space == rfsim::ptx::Space::Global || sym.space == rfsim::ptx::Space::Const))
        names.push_back(sym.name);
    for (const std::string& n : names) {
      INFO(e.path().string() << ": " << n);
      CHECK(linkedModules({text}, {n}) == std::vector<size_t>{0});
      ++defs;
    }
  }
  CHECK(files > 100);
  CHECK(defs > files);
}
