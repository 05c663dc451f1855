#include "runtime/runtime.h"

#include "runtime/compile_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>
#include <chrono>
#include <map>
#include <optional>

#include "backend/backend.h"
#include "config/gpu_config.h"
#include "config/occupancy.h"
#include "gpu/simulation.h"
#include "gpu/gpu_stats.h"
#include "gpu/gpu_top.h"
#include "gpu/l2_warmer.h"
#include "gpu/kernel_runner.h"
#include "runtime/launch_sampler.h"
#include "mech/mechanism.h"
#include "mem/tlm/hierarchy.h"
#include "stats/stats.h"
#include "common/error.h"
#include "func/memory.h"
#include "func/program.h"
#include "ptx/link.h"
#include "ptx/parser.h"

namespace rfsim::rt {

KernelArgs& KernelArgs::raw(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  values_.emplace_back(b, b + n);
  return *this;
}

LaunchRecord::LaunchRecord() = default;
LaunchRecord::~LaunchRecord() = default;
LaunchRecord::LaunchRecord(LaunchRecord&&) noexcept = default;
LaunchRecord& LaunchRecord::operator=(LaunchRecord&&) noexcept = default;

struct Device::Impl {
  DeviceOptions options;
  std::unique_ptr<backend::CompiledModule> compiled;
  // The mechanisms' variants of the loaded module, each with its program
  // (sharing the baseline program's variables).
  struct VariantCode {
    std::unique_ptr<backend::CompiledModule> compiled;
    std::unique_ptr<func::Program> program;
  };
  std::map<std::string, VariantCode> variants;
  std::vector<LaunchRecord> records;
  func::GlobalMemory memory;
  std::unique_ptr<func::Program> program;  // the loaded module
  LaunchStats totals;
  // The GPU the timing launches run on (made at the first).
  std::unique_ptr<gpu::Simulation> sim;
  // sim.sample launches: which launches run functionally (made at the first timing launch).
  std::unique_ptr<LaunchSampler> sampler;
  // The last detailed launch's record fields, per sampling group, for the
  // records of the group's skipped launches.
  std::map<std::string, LaunchRecord> sampled_like;

  func::Program& loaded() const {
    if (!program) throw Error("no PTX module loaded (Device::loadModule)");
    return *program;
  }
};

Device::Device() : Device(DeviceOptions{}) {}

Device::Device(const DeviceOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  impl_->totals.warp_instrs_by_op.assign(static_cast<size_t>(ptx::Op::Count_), 0);
}

Device::~Device() = default;

void Device::loadModule(const std::filesystem::path& ptx_file) { loadModules({ptx_file}); }

void Device::loadModules(const std::vector<std::filesystem::path>& ptx_files) {
  ptx::Module m = ptx::parseAndLink(ptx_files);
  impl_->variants.clear();  // a second module replaces the first (and frees its variables)
  impl_->program.reset();
  impl_->compiled.reset();
  const ptx::Module source = impl_->options.machine && !impl_->options.mechanisms.empty() ? m : ptx::Module{};
  backend::CompileOptions co;
  co.max_regs = impl_->options.max_regs;
  co.regfile_regs = impl_->options.regfile_regs;
  if (impl_->options.gpu) applyGpuConfig(co, *impl_->options.gpu);
  if (impl_->options.machine) {
    auto cm = std::make_unique<backend::CompiledModule>(backend::compileModule(m, co));
    m = cm->machine;
    impl_->compiled = std::move(cm);
  }
  // A runaway kernel is stopped in functional runs too (config sim.max_instructions,
  // pipeline.livelock_cycles).
  func::Limits limits;
  if (const config::GpuConfig* g = impl_->options.gpu) {
    limits.max_warp_instrs = g->sim.max_instructions;
    limits.livelock_warp_instrs = g->pipeline.livelock_cycles;
    limits.livelock_proof_warp_instrs = g->pipeline.livelock_proof_cycles;
    limits.threads = g->sim.threads ? g->sim.threads : std::max(1u, std::thread::hardware_concurrency());
  }
  impl_->program = std::make_unique<func::Program>(std::move(m), impl_->memory, limits);
  impl_->program->setProgress(impl_->options.progress);
  if (!impl_->options.machine) return;
  // Every variant the mechanisms declare, and the combinations of composing
  // ones (mech::variantsOf), compiled once per module and checked after
  // every pass (backend/passes.h).
  for (const backend::Variant& v : mech::variantsOf(impl_->options.mechanisms)) {
    if (v.name == "base" || impl_->variants.count(v.name))
      throw Error(fmt::format("mechanisms: variant name '{}' is already taken", v.name));
    backend::CompileOptions vo = co;
    vo.variant = &v;
    Impl::VariantCode code;
    code.compiled = std::make_unique<backend::CompiledModule>(backend::compileModule(source, vo));
    code.program = std::make_unique<func::Program>(code.compiled->machine, *impl_->program, limits);
    code.program->setProgress(impl_->options.progress);
    impl_->variants.emplace(v.name, std::move(code));
  }
}

const backend::CompiledModule* Device::compiled(const std::string& variant) const {
  if (variant == "base") return impl_->compiled.get();
  auto it = impl_->variants.find(variant);
  return it == impl_->variants.end() ? nullptr : it->second.compiled.get();
}

std::vector<std::string> Device::variants() const {
  std::vector<std::string> v;
  if (impl_->compiled) v.push_back("base");
  for (const auto& [n, c] : impl_->variants) v.push_back(n);
  return v;
}

const std::vector<LaunchRecord>& Device::launchRecords() const { return impl_->records; }
std::vector<LaunchRecord> Device::takeLaunchRecords() { return std::exchange(impl_->records, {}); }

const ptx::Module& Device::module() const { return impl_->loaded().module(); }
const backend::CompiledModule* Device::compiled() const { return impl_->compiled.get(); }
const DeviceOptions& Device::options() const { return impl_->options; }

uint32_t Device::waveBlocks(const std::string& kernel, uint32_t block) const {
  const config::GpuConfig* gpu = impl_->options.gpu;
  const backend::CompiledModule* cm = compiled();
  const backend::FunctionReport* r = cm ? cm->find(kernel) : nullptr;
  if (!gpu || !r) return 0;
  const config::Occupancy o = config::computeOccupancy(*gpu, {block, r->tree_regs, staticSharedBytes(kernel)}, kernel);
  return gpu->gpu.num_sms * o.blocks;
}

uint64_t Device::malloc(size_t bytes) { return impl_->memory.allocate(bytes, func::AllocKind::Malloc); }

void Device::free(uint64_t device_address) {
  if (device_address == 0) return;
  impl_->memory.release(device_address, func::AllocKind::Malloc);
}

void Device::memcpyHtoD(uint64_t dst, const void* src, size_t bytes) { impl_->memory.write(dst, src, bytes); }

void Device::memcpyDtoH(void* dst, uint64_t src, size_t bytes) { impl_->memory.read(dst, src, bytes); }

void Device::memset(uint64_t dst, uint8_t value, size_t bytes) { impl_->memory.fill(dst, value, bytes); }

func::GlobalMemory& Device::memory() { return impl_->memory; }

uint32_t Device::staticSharedBytes(const std::string& kernel) const {
  return impl_->loaded().staticSharedBytes(kernel);
}

uint64_t Device::symbolAddress(const std::string& name) const { return impl_->loaded().symbolAddress(name); }

LaunchStats Device::launch(const std::string& kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                           uint32_t dynamic_shared_bytes, int preferred_carveout) {
  LaunchStats s;
  // The variant this launch runs: the first mechanism with a preference.
  mech::LaunchInfo info;
  info.kernel = kernel;
  info.blocks = grid.count();
  info.threads_per_block = static_cast<uint32_t>(block.count());
  info.launch_index = static_cast<uint32_t>(impl_->totals.launches);
  info.timing = impl_->options.timing;
  info.dynamic_shared = dynamic_shared_bytes;
  info.grid = grid;
  info.block = block;
  info.params = &args.values();
  info.symbol_address = [this](const std::string& name) { return symbolAddress(name); };
  // One launch of `variant` on the timing model into `out`; its record is
  // kept only for the launch that counts: a trial runs in a simulation of
  // its own, a warming launch (runtime/launch_sampler.h) in the device's.
  enum class Timed { Counted, Trial, Warming };
  auto timed = [&](const std::string& variant, LaunchStats& out, Timed kind) {
    const bool keep = kind == Timed::Counted;
    func::Program& prog = variant == "base" ? impl_->loaded() : *impl_->variants.at(variant).program;
    if (!impl_->options.gpu) throw Error("Device: timing runs need DeviceOptions::gpu (the configuration)");
    if (!impl_->compiled) throw Error("Device: timing runs need the machine program (DeviceOptions::machine)");
    const backend::CompiledModule& code = variant == "base" ? *impl_->compiled : *impl_->variants.at(variant).compiled;
    const func::LaunchSetup setup = prog.setupLaunch(kernel, grid, block, args.values(), dynamic_shared_bytes);
    const backend::FunctionReport* rep = code.find(kernel);
    out.warp_instrs_by_op.assign(static_cast<size_t>(ptx::Op::Count_), 0);
    // The GPU (gpu/kernel_runner.h): every SM of the configuration, the
    // memory hierarchy, clocked by SystemC: launch after launch in this
    // device's own simulation (gpu/simulation.h).
    // A trial runs in a simulation of its own, from empty caches, and
    // leaves the device's (its L2 and time) as the launch that counts
    // finds it: the first launch of a device starts empty too.
    std::unique_ptr<gpu::Simulation> trial_sim;
    if (kind == Timed::Trial) trial_sim = std::make_unique<gpu::Simulation>(mech::smUnitsOf(impl_->options.mechanisms));
    if (!impl_->sim) impl_->sim = std::make_unique<gpu::Simulation>(mech::smUnitsOf(impl_->options.mechanisms));
    gpu::KernelRunner::Options ro;
    ro.sim = kind == Timed::Trial ? trial_sim.get() : impl_->sim.get();
    ro.progress = impl_->options.progress;
    ro.preferred_carveout = preferred_carveout;
    // A variant's code may be cut within the launch (its blocks not yet
    // started run functionally) when every mechanism's code runs in the
    // functional model as on its hardware.
    bool functional = true;
    for (mech::Mechanism* mc : impl_->options.mechanisms) functional = functional && mc->codeRunsFunctionally();
    ro.mechanism_code = variant != "base" && !functional;
    // The base code for the blocks a cut leaves (KernelRunner::Options).
    std::optional<func::LaunchSetup> base_setup;
    const config::SampleMode sample = impl_->options.gpu->sim.sample;
    if (ro.mechanism_code && (sample == config::SampleMode::Blocks || sample == config::SampleMode::All)) {
      base_setup = impl_->loaded().setupLaunch(kernel, grid, block, args.values(), dynamic_shared_bytes);
      ro.base_program = &impl_->loaded();
      ro.base_setup = &*base_setup;
    }
    for (mech::Mechanism* mc : impl_->options.mechanisms) ro.rtl_in_loop = ro.rtl_in_loop || mc->rtlInLoop();
    gpu::KernelRunner runner(*impl_->options.gpu, prog, setup, out, rep ? rep->tree_regs : 0, nullptr, ro);
    runner.sm(0).setTrace(keep ? impl_->options.trace : nullptr);
    if (impl_->options.sm_setup)
      for (uint32_t i = 0; i < runner.numSms(); ++i) impl_->options.sm_setup(runner.sm(i), i);
    // Admission: the smallest number of blocks per SM any mechanism admits
    // (each keeps its own resources within what it admits).
    uint32_t admit = runner.sm(0).occupancy().blocks;
    if (!impl_->options.mechanisms.empty()) {
      info.class_rows = 0;
      for (mech::Mechanism* mc : impl_->options.mechanisms) info.class_rows += mc->classRows(info);
      uint32_t a = UINT32_MAX;
      for (mech::Mechanism* mc : impl_->options.mechanisms) a = std::min(a, mc->admitBlocks(info, runner.sm(0).occupancy()));
      admit = std::max<uint32_t>(a, 1);
      for (uint32_t i = 0; i < runner.numSms(); ++i) {
        if (admit != runner.sm(i).occupancy().blocks) runner.sm(i).limitBlocks(admit);
        for (mech::Mechanism* mc : impl_->options.mechanisms) {
          try {
            mc->attachSm(runner.sm(i), i);
          } catch (const Error& e) {
            const auto& all = impl_->options.mechanisms;
            if (all.size() == 1)
              throw Error(fmt::format("mechanism {}, kernel {}, attaching to SM {}: {}", mc->name(), kernel, i,
                                      e.what()));
            // Several: most likely an SM hook only one of them can hold (sm/core/sm.h).
            std::string names;
            for (mech::Mechanism* o : all) names += (names.empty() ? "" : ",") + o->name();
            throw Error(fmt::format("mechanisms {} cannot be combined: {} attaching to SM {}: {}", names, mc->name(),
                                    i, e.what()));
          }
        }
      }
    }
    const gpu::KernelRunResult r = runner.run();
    if (r.blocks_functional)
      for (mech::Mechanism* mc : impl_->options.mechanisms) mc->blocksSkipped(info, r.blocks_functional);
    out.cycles = r.cycles;
    out.host_seconds = r.host_seconds;
    out.blocks = grid.count();
    out.warps = grid.count() * ((block.count() + 31) / 32);
    out.threads = grid.count() * block.count();
    if (!keep) {
      // Every mechanism's launch ends as it began (its statistics dropped).
      for (mech::Mechanism* mc : impl_->options.mechanisms) mc->endLaunch(nullptr);
      return;
    }
    LaunchRecord rec;
    rec.kernel = kernel;
    rec.variant = variant;
    rec.regs_per_thread = rep ? rep->tree_regs : 0;
    rec.blocks_per_sm = admit;
    rec.shared_kb = runner.carveout().shared_kb;
    rec.l1d_kb = runner.carveout().l1d_kb;
    rec.cycles = r.cycles;
    rec.gpu = runner.takeStats();
    for (mech::Mechanism* mc : impl_->options.mechanisms) {
      if (auto g = mc->endLaunch(nullptr)) rec.mechanisms.push_back(std::move(g));
      if (std::string note = mc->launchNote(); !note.empty()) rec.notes[mc->name()] = std::move(note);
    }
    impl_->records.push_back(std::move(rec));
  };
  // sim.sample launches (runtime/launch_sampler.h).
  if (impl_->options.timing && impl_->options.gpu && !impl_->sampler)
    impl_->sampler = std::make_unique<LaunchSampler>(impl_->options.gpu->sim);
  LaunchSampler* sampler = impl_->sampler && impl_->sampler->enabled() ? impl_->sampler.get() : nullptr;
  std::vector<std::pair<std::string, std::map<std::string, uint64_t>>> trials_measured;
  // A launch of a stable group: the base code in the functional model, the
  // cycles the group's detailed launches had; its record has the sampling
  // statistics only (gpu.sample), and the mechanisms hear of it.
  // The record of a launch credited with extrapolated cycles: the sampling
  // statistics only, like the group's detailed launches otherwise.
  auto extrapolated = [&](const std::string& group, const LaunchStats& out, bool warming, uint64_t lines_warmed) {
    const LaunchRecord& like = impl_->sampled_like.at(group);
    LaunchRecord rec;
    rec.kernel = like.kernel, rec.variant = like.variant, rec.regs_per_thread = like.regs_per_thread;
    rec.blocks_per_sm = like.blocks_per_sm, rec.shared_kb = like.shared_kb, rec.l1d_kb = like.l1d_kb;
    rec.cycles = out.cycles;
    auto g = std::make_unique<gpu::GpuStats>(nullptr, "gpu", *impl_->options.gpu, impl_->options.gpu->gpu.num_sms);
    g->num_sms = impl_->options.gpu->gpu.num_sms;
    (warming ? g->sample.launches_warming : g->sample.launches_skipped) = 1;
    g->sample.cycles_extrapolated = out.cycles;
    if (!warming) {
      g->sample.blocks_functional = grid.count();
      g->sample.warp_instrs_functional = out.warp_instrs;
      g->sample.l2_lines_warmed = lines_warmed;
    }
    rec.gpu = std::move(g);
    impl_->records.push_back(std::move(rec));
  };
  auto skipped = [&](const std::string& group, LaunchStats& out) {
    const auto t0 = std::chrono::steady_clock::now();
    // It warms the L2 only with sim.sample_warm_skipped (docs/sampling.md,
    // "Limits"); the warming launch before each check runs in detail.
    std::unique_ptr<gpu::L2Warmer> warmer;
    const config::GpuConfig& cfg = *impl_->options.gpu;
    if (cfg.sim.sample_warm_skipped && impl_->sim && impl_->sim->hasTop())
      warmer = std::make_unique<gpu::L2Warmer>(impl_->sim->top(cfg).memory(), cfg.l2.cache.line_bytes);
    out = impl_->loaded().launch(kernel, grid, block, args.values(), dynamic_shared_bytes, warmer.get());
    out.cycles = sampler->skipped(group, out.warp_instrs);
    out.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (mech::Mechanism* mc : impl_->options.mechanisms) mc->launchSkipped(info);
    extrapolated(group, out, false, warmer ? warmer->lines() : 0);
  };
  // The mechanisms choose in order; one composing after those that chose
  // sees its variants as combined with their choice (mech/mechanism.h).
  std::string variant = "base";
  if (!impl_->variants.empty()) {
    mech::VariantTable table;
    table["base"] = impl_->compiled.get();
    for (const auto& [n, c] : impl_->variants) table[n] = c.compiled.get();
    std::string chosen;
    std::vector<std::string> choosers;
    for (mech::Mechanism* mc : impl_->options.mechanisms) {
      bool composes = true;
      for (const std::string& c : choosers) composes = composes && mech::composesAfter(mc->name(), c);
      if (!composes) break;
      const mech::VariantTable view = mech::variantsAfter(chosen, table);
      info.trial_cycles.clear();
      const std::string trial_key = LaunchSampler::key(kernel, grid, block, dynamic_shared_bytes, mc->name() + ":" + chosen);
      if (impl_->options.timing) {
        const std::vector<std::string> trials = mc->trialVariants(info, view);
        if (const auto* known = sampler ? sampler->trials(trial_key) : nullptr; known && !trials.empty()) {
          info.trial_cycles = *known;  // a stable group: the trials its last detailed launch measured
        } else if (!trials.empty()) {
          // Each trial from the memory the launch starts with; the
          // host's time spent on them counts toward the launch's.
          const func::GlobalMemory::Snapshot before = impl_->memory.snapshot();
          for (const std::string& t : trials) {
            const std::string code = mech::variantName(chosen, t, table);
            if (!view.count(t) || code.empty())
              throw Error(fmt::format("mechanism {} asked to measure variant '{}' for kernel {}, which was not compiled",
                                      mc->name(), t, kernel));
            LaunchStats ts;
            timed(code, ts, Timed::Trial);
            info.trial_cycles[t] = ts.cycles;
            s.host_seconds += ts.host_seconds;
            impl_->memory.restore(before);
          }
          trials_measured.emplace_back(trial_key, info.trial_cycles);
        }
      }
      const std::string v = mc->chooseVariant(info, view);
      if (v.empty()) continue;
      const std::string code = mech::variantName(chosen, v, table);
      if (!view.count(v) || code.empty())
        throw Error(fmt::format("mechanism {} chose variant '{}' for kernel {}, which was not compiled{}", mc->name(),
                                v, kernel, chosen.empty() ? "" : " with '" + chosen + "'"));
      chosen = code;
      choosers.push_back(mc->name());
    }
    if (!chosen.empty()) variant = chosen;
  }
  const std::string group = LaunchSampler::key(kernel, grid, block, dynamic_shared_bytes, variant);
  if (impl_->options.timing && sampler && sampler->stable(group)) {
    skipped(group, s);
  } else if (impl_->options.timing && sampler && sampler->warming(group)) {
    // In detail on the device's caches, credited as the group's launches
    // (runtime/launch_sampler.h, "Warming before a check").
    const double trial_seconds = s.host_seconds;
    timed(variant, s, Timed::Warming);
    s.host_seconds += trial_seconds;
    s.cycles = sampler->warmed(group, s.warp_instrs);
    extrapolated(group, s, true, 0);
  } else if (impl_->options.timing) {
    const double trial_seconds = s.host_seconds;
    timed(variant, s, Timed::Counted);
    s.host_seconds += trial_seconds;
    if (sampler) {
      sampler->detailed(group, s.cycles, s.warp_instrs);
      for (const auto& [k, c] : trials_measured) sampler->measuredTrials(k, group, c);
      LaunchRecord& like = impl_->sampled_like[group];
      const LaunchRecord& rec = impl_->records.back();
      like.kernel = rec.kernel, like.variant = rec.variant, like.regs_per_thread = rec.regs_per_thread;
      like.blocks_per_sm = rec.blocks_per_sm, like.shared_kb = rec.shared_kb, like.l1d_kb = rec.l1d_kb;
    }
  } else {
    func::Program& prog = variant == "base" ? impl_->loaded() : *impl_->variants.at(variant).program;
    s = prog.launch(kernel, grid, block, args.values(), dynamic_shared_bytes);
  }
  s.launches = 1;
  impl_->totals += s;
  return s;
}

const LaunchStats& Device::totals() const { return impl_->totals; }

}  // namespace rfsim::rt
