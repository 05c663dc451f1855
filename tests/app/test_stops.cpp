// How the rfsim program ends, as a user or a script sees it: the exit status
// (0, 1 for an error or a failed check, 2 for a usage error, 130 for an
// interrupt), the INCOMPLETE reason a stopped run leaves, a runaway kernel
// stopped from the command line, the progress line only on a terminal, and
// PTX files that cannot be whole.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "run_command.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

using cli_test::Ran;
using cli_test::sh;

Ran rfsim(const std::string& args) { return sh(RFSIM_BINARY_DIR "/rfsim " + args); }

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("rfsim-stops-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::remove_all(p.string() + ".partial");
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("exit status: 2 for a usage error, with the usage when no subcommand is given", "[app]") {
  Ran r = rfsim("");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("Usage:") && Contains("run") && Contains("which subcommand"));
  r = rfsim("run --no-such-option");
  CHECK(r.status == 2);
  r = rfsim("run");  // which workloads?
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("--workload"));
  r = rfsim("--help");
  CHECK(r.status == 0);
  r = rfsim("run --workload nope");  // not a usage error: a name the program does not know
  CHECK(r.status == 1);
}

TEST_CASE("a runaway cap from the command line stops the run, INCOMPLETE giving the reason", "[app][runaway]") {
  const fs::path out = scratch("cap");
  Ran r = rfsim("run -q --workload saxpy --max-instructions 100 --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("stopped as a runaway kernel") && Contains("sim.max_instructions (100 warp"));
  CHECK_FALSE(fs::exists(out));
  CHECK_THAT(slurp(out.string() + ".partial/INCOMPLETE"),
             Contains("workload saxpy:") && Contains("stopped as a runaway kernel"));
  fs::remove_all(out.string() + ".partial");

  r = rfsim("run -q --workload saxpy --timing --set gpu.num_sms=2 --max-cycles 300 --out " + out.string());
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("sim.max_cycles (300; raise it with --max-cycles") && Contains("slot 0"));
  CHECK_THAT(slurp(out.string() + ".partial/INCOMPLETE"), Contains("sim.max_cycles"));
  fs::remove_all(out.string() + ".partial");
}

TEST_CASE("SIGINT and SIGTERM leave INCOMPLETE naming the signal, and exit 130 and 143", "[app]") {
  for (const int sig : {SIGINT, SIGTERM}) {
    const fs::path out = scratch(sig == SIGINT ? "int" : "term");
    const std::string partial = out.string() + ".partial";
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Every workload functionally: long enough to be stopped midway.
      std::freopen("/dev/null", "w", stdout);
      ::signal(SIGINT, SIG_DFL);
      execl(RFSIM_BINARY_DIR "/rfsim", "rfsim", "run", "-q", "--workload", "all", "--out", out.c_str(),
            static_cast<char*>(nullptr));
      _exit(99);
    }
    // Once the folder is started, stop it.
    for (int i = 0; i < 600 && !fs::exists(partial + "/config.yaml"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::kill(pid, sig);
    int st = 0;
    waitpid(pid, &st, 0);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 128 + sig);
    CHECK_FALSE(fs::exists(out));
    CHECK_THAT(slurp(partial + "/INCOMPLETE"), Contains(sig == SIGINT ? "SIGINT" : "SIGTERM"));
    fs::remove_all(partial);
  }
}

TEST_CASE("run writes results/run-<config>-<time>, the folder its help names", "[app]") {
  const fs::path dir = scratch("default-folder");
  fs::create_directories(dir);
  const Ran r = sh("cd " + dir.string() + " && " RFSIM_BINARY_DIR "/rfsim run -q --workload saxpy");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("results: results/run-v100-"));
  CHECK_THAT(rfsim("run --help").output, Contains("results/run-<config>-<time>"));
  fs::remove_all(dir);
}

TEST_CASE("the progress line is shown on a terminal only", "[app]") {
  // The line appears after a second of a launch: lt_nqueens' one launch
  // takes 2 s of CPU time (r2_sgemm's took 0.55 s and could end before
  // its line showed).
  const std::string run = RFSIM_BINARY_DIR "/rfsim run --workload lt_nqueens --timing --out ";
  fs::path out = scratch("tty");
  Ran r = sh("script -qec '" + run + out.string() + "' /dev/null");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("\rkernel lt_nqueens: cycle ") && Contains(" of 132 blocks, ") &&
                           Contains(" warp-instr/s"));
  fs::remove_all(out);
  out = scratch("pipe");
  r = sh(run + out.string() + " | cat");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, !Contains("warp-instr/s,") && !Contains("\r"));
  fs::remove_all(out);
}

TEST_CASE("compare on a terminal shows its runs in flight and its steps, quiet with -q or in a pipe", "[app]") {
  // The paper scripts (scripts/*_repro.sh) are one rfsim compare each: this is their progress.
  const std::string cmp = RFSIM_BINARY_DIR "/rfsim compare -w r2_sgemm,saxpy --variant big:l1d.size_kb=64 -j 1 "
                                           "--no-report -o ";
  fs::path out = scratch("cmp-tty");
  Ran r = sh("script -qec '" + cmp + out.string() + "' /dev/null");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("compare:") && Contains("running v100/") && Contains("/4 ["));
  fs::remove_all(out);
  out = scratch("cmp-q");
  r = sh("script -qec '" + cmp + out.string() + " -q' /dev/null");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, !Contains("running v100/") && Contains("compare: 4 runs"));
  fs::remove_all(out);
  out = scratch("cmp-pipe");
  r = sh(cmp + out.string() + " | cat");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, !Contains("running v100/") && !Contains("\r") && Contains("compare: 4 runs"));
  fs::remove_all(out);
}

TEST_CASE("a PTX file without .version and .target is an error at its line, .maxnreg beyond 255 is ignored "
          "with a warning",
          "[app][ptx]") {
  const fs::path dir = scratch("ptx");
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  Ran r = rfsim("ptx " + write("empty.ptx", ""));
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("empty.ptx:1:") && Contains("empty PTX file"));
  // nvcc's comment header only, the file cut after it.
  r = rfsim("ptx " + write("cut.ptx", "//\n// Generated by NVIDIA NVVM Compiler\n//\n"));
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("cut.ptx:") && Contains("empty PTX file"));
  r = rfsim("ptx " + write("nover.ptx", ".target sm_75\n.visible .entry k()\n{\n  ret;\n}\n"));
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("nover.ptx:1:1:") && Contains("missing .version directive"));
  r = rfsim("ptx " + write("notarget.ptx", ".version 7.5\n.visible .entry k()\n{\n  ret;\n}\n"));
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("notarget.ptx:2:") && Contains("missing .target directive"));
  r = rfsim("ptx " + write("hdr.ptx", ".version 7.5\n.target sm_75\n"));  // as ptxas: a module of nothing
  CHECK(r.status == 0);
  r = rfsim("ptx " + write("maxnreg.ptx", ".version 7.5\n.target sm_75\n.address_size 64\n"
                                          ".visible .entry k() .maxnreg 100000\n{\n  ret;\n}\n"));
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Contains("maxnreg.ptx:4:") && Contains(".maxnreg 100000") && Contains("ignored"));
  fs::remove_all(dir);
}
