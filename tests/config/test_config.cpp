#include <catch2/catch.hpp>

#include "mech/cars/cars_config.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "config/config_io.h"

#ifndef RFSIM_SOURCE_DIR
#error "RFSIM_SOURCE_DIR must be the repository root as a string literal (the tests' CMake defines it)"
#endif

namespace fs = std::filesystem;
using namespace rfsim::config;
using Catch::Matchers::Contains;

namespace {

fs::path sourceDir() { return fs::path(RFSIM_SOURCE_DIR); }
fs::path namedConfig(const std::string& name) { return sourceDir() / "configs" / (name + ".yaml"); }
// Every configuration in configs/, by name (a new one is covered without a test change).
std::vector<std::string> namedConfigs() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(sourceDir() / "configs"))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A scratch folder for files written by a test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("rfsim_config_test_" + std::to_string(rd()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The message of the rfsim::Error that `f` throws; fails the test if none.
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const rfsim::Error& e) {
    return e.what();
  }
  FAIL("expected an rfsim::Error");
  return "";
}

bool sameConfig(const GpuConfig& a, const GpuConfig& b) { return toJson(a) == toJson(b); }

}  // namespace

TEST_CASE("named configurations load with the values of PRODUCT.md", "[config]") {
  SECTION("v100: CARS baseline") {
    const GpuConfig c = loadConfig(namedConfig("v100"));
    CHECK(c.name == "v100");
    CHECK(c.gpu.num_sms == 80);
    CHECK(c.gpu.clock_mhz == 1132.0);
    CHECK(c.sm.max_warps == 64);
    CHECK(c.sm.max_blocks == 32);
    CHECK(c.sm.max_threads == 2048);
    CHECK(c.sm.num_schedulers == 4);
    CHECK(c.sm.scheduler == SchedulerPolicy::Gto);
    CHECK(c.regfile.size_kb == 256);
    CHECK(c.l1d.size_kb + c.shared.size_kb == 128);  // unified L1D + shared
    CHECK(c.l2.cache.size_kb == 6144);
    CHECK(c.l2.cache.assoc == 24);
    CHECK(c.warpRegisters() == 2048);
  }
  SECTION("titanv: R2D2 Table 1") {
    const GpuConfig c = loadConfig(namedConfig("titanv"));
    CHECK(c.name == "titanv");
    CHECK(c.gpu.num_sms == 80);
    CHECK(c.sm.warp_size == 32);
    CHECK(c.sm.max_warps == 64);
    CHECK(c.sm.max_blocks == 32);
    CHECK(c.sm.num_schedulers == 4);
    CHECK(c.sm.scheduler == SchedulerPolicy::Gto);
    CHECK(c.l1d.size_kb == 96);
    CHECK(c.l2.cache.size_kb == 4608);  // 4.5 MB
    CHECK(c.l2.cache.assoc == 24);
    CHECK(c.regfile.size_kb == 256);
    CHECK(c.regfile.num_banks == 8);
    CHECK(c.energy.regfile_read_pj == 14.2);
    CHECK(c.energy.regfile_write_pj == 20.9);
  }
  SECTION("maxwell: LTRF Table 3") {
    const GpuConfig c = loadConfig(namedConfig("maxwell"));
    CHECK(c.name == "maxwell");
    CHECK(c.gpu.num_sms == 24);
    CHECK(c.gpu.clock_mhz == 1137.0);
    CHECK(c.sm.max_warps == 64);
    CHECK(c.sm.scheduler == SchedulerPolicy::TwoLevel);
    CHECK(c.sm.active_warps == 8);
    CHECK(c.regfile.size_kb == 256);
    CHECK(c.regfile.size_kb * 1024 / 4 == 65536);
    CHECK(c.shared.size_kb == 64);
    CHECK(c.l1d.size_kb == 16);
    CHECK(c.l1d.assoc == 4);
    CHECK(c.l1d.line_bytes == 128);
    CHECK(c.l1i.size_kb == 2);
    CHECK(c.l1i.assoc == 4);
    CHECK(c.l1i.line_bytes == 128);
    CHECK(c.l2.cache.size_kb == 2048);
    CHECK(c.l2.cache.assoc == 8);
    CHECK(c.l2.cache.line_bytes == 128);
    CHECK(c.dram.num_channels == 8);
  }
  SECTION("the defaults in code are the v100 configuration") {
    CHECK(sameConfig(loadConfig(namedConfig("v100")), GpuConfig{}));
  }
  SECTION("every named configuration spells out every key but the mechanisms'") {
    for (const std::string& name : namedConfigs()) {
      const YAML::Node root = YAML::LoadFile(namedConfig(name).string());
      for (const auto& key : configKeys()) {
        // A mechanism's section belongs to the mechanism: the baseline names none.
        if (key.rfind("mechanisms.", 0) == 0) continue;
        YAML::Node node = root;
        bool present = true;
        std::stringstream parts(key);
        for (std::string part; present && std::getline(parts, part, '.');) {
          const YAML::Node parent = node;  // const: lookups must not add keys
          present = parent.IsMap() && parent[part];
          if (present) node.reset(parent[part]);
        }
        INFO(name << ".yaml: " << key);
        CHECK(present);
        CHECK((present && (node.IsScalar() || (key == "shared.carveout_kb" && node.IsSequence()))));
      }
    }
  }
}

TEST_CASE("toYaml output loads back to the same configuration", "[config]") {
  TempDir dir;
  std::vector<GpuConfig> configs;
  for (const std::string& name : namedConfigs()) configs.push_back(loadConfig(namedConfig(name)));
  GpuConfig odd;
  odd.name = "yes: \"quoted\" # not a comment";
  odd.gpu.clock_mhz = 1234.5678901234567;
  rfsim::cars::demoConfig(odd).op_rate = 0.1;
  rfsim::cars::demoConfig(odd).seed = INT64_MAX;
  rfsim::cars::carsConfig(odd).trace = true;
  odd.sm.scheduler = SchedulerPolicy::TwoLevel;
  configs.push_back(odd);
  GpuConfig empty_name;
  empty_name.name = "";
  configs.push_back(empty_name);

  for (const auto& c : configs) {
    const std::string yaml = toYaml(c);
    const GpuConfig back = loadConfig(dir.write("resolved.yaml", yaml));
    INFO(yaml);
    CHECK(sameConfig(back, c));
    CHECK(back.name == c.name);
    CHECK(back.gpu.clock_mhz == c.gpu.clock_mhz);
  }
  SECTION("the YAML carries each field's description") {
    const std::string yaml = toYaml(GpuConfig{});
    CHECK_THAT(yaml, Contains("max_warps: 64") && Contains("# resident warps per SM"));
    CHECK_THAT(yaml, Contains("clock_mhz: 1132.0"));
    CHECK_THAT(yaml, Contains("lrr | gto | two_level"));
  }
}

TEST_CASE("toJson nests sections and keeps types", "[config]") {
  const nlohmann::json j = toJson(GpuConfig{});
  CHECK(j["name"] == "v100");
  CHECK(j["sm"]["max_warps"] == 64);
  CHECK(j["gpu"]["clock_mhz"] == 1132.0);
  CHECK(j["mechanisms"]["cars"]["rtl"] == true);
  CHECK(j["l2"]["size_kb"] == 6144);  // L2Config flattens its cache fields into l2
  CHECK(j["l2"]["num_slices"] == 64);
}

TEST_CASE("configuration errors name the file, the line and the key", "[config]") {
  TempDir dir;
  struct Case {
    const char* what;
    const char* yaml;
    const char* position;  // ":line:column:"
    const char* key;
    const char* reason;
  };
  const Case cases[] = {
      {"out of range", "sm:\n  max_warps: 200\n", ":2:14:", "'sm.max_warps'", "value 200 out of range [1, 64]"},
      {"unknown key, close", "sm:\n  max_wraps: 20\n", ":2:3:", "'sm.max_wraps'", "did you mean 'max_warps'?"},
      {"unknown key, far", "sm:\n  foo: 1\n", ":2:3:", "'sm.foo'", "unknown key in section 'sm'"},
      {"unknown section", "gpu:\n  num_sms: 4\nsmm:\n  max_warps: 3\n", ":3:1:", "'smm'", "did you mean 'sm'?"},
      {"string for integer", "sm:\n  max_warps: abc\n", ":2:14:", "'sm.max_warps'", "expected an integer"},
      {"float for integer", "sm:\n  max_warps: 1.5\n", ":2:14:", "'sm.max_warps'", "got '1.5'"},
      {"exponent for integer", "mechanisms:\n  cars:\n    demo:\n      cycles: 1e6\n", ":4:15:",
       "'mechanisms.cars.demo.cycles'", "expected an integer"},
      {"map for scalar", "sm:\n  max_warps: {a: 1}\n", ":2:14:", "'sm.max_warps'", "got a map"},
      {"list for scalar", "gpu:\n  clock_mhz: [1, 2]\n", ":2:14:", "'gpu.clock_mhz'", "got a list"},
      {"quoted number", "sm:\n  max_warps: \"32\"\n", ":2:14:", "'sm.max_warps'", "quoted string"},
      {"missing value", "sm:\n  max_warps:\n", ":2:3:", "'sm.max_warps'", "got no value"},
      {"negative unsigned", "sm:\n  max_warps: -1\n", ":2:14:", "'sm.max_warps'", "negative value -1"},
      {"beyond uint32", "regfile:\n  size_kb: 4294967296\n", ":2:12:", "'regfile.size_kb'", "exceeds the uint32 limit"},
      {"beyond 64 bits", "mechanisms:\n  cars:\n    demo:\n      seed: 18446744073709551616\n", ":4:13:",
       "'mechanisms.cars.demo.seed'", "64-bit"},
      {"uint64 above range", "mechanisms:\n  cars:\n    demo:\n      seed: 9223372036854775808\n", ":4:13:",
       "'mechanisms.cars.demo.seed'", "out of range"},
      {"yes for bool", "mechanisms:\n  cars:\n    rtl: yes\n", ":3:10:", "'mechanisms.cars.rtl'", "expected true or false, got 'yes'"},
      {"y for bool", "mechanisms:\n  cars:\n    trace: y\n", ":3:12:", "'mechanisms.cars.trace'", "expected true or false"},
      {"1 for bool", "mechanisms:\n  cars:\n    rtl: 1\n", ":3:10:", "'mechanisms.cars.rtl'", "expected true or false"},
      {"choice", "sm:\n  scheduler: fifo\n", ":2:14:", "'sm.scheduler'", "not one of: lrr, gto, two_level"},
      {"real not a number", "gpu:\n  clock_mhz: fast\n", ":2:14:", "'gpu.clock_mhz'", "expected a number"},
      {"real out of range", "mechanisms:\n  cars:\n    demo:\n      op_rate: 1.5\n", ":4:16:",
       "'mechanisms.cars.demo.op_rate'", "out of range [0, 1]"},
      {"a section that moved", "demo:\n  cycles: 5\n", ":1:1:", "'demo'", "moved to 'mechanisms.cars.demo'"},
      {"real infinity", "gpu:\n  clock_mhz: .inf\n", ":2:14:", "'gpu.clock_mhz'", "expected a number"},
      {"section not a map", "sm: 5\n", ":1:5:", "'sm'", "expected a section"},
      {"duplicate key", "sm:\n  max_warps: 16\n  max_warps: 32\n", ":3:3:", "'sm.max_warps'", "duplicate key"},
      {"text is a map", "name: {a: 1}\n", ":1:7:", "'name'", "expected text"},
      {"cross-field rule", "sm:\n  max_warps: 16\n", ":2:3:", "'sm.max_threads' and 'sm.max_warps'", "needs 64 warps"},
      {"cross-field rule, other key", "sm:\n  max_threads: 2000\n", ":2:3:", "'sm.max_threads' and 'sm.warp_size'",
       "not a multiple"},
  };
  for (const auto& c : cases) {
    const fs::path file = dir.write("bad.yaml", c.yaml);
    const std::string msg = errorOf([&] { loadConfig(file); });
    INFO(c.what << ": " << msg);
    CHECK_THAT(msg, Contains(file.string() + c.position));
    CHECK_THAT(msg, Contains(c.key));
    CHECK_THAT(msg, Contains(c.reason));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("file-level configuration errors", "[config]") {
  TempDir dir;
  SECTION("missing file") {
    const fs::path file = dir.path() / "nope.yaml";
    CHECK_THAT(errorOf([&] { loadConfig(file); }), Contains(file.string()) && Contains("no such file"));
  }
  SECTION("YAML syntax error, with its position") {
    const fs::path file = dir.write("syntax.yaml", "gpu:\n  num_sms: 4\nsm: [1, 2\nregfile:\n");
    CHECK_THAT(errorOf([&] { loadConfig(file); }), Contains(file.string() + ":") && Contains("YAML syntax error"));
  }
  SECTION("empty file") {
    const fs::path file = dir.write("empty.yaml", "");
    CHECK_THAT(errorOf([&] { loadConfig(file); }), Contains(file.string() + ":1:1:") && Contains("empty"));
  }
  SECTION("only comments") {
    const fs::path file = dir.write("comments.yaml", "# nothing here\n");
    CHECK_THAT(errorOf([&] { loadConfig(file); }), Contains("empty"));
  }
  SECTION("top level not a map") {
    const fs::path file = dir.write("list.yaml", "- gpu\n- sm\n");
    CHECK_THAT(errorOf([&] { loadConfig(file); }), Contains(file.string() + ":1:1:") && Contains("top level"));
    const fs::path scalar = dir.write("scalar.yaml", "v100\n");
    CHECK_THAT(errorOf([&] { loadConfig(scalar); }), Contains("top level must be a map"));
  }
  SECTION("partial files keep the other defaults; empty sections are allowed") {
    const fs::path file = dir.write("partial.yaml", "sm:\n  max_warps: 48\n  max_threads: 1536\nmechanisms:\n");
    const GpuConfig c = loadConfig(file);
    CHECK(c.sm.max_warps == 48);
    CHECK(c.sm.max_threads == 1536);
    CHECK(c.gpu.num_sms == GpuConfig{}.gpu.num_sms);
    CHECK(rfsim::cars::carsConfig(c).rtl == rfsim::cars::carsConfig(GpuConfig{}).rtl);
  }
}

TEST_CASE("cross-field rules name the source and both keys", "[config]") {
  struct Rule {
    std::function<void(GpuConfig&)> breakIt;
    const char* keys;
  };
  const Rule rules[] = {
      {[](GpuConfig& c) { c.sm.max_threads = 1000; }, "'sm.max_threads' and 'sm.warp_size'"},
      {[](GpuConfig& c) { c.sm.max_warps = 32; }, "'sm.max_threads' and 'sm.max_warps'"},
      {[](GpuConfig& c) { c.sm.active_warps = 64; c.sm.max_warps = 48; c.sm.max_threads = 1536; },
       "'sm.active_warps' and 'sm.max_warps'"},
      {[](GpuConfig& c) { c.sm.scheduler = SchedulerPolicy::TwoLevel; c.sm.active_warps = 2; },
       "'sm.active_warps' and 'sm.num_schedulers'"},
      {[](GpuConfig& c) { c.regfile.num_banks = 3; }, "'regfile.num_banks' and 'regfile.size_kb'"},
      {[](GpuConfig& c) { c.sm.sub_cores = 1; c.regfile.sub_cores = 3; }, "'regfile.sub_cores' and 'regfile.num_banks'"},
      {[](GpuConfig& c) { c.sm.sub_cores = 1; c.regfile.sub_cores = 2; c.sm.num_schedulers = 4; }, "'regfile.sub_cores' and 'sm.num_schedulers'"},
      {[](GpuConfig& c) { c.sm.sub_cores = 8; }, "'sm.sub_cores' and 'sm.num_schedulers'"},
      {[](GpuConfig& c) { c.sm.sub_cores = 2; c.pipeline.num_collectors = 7; },
       "'pipeline.num_collectors' and 'sm.sub_cores'"},
      {[](GpuConfig& c) { c.sm.sub_cores = 4; c.regfile.num_banks = 2; }, "'regfile.num_banks' and 'sm.sub_cores'"},
      {[](GpuConfig& c) { c.sm.sub_cores = 4; c.regfile.sub_cores = 2; c.sm.num_schedulers = 4; },
       "'regfile.sub_cores' and 'sm.sub_cores'"},
      {[](GpuConfig& c) { c.sm.sub_cores = 2; c.pipeline.sfu_units = 3; }, "'pipeline.sfu_units' and 'sm.sub_cores'"},
      {[](GpuConfig& c) { c.l1d.size_kb = 33; }, "'l1d.size_kb' and 'l1d.assoc'"},
      {[](GpuConfig& c) { c.l1d.size_kb = 10240; }, "'l1d.size_kb' and 'l1d.assoc'"},  // 1280 sets
      {[](GpuConfig& c) { c.l1i.assoc = 3; }, "'l1i.size_kb' and 'l1i.assoc'"},
      {[](GpuConfig& c) { c.l1i.size_kb = 0; }, "'l1i.size_kb'"},
      {[](GpuConfig& c) { c.l1d.line_bytes = 96; }, "'l1d.line_bytes'"},
      {[](GpuConfig& c) { c.l2.num_slices = 96; }, "'l2.size_kb' and 'l2.num_slices'"},
      {[](GpuConfig& c) { c.l2.num_slices = 32; c.dram.num_channels = 24; }, "'l2.num_slices' and 'dram.num_channels'"},
      {[](GpuConfig& c) { c.shared.size_kb = 1; c.shared.num_banks = 48; }, "'shared.size_kb' and 'shared.num_banks'"},
      {[](GpuConfig& c) { c.dram.t_ras = 20; }, "'dram.t_ras' and 'dram.t_rcd'"},  // 20 < 12 + 12
      {[](GpuConfig& c) { c.dram.t_ccd_l = 0; }, "'dram.t_ccd_l' and 'dram.t_ccd_s'"},
      {[](GpuConfig& c) { c.dram.t_faw = 2; }, "'dram.t_faw' and 'dram.t_rrd'"},
      {[](GpuConfig& c) { c.dram.bank_groups = 3; }, "'dram.bank_groups' and 'dram.banks'"},
      {[](GpuConfig& c) { c.dram.row_bytes = 1000; }, "'dram.row_bytes' and 'l2.line_bytes'"},
      {[](GpuConfig& c) { rfsim::cars::carsConfig(c).trace = true; rfsim::cars::carsConfig(c).rtl = false; }, "'mechanisms.cars.trace' and 'mechanisms.cars.rtl'"},
  };
  for (const auto& r : rules) {
    GpuConfig c;
    r.breakIt(c);
    const std::string msg = errorOf([&] { validate(c, "my source"); });
    INFO(msg);
    CHECK_THAT(msg, Contains("my source: ") && Contains(r.keys));
  }
  SECTION("an absent L1D is allowed; the named configurations pass") {
    GpuConfig c;
    c.l1d.size_kb = 0;
    CHECK_NOTHROW(validate(c, "x"));
    for (const std::string& name : namedConfigs()) CHECK_NOTHROW(validate(loadConfig(namedConfig(name)), name));
  }
}

TEST_CASE("command-line overrides with --set", "[config]") {
  GpuConfig c;
  SECTION("good values of every kind") {
    applyOverride(c, "sm.max_warps=32");
    applyOverride(c, "sm.max_threads = 1024");
    applyOverride(c, "gpu.clock_mhz=1500.5");
    applyOverride(c, "mechanisms.cars.trace=true");
    applyOverride(c, "sm.scheduler=two_level");
    applyOverride(c, "name=my run");
    applyOverride(c, "l2.num_slices=32");
    applyOverride(c, "mechanisms.cars.demo.seed=9223372036854775807");
    CHECK(c.sm.max_warps == 32);
    CHECK(c.sm.max_threads == 1024);
    CHECK(c.gpu.clock_mhz == 1500.5);
    CHECK(rfsim::cars::carsConfig(c).trace);
    CHECK(c.sm.scheduler == SchedulerPolicy::TwoLevel);
    CHECK(c.name == "my run");
    CHECK(c.l2.num_slices == 32);
    CHECK(rfsim::cars::demoConfig(c).seed == uint64_t{INT64_MAX});
    CHECK_NOTHROW(validate(c, "--set"));
  }
  SECTION("bad values name --set and the key, and change nothing") {
    const std::pair<const char*, const char*> bad[] = {
        {"sm.max_warps=200", "'sm.max_warps': value 200 out of range [1, 64]"},
        {"sm.max_warps=1.5", "'sm.max_warps': expected an integer"},
        {"sm.max_warps=-4", "'sm.max_warps': negative value"},
        {"sm.max_warps=", "'sm.max_warps': expected an integer, got no value"},
        {"sm.max_wraps=3", "'sm.max_wraps': unknown key in section 'sm'; did you mean 'max_warps'?"},
        {"smm.max_warps=3", "'smm': unknown section; did you mean 'sm'?"},
        {"sm=3", "'sm': is a section"},
        {"demo.cycles=5", "'demo': the section moved to 'mechanisms.cars.demo'"},
        {"sm.max_warps.x=3", "'sm.max_warps': expected an integer, got a map"},
        {"mechanisms.cars.rtl=no", "'mechanisms.cars.rtl': expected true or false"},
        {"sm.scheduler=gtoo", "did you mean 'gto'?"},
        {"sm.max_warps=[1", "'sm.max_warps': cannot read the value"},
        {"sm.max_warps 32", "expected KEY=VALUE"},
        {"sm..max_warps=3", "expected KEY=VALUE"},
    };
    for (const auto& [assignment, expected] : bad) {
      const std::string msg = errorOf([&] { applyOverride(c, assignment); });
      INFO(assignment << " -> " << msg);
      CHECK_THAT(msg, Contains("--set") && Contains(expected));
    }
    CHECK(sameConfig(c, GpuConfig{}));
  }
  SECTION("cross-field rules are left to validate()") {
    applyOverride(c, "sm.max_warps=16");
    CHECK_THAT(errorOf([&] { validate(c, "--set"); }), Contains("--set: keys 'sm.max_threads' and 'sm.max_warps'"));
  }
}

TEST_CASE("the reference lists every key", "[config]") {
  const std::string md = configReferenceMarkdown();
  const auto keys = configKeys();
  CHECK(keys.size() == std::set<std::string>(keys.begin(), keys.end()).size());
  CHECK(keys.front() == "name");
  for (const auto& key : keys) {
    INFO(key);
    CHECK_THAT(md, Contains("| `" + key + "` |"));
  }
  size_t rows = 0;
  for (size_t pos = 0; (pos = md.find("\n| `", pos)) != std::string::npos; ++pos) ++rows;
  CHECK(rows == keys.size());
  CHECK_THAT(md, Contains("| `sm.max_warps` | uint32 | `64` | 1 .. 64 | warp | resident warps per SM |"));
  CHECK_THAT(md, Contains("`lrr`, `gto`, `two_level`"));

  SECTION("docs/configuration.md embeds the current reference") {
    std::ifstream in(sourceDir() / "docs" / "configuration.md");
    std::stringstream doc;
    doc << in.rdbuf();
    INFO("regenerate the table with: build/rfsim config --reference");
    CHECK_THAT(doc.str(), Contains(md));
  }
}

namespace {

// Every choice key of a configuration with its names, in declaration order.
class ChoiceLister {
 public:
  using Found = std::vector<std::pair<std::string, Choices>>;
  ChoiceLister(Found& found, std::string prefix) : found_(found), prefix_(std::move(prefix)) {}
  template <class T> void integer(const char*, T&, IntRange, const char*, const char*) {}
  void integers(const char*, std::vector<uint32_t>&, IntRange, const char*, const char*) {}
  void real(const char*, double&, RealRange, const char*, const char*) {}
  void boolean(const char*, bool&, const char*) {}
  void text(const char*, std::string&, const char*) {}
  void choice(const char* key, ChoiceRef ref, const char*) { found_.emplace_back(prefix_ + key, ref.names()); }
  template <class S> void section(const char* key, S& sub, const char*) {
    ChoiceLister inner(found_, prefix_ + key + ".");
    sub.visit(inner);
  }

 private:
  Found& found_;
  std::string prefix_;
};

}  // namespace

TEST_CASE("choice keys are enums, read and written by their names", "[config]") {
  GpuConfig defaults;
  ChoiceLister::Found choices;
  ChoiceLister lister(choices, "");
  defaults.visit(lister);
  // The baseline's and every registered mechanism's (cars, ltrf, r2d2, regdem).
  CHECK(choices.size() >= 19);
  const nlohmann::json defaults_json = toJson(defaults);

  SECTION("each value round-trips through --set, YAML and JSON to the same enum and the same text") {
    TempDir dir;
    for (const auto& [key, names] : choices) {
      CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
      const std::string leaf = key.substr(key.rfind('.') + 1);
      for (const auto& name : names) {
        INFO(key << " = " << name);
        GpuConfig c;
        applyOverride(c, key + "=" + name);
        std::string pointer = "/" + key;
        std::replace(pointer.begin(), pointer.end(), '.', '/');
        CHECK(toJson(c)[nlohmann::json::json_pointer(pointer)] == name);
        const std::string yaml = toYaml(c);
        // A word YAML would not read back as that text ("2xlow") is quoted.
        CHECK_THAT(yaml, Contains(leaf + ": " + name + " ") || Contains(leaf + ": \"" + name + "\" "));
        const GpuConfig back = loadConfig(dir.write("choice.yaml", yaml));
        CHECK(toYaml(back) == yaml);
        CHECK(sameConfig(back, c));
      }
    }
  }
  SECTION("the enum behind a key takes the value named") {
    GpuConfig c;
    applyOverride(c, "sm.dependency=barriers");
    CHECK(c.sm.dependency == Dependency::Barriers);
    applyOverride(c, "pipeline.collector_mode=per_unit");
    CHECK(c.pipeline.collector_mode == CollectorMode::PerUnit);
    applyOverride(c, "l1d.global_write=write_back");
    CHECK(c.l1d.global_write == L1dWrite::WriteBack);
    applyOverride(c, "mechanisms.cars.allocation=2xlow");
    CHECK(rfsim::cars::carsConfig(c).allocation == rfsim::cars::Allocation::Low2x);
    CHECK(choiceName(rfsim::cars::carsConfig(c).allocation) == "2xlow");
    CHECK(choiceName(SchedulerPolicy::TwoLevel) == "two_level");
  }
  SECTION("a bad value names the key, the valid values and the closest one") {
    const std::tuple<const char*, const char*, const char*> bad[] = {
        {"sm.dependency=barrier", "not one of: scoreboard, barriers", "did you mean 'barriers'?"},
        {"sim.memory=fixd", "not one of: hierarchy, fixed", "did you mean 'fixed'?"},
        {"compiler.callee_saved=contiguos", "not one of: ptxas, contiguous", "did you mean 'contiguous'?"},
        {"mechanisms.cars.allocation=3xlow", "not one of: adaptive, low, high, 2xlow, 4xlow", "did you mean"},
        {"sm.long_wait=never", "not one of: load, l1d_miss", ""},
    };
    for (const auto& [assignment, valid, near] : bad) {
      GpuConfig c;
      const std::string a = assignment;
      const std::string msg = errorOf([&] { applyOverride(c, a); });
      INFO(msg);
      CHECK_THAT(msg, Contains("--set: key '" + a.substr(0, a.find('=')) + "'") && Contains(valid) && Contains(near));
      CHECK(toJson(c) == defaults_json);
    }
    TempDir dir;
    const fs::path file = dir.write("bad.yaml", "mechanisms:\n  ltrf:\n    mode: ltrf_pluss\n");
    const std::string msg = errorOf([&] { loadConfig(file); });
    CHECK_THAT(msg, Contains(file.string() + ":3:11:") && Contains("'mechanisms.ltrf.mode'") &&
                        Contains("not one of: bl, rfc, ltrf, ltrf_plus") && Contains("did you mean 'ltrf_plus'?"));
  }
}
