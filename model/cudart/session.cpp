#include "cudart/session.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "backend/backend.h"
#include "common/results_dir.h"
#include "common/stop_signals.h"
#include "config/config_io.h"
#include "mech/mechanism.h"
#include "runtime/config_options.h"
#include "runtime/launch_json.h"
#include "runtime/runtime.h"

// SystemC's library has a main() that calls sc_main(); the application's
// own main() runs instead, so this is never called.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) { return 1; }

namespace rfsim::cudart {
namespace {

std::string env(const char* name, const std::string& fallback = {}) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// The application's name: RFSIM_APP_NAME (rfsim exec sets it), else the
// executable's file name.
std::string appName() {
  std::string n = env("RFSIM_APP_NAME");
  if (!n.empty()) return n;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "app" : exe.filename().string();
}

std::string commandLine() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  for (char& c : all)
    if (c == '\0') c = ' ';
  while (!all.empty() && all.back() == ' ') all.pop_back();
  return all;
}

void exitHandler() { Session::get().finish(); }

}  // namespace

void reportError(const char* fn, cudaError_t code, const std::string& message) {
  std::cerr << fmt::format("rfsim cudart: {}: {} ({}): {}\n", fn, errorName(code), code, message);
}

Session& Session::get() {
  static Session* s = new Session();  // never destroyed: see session.h
  return *s;
}

Session::~Session() = default;

Session::Session() {
  // SystemC reads this once, when its first kernel is made.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  app_ = appName();
  command_ = commandLine();
  timing_ = env("RFSIM_TIMING") == "1";
  quiet_ = env("RFSIM_QUIET") == "1";
  if (const std::string after = env("RFSIM_PROGRESS_AFTER_MS"); !after.empty())
    ProgressLine::setFirstDelay(std::chrono::milliseconds(std::strtol(after.c_str(), nullptr, 10)));
  out_required_ = !env("RFSIM_OUT").empty();
}

void** Session::registerFatbin(const void* wrapper) {
  auto m = std::make_unique<Module>();
  m->what = fmt::format("{} (fatbin {})", app_, modules_.size());
  // Parsed now, so that a corrupt fatbin is named before the first call;
  // an error is reported at the first call that needs the device.
  try {
    m->fatbins = rt::parseFatbinWrapper(wrapper, m->what);
  } catch (const Error& e) {
    failure_ = e.what();
  }
  void** handle = reinterpret_cast<void**>(m.get());
  modules_.emplace(handle, std::move(m));
  order_.push_back(handle);
  return handle;
}

void Session::unregisterFatbin(void** handle) { (void)handle; }

void Session::registerFunction(void**, const void* host_fun, const char* device_name) {
  kernels_[host_fun] = device_name ? device_name : "";
}

void Session::registerVar(void**, const void* host_var, const char* device_name, size_t size, bool constant) {
  vars_[host_var] = Var{device_name ? device_name : "", size, constant, nullptr};
}

void Session::registerManagedVar(void**, void** host_ptr, const char* device_name, size_t size) {
  vars_[host_ptr] = Var{device_name ? device_name : "", size, false, host_ptr};
}

const config::GpuConfig& Session::config() {
  if (!cfg_) {
    rt::ConfigOptions o;
    o.file = env("RFSIM_CONFIG", "v100");
    o.mech = env("RFSIM_MECH");
    std::istringstream sets(env("RFSIM_SET"));
    for (std::string line; std::getline(sets, line);)
      if (!line.empty()) o.sets.push_back(line);
    try {
      static const bool registered = (mech::registerMechanisms(), true);
      (void)registered;
      cfg_ = std::make_unique<config::GpuConfig>(rt::loadWithOverrides(o));
      // What was asked: the configuration, and the application's command
      // line as rfsim exec was given it (this process may be a child of it).
      request_ = rt::runRequest(o, config::toYaml(*cfg_));
      request_["app"] = app_;
      request_["argv"] = nlohmann::json::array();
      if (const std::string argv = env("RFSIM_APP_ARGV"); !argv.empty())
        request_["argv"] = nlohmann::json::parse(argv, nullptr, false);
      request_["command"] = command_;
      request_["timing"] = timing_;
      mechs_ = mech::instantiate(*cfg_);
    } catch (const Error& e) {
      cfg_.reset();
      throw CudaError{cudaErrorInitializationError, e.what()};
    }
  }
  return *cfg_;
}

void Session::openResults() {
  if (dir_) return;
  const config::GpuConfig& cfg = config();
  const std::string out = env("RFSIM_OUT", rt::defaultOutDir("exec", cfg.name));
  dir_ = std::make_unique<ResultsDir>(out, env("RFSIM_OVERWRITE") == "1");
  // Ctrl-C leaves the folder .partial with its reason, then ends the
  // application as the signal would have (common/stop_signals.h).
  installStopHandlers(false);
  dir_->writeFile("config.yaml", config::toYaml(cfg));
  // The GPU's modules (docs/sm.md), described before the device's own
  // simulation exists.
  if (timing_) dir_->writeFile("hierarchy.json", rt::hierarchyOf(cfg).dump(2) + "\n");
  std::atexit(exitHandler);
}

rt::Device& Session::device() {
  if (!dev_) {
    if (!failure_.empty()) throw CudaError{cudaErrorInvalidKernelImage, failure_};
    const config::GpuConfig& cfg = config();
    openResults();
    rt::DeviceOptions o;
    o.timing = timing_;
    o.gpu = cfg_.get();
    o.regfile_regs = cfg.regfile.size_kb * 1024u / 4u;
    for (auto& m : mechs_) o.mechanisms.push_back(m.get());
    progress_ = std::make_unique<ProgressLine>(quiet_);
    o.progress = progress_.get();
    totals_ = std::make_unique<ProgressLine>(quiet_);
    dev_ = std::make_unique<rt::Device>(o);
    if (timing_) {
      std::vector<mech::Mechanism*> ms;
      for (auto& m : mechs_) ms.push_back(m.get());
      const std::string n = env("RFSIM_LAUNCH_STATS", "100");
      uint64_t limit = 100;
      try {
        limit = std::stoull(n);
      } catch (const std::exception&) {
        throw CudaError{cudaErrorInitializationError, "RFSIM_LAUNCH_STATS=" + n + ": expected a number of launches"};
      }
      acc_ = std::make_unique<rt::LaunchAccumulator>(*cfg_, ms, limit);
    }
    loadModules();
  }
  return *dev_;
}

uint32_t Session::reportedCapability() {
  const config::GpuTop& g = config().gpu;
  if (g.reported_compute_capability) return g.reported_compute_capability;
  uint32_t lowest = 0;
  for (void** h : order_)
    for (const rt::Fatbin& fb : modules_.at(h)->fatbins)
      if (const rt::FatbinEntry* e = fb.choosePtx())
        if (!lowest || e->arch < lowest) lowest = e->arch;
  const uint32_t cc = std::max(g.compute_capability, lowest);
  if (cc != g.compute_capability && !told_capability_ && !quiet_) {
    told_capability_ = true;
    std::cerr << fmt::format(
        "rfsim cudart: the device reports compute capability {}.{}, the lowest the application's PTX targets, "
        "instead of the configuration's {}.{} (gpu.reported_compute_capability sets it)\n",
        cc / 10, cc % 10, g.compute_capability / 10, g.compute_capability % 10);
  }
  return cc;
}

void Session::loadModules() {
  std::vector<std::filesystem::path> files;
  std::filesystem::create_directories(dir_->path("ptx"));
  std::vector<std::string> texts;
  for (void** h : order_) {
    const Module* m = modules_.at(h).get();
    try {
      for (std::string& t : rt::ptxModules(m->fatbins, m->what)) texts.push_back(std::move(t));
    } catch (const Error& e) {
      throw CudaError{cudaErrorNoKernelImageForDevice, e.what()};
    }
  }
  // What a device link keeps (rt::linkedModules): the modules of the
  // registered kernels and variables, and what they call.
  std::vector<std::string> roots;
  for (const auto& [f, name] : kernels_) roots.push_back(name);
  for (const auto& [v, var] : vars_) roots.push_back(var.name);
  for (size_t i : rt::linkedModules(texts, roots)) {
    const std::string name = fmt::format("ptx/module{}.ptx", ptx_files_.size());
    dir_->writeFile(name, texts[i]);
    ptx_files_.push_back(name);
    files.push_back(dir_->path(name));
  }
  if (files.empty()) throw CudaError{cudaErrorNoKernelImageForDevice, app_ + ": the executable registered no device code"};
  try {
    dev_->loadModules(files);
  } catch (const Error& e) {
    const cudaError_t code = cudaErrorInvalidPtx;
    dev_.reset();
    failure_ = fmt::format("{} (the PTX nvcc embedded is in {})", e.what(), dir_->workDir().string() + "/ptx");
    throw CudaError{code, failure_};
  }
  // __managed__ variables: the host's pointer gets the shared address.
  for (auto& [host, v] : vars_)
    if (v.managed_ptr) *v.managed_ptr = reinterpret_cast<void*>(dev_->symbolAddress(v.name));
}

const std::string& Session::kernelName(const void* host_fun) {
  auto it = kernels_.find(host_fun);
  if (it == kernels_.end())
    throw CudaError{cudaErrorInvalidDeviceFunction,
                    fmt::format("{} is not a registered kernel (a __global__ function of this executable)", host_fun)};
  return it->second;
}

size_t Session::maxDynamicShared(const std::string& kernel) {
  auto it = func_attrs_.find(kernel);
  if (it != func_attrs_.end() && it->second.max_dynamic_shared >= 0)
    return static_cast<size_t>(it->second.max_dynamic_shared);
  // Without the opt-in a block has 48 KB (CUDA C++ Programming Guide,
  // compute capability 7.x: "Kernels relying on shared memory allocations
  // over 48 KB per block ... require an explicit opt-in").
  const size_t limit = std::min<size_t>(config().shared.size_kb * 1024u, 48u * 1024u);
  const size_t used = device().staticSharedBytes(kernel);
  return used < limit ? limit - used : 0;
}

uint64_t Session::symbol(const void* host_var, size_t* size) {
  auto it = vars_.find(host_var);
  if (it == vars_.end())
    throw CudaError{cudaErrorInvalidSymbol,
                    fmt::format("{} is not a registered __device__ or __constant__ variable", host_var)};
  rt::Device& d = device();
  if (size) *size = it->second.size;
  try {
    return d.symbolAddress(it->second.name);
  } catch (const Error& e) {
    throw CudaError{cudaErrorInvalidSymbol, e.what()};
  }
}

void Session::pushConfig(dim3 grid, dim3 block, size_t shared, void* stream) {
  configs_.push_back({grid, block, shared, stream});
}

bool Session::popConfig(dim3* grid, dim3* block, size_t* shared, void** stream) {
  if (configs_.empty()) return false;
  const Config c = configs_.back();
  configs_.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  if (stream) *stream = c.stream;
  return true;
}

}  // namespace rfsim::cudart
