// Session::launch and Session::finish: a kernel launch on the model, and the
// results folder at exit.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "backend/backend.h"
#include "common/results_dir.h"
#include "config/occupancy.h"
#include "cudart/session.h"
#include "mech/mechanism.h"
#include "runtime/launch_json.h"
#include "runtime/runtime.h"

namespace rfsim::cudart {
namespace {

cudaError_t faultOf(const std::string& m) {
  auto has = [&](const char* s) { return m.find(s) != std::string::npos; };
  if (has("misaligned")) return cudaErrorMisalignedAddress;
  if (has("out of bounds") || has("outside") || has("no allocation")) return cudaErrorIllegalAddress;
  if (has("assert")) return cudaErrorAssert;
  if (has("deadlock") || has("runaway kernel")) return cudaErrorLaunchTimeout;
  if (has("unsupported") || has("illegal instruction")) return cudaErrorIllegalInstruction;
  return cudaErrorLaunchFailure;
}


void exitHandler() { Session::get().finish(); }

nlohmann::json stat(double v, const char* unit) { return {{"value", v}, {"unit", unit}}; }
nlohmann::json dims(dim3 d) { return nlohmann::json::array({d.x, d.y, d.z}); }

}  // namespace

void Session::launch(const void* host_fun, dim3 grid, dim3 block, void** args, size_t shared, void* stream) {
  const std::string kernel = kernelName(host_fun);
  rt::Device& d = device();
  const config::GpuConfig& cfg = config();
  const std::string where = fmt::format("kernel {}<<<({},{},{}), ({},{},{})>>>", kernel, grid.x, grid.y, grid.z,
                                        block.x, block.y, block.z);
  // What the hardware refuses before anything runs.
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (!grid.x || !grid.y || !grid.z || !threads || threads > 1024 || block.x > 1024 || block.y > 1024 ||
      block.z > 64 || grid.y > 65535 || grid.z > 65535)
    throw CudaError{cudaErrorInvalidConfiguration,
                    where + ": invalid launch configuration (at most 1024 threads per block, block dimensions up to "
                            "1024 x 1024 x 64, grid y and z up to 65535)"};
  const ptx::Module& mod = d.module();
  const ptx::Function* fn = nullptr;
  for (const ptx::Function& f : mod.functions)
    if (f.name == kernel && f.is_entry) fn = &f;
  if (!fn) throw CudaError{cudaErrorInvalidDeviceFunction, where + ": no .entry of that name in the loaded PTX"};
  rt::KernelArgs ka;
  for (size_t i = 0; i < fn->params.size(); ++i) {
    if (!args || !args[i])
      throw CudaError{cudaErrorInvalidValue, fmt::format("{}: argument {} is a null pointer", where, i)};
    ka.raw(args[i], mod.symbols[fn->params[i]].size);
  }
  // Dynamic shared memory beyond 48 KB per block needs the kernel's
  // opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize).
  if (const size_t max_dyn = maxDynamicShared(kernel); shared > max_dyn)
    throw CudaError{cudaErrorInvalidValue,
                    fmt::format("{}: {} bytes of dynamic shared memory, more than the {} the kernel may ask for; "
                                "above 48 KB per block it needs cudaFuncSetAttribute(kernel, "
                                "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)",
                                where, shared, max_dyn)};
  // Resources, as the hardware checks them before any block runs: the
  // launch fails, the context lives (config/occupancy.h).
  {
    const backend::CompiledModule* cm = d.compiled();
    const backend::FunctionReport* rep = cm ? cm->find(kernel) : nullptr;
    config::KernelFootprint k;
    k.threads_per_block = static_cast<uint32_t>(threads);
    k.regs_per_thread = rep ? rep->tree_regs : 0;
    k.shared_per_block = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{d.staticSharedBytes(kernel)} + shared, UINT32_MAX));
    try {
      config::computeOccupancy(cfg, k, kernel);
    } catch (const Error& e) {
      throw CudaError{cudaErrorLaunchOutOfResources, where + ": " + e.what()};
    }
  }
  rt::LaunchStats s;
  try {
    s = d.launch(kernel, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, ka, static_cast<uint32_t>(shared),
                 funcAttrs(kernel).preferred_carveout);
  } catch (const Error& e) {
    const std::string m = e.what();
    // Resources are checked before a block runs: the launch fails, the context lives.
    if (m.find("cannot launch") != std::string::npos || m.find("exceeds") != std::string::npos ||
        m.find("does not fit") != std::string::npos)
      throw CudaError{cudaErrorLaunchOutOfResources, where + ": " + m};
    const cudaError_t code = faultOf(m);
    sticky = code;  // a fault in a kernel ends the context, as on hardware
    if (failure_.empty()) failure_ = where + ": " + m;
    stopped_ = stopped_ || m.find("runaway kernel") != std::string::npos;
    throw CudaError{code, where + ": " + m};
  }
  const backend::CompiledModule* cm = d.compiled();
  const backend::FunctionReport* rep = cm ? cm->find(kernel) : nullptr;
  const double ms = timing_ ? static_cast<double>(s.cycles) / (cfg.gpu.clock_mhz * 1e3) : 0.0;
  now_ms_ += ms;
  if (auto it = streams.find(stream); it != streams.end()) it->second->last_ms = now_ms_;
  host_seconds_ += s.host_seconds;
  warp_instrs_ += s.warp_instrs;
  const uint32_t regs = rep ? rep->tree_regs : 0;
  nlohmann::json j = {{"kernel", kernel},         {"grid", dims(grid)},         {"block", dims(block)},
                      {"dynamic_shared", shared}, {"regs_per_thread", regs},    {"cycles", s.cycles},
                      {"warp_instrs", s.warp_instrs}, {"thread_instrs", s.thread_instrs},
                      {"host_seconds", s.host_seconds}, {"simulated_ms", ms}};
  launches_.push_back(j);
  nlohmann::json& k = per_kernel_[kernel];
  if (k.is_null()) k = nlohmann::json::object();
  k["launches"] = k.value("launches", 0) + 1;
  k["cycles"] = k.value("cycles", uint64_t{0}) + s.cycles;
  k["warp_instrs"] = k.value("warp_instrs", uint64_t{0}) + s.warp_instrs;
  k["thread_instrs"] = k.value("thread_instrs", uint64_t{0}) + s.thread_instrs;
  k["host_seconds"] = k.value("host_seconds", 0.0) + s.host_seconds;
  k["regs_per_thread"] = regs;
  uint32_t bps = 0;
  std::string variant = "base";
  if (timing_) {
    // Summed now, so that memory stays bounded over many launches.
    for (rt::LaunchRecord& r : d.takeLaunchRecords()) {
      bps = r.blocks_per_sm;
      variant = r.variant;
      launches_.back()["blocks_per_sm"] = bps;
      launches_.back()["carveout"] = {{"shared_kb", r.shared_kb}, {"l1d_kb", r.l1d_kb}};
      launches_.back()["variant"] = variant;
      acc_->add(std::move(r));
    }
  }
  // The exit handler again: exit() runs handlers and the destructors of
  // function-local statics in the reverse order of their registration, and
  // this launch may have made statics (tables of the model's) that the
  // results need; registered after them, the handler runs before they go.
  // (finish() runs once however often it is registered.)
  std::atexit(exitHandler);
  if (quiet_) return;
  if (totals_) totals_->clear();  // the per-launch line above it
  const std::string head = fmt::format("rfsim: {} {}", launches_.size(), where);
  if (timing_)
    std::cerr << fmt::format("{}: {} cycles, IPC {:.2f}, {} regs, {} blocks/SM{}, {:.2f} s\n", head, s.cycles,
                             s.cycles ? double(s.warp_instrs) / double(s.cycles) : 0.0, regs, bps,
                             variant == "base" ? "" : ", variant " + variant, s.host_seconds);
  else
    std::cerr << fmt::format("{}: {} warp-instrs, {} regs (functional), {:.2f} s\n", head, s.warp_instrs, regs,
                             s.host_seconds);
  showTotals();
}

void Session::showTotals() {
  if (!totals_ || !totals_->on()) return;
  // First after a second, then refreshed at most twice a second; in
  // between, shown again as it was (the per-launch line cleared it).
  if (totals_->due(0)) {
    const double secs = host_seconds_ > 0 ? host_seconds_ : 1e-9;
    totals_text_ = fmt::format("exec: {} kernels launched, {} warp instructions, {} warp-instr/s", launches_.size(),
                               ProgressLine::human(double(warp_instrs_)),
                               ProgressLine::human(double(warp_instrs_) / secs));
  }
  if (!totals_text_.empty()) totals_->show(totals_text_);
}

void Session::finish() noexcept {
  std::lock_guard<std::recursive_mutex> lock(mu);
  if (finished_) return;
  finished_ = true;
  try {
    if (!dir_) {
      // rfsim exec names a folder and expects it, even when no CUDA call came.
      if (out_required_) openResults();
      else return;
    }
    if (totals_) totals_->clear();
    const config::GpuConfig& cfg = config();
    nlohmann::json w;
    w["passed"] = failure_.empty();
    w["detail"] = failure_.empty() ? fmt::format("{} launches", launches_.size()) : failure_;
    w["command"] = command_;
    nlohmann::json launches = launches_;
    nlohmann::json kernels = per_kernel_;
    if (acc_ && acc_->count()) {
      // The full statistics of the first launches; the sums of all of them.
      const nlohmann::json& full = acc_->launches();
      for (size_t i = 0; i < full.size() && i < launches.size(); ++i) launches[i].update(full[i]);
      w["total"] = acc_->total();
      const nlohmann::json per = acc_->perKernel();
      for (const auto& [name, k] : per.items())
        if (kernels.contains(name)) kernels[name]["gpu"] = k.at("gpu");
      w["launches_with_statistics"] = acc_->launches().size();
    }
    w["launches"] = launches;
    w["kernels"] = kernels;
    uint64_t cycles = 0, wi = 0, ti = 0;
    for (const auto& l : launches_) {
      cycles += l["cycles"].get<uint64_t>();
      wi += l["warp_instrs"].get<uint64_t>();
      ti += l["thread_instrs"].get<uint64_t>();
    }
    w["summary"] = {{"launches", stat(double(launches_.size()), "count")},
                    {"cycles", stat(double(cycles), "cycle")},
                    {"warp_instrs", stat(double(wi), "count")},
                    {"thread_instrs", stat(double(ti), "count")},
                    {"simulated_ms", stat(now_ms_, "millisecond")},
                    {"wall_time", stat(host_seconds_ * 1e6, "microsecond")}};
    std::vector<std::string> enabled = cfg.mechanisms.enabledList();
    nlohmann::json run = {{"config", cfg.name}, {"mechanisms", enabled}, {"timing", timing_},
                          {"app", app_},        {"ptx", ptx_files_}};
    if (timing_) run["hierarchy"] = "hierarchy.json";
    run["request"] = request_;
    for (auto& m : mechs_)
      for (const std::string& line : m->endRun())
        if (!quiet_) std::cerr << "rfsim: " << line << "\n";
    nlohmann::json out = {{"schema", "rfsim-stats/2"}, {"run", run}, {"workloads", {{app_, w}}}};
    dir_->writeFile("stats.json", out.dump(2) + "\n");
    if (stopped_) {
      // A launch that never ended has no statistics: the folder stays
      // .partial, its INCOMPLETE naming the kernel that was stopped.
      dir_->abandon(failure_);
      std::cerr << fmt::format("rfsim: {}\nrfsim: results left incomplete: {}\n", failure_,
                               dir_->workDir().string());
      return;
    }
    dir_->commit();
    std::cerr << fmt::format("rfsim: {} kernel launches{}; results: {}\n", launches_.size(),
                             failure_.empty() ? "" : " (a kernel failed)", dir_->finalDir().string());
    dir_.reset();  // lets go of the folder's lock (the session itself is never destroyed)
  } catch (const std::exception& e) {
    std::cerr << "rfsim cudart: cannot write the results: " << e.what() << "\n";
    if (dir_) dir_->abandon(e.what());
  }
}

}  // namespace rfsim::cudart
