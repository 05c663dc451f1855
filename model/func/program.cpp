#include "func/program.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "common/error.h"
#include "func/executor.h"
#include "ptx/analysis/callgraph.h"
#include "ptx/analysis/cfg.h"
#include "ptx/analysis/shared_layout.h"

namespace rfsim::func {

using ptx::Space;

namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

uint64_t symAlign(const ptx::Symbol& s) { return ptx::symbolAlignment(s); }

}  // namespace

Program::Program(ptx::Module module, GlobalMemory& memory, Limits limits)
    : module_(std::move(module)), memory_(memory), limits_(limits), print_(&std::cout) {
  init(nullptr);
}

Program::Program(ptx::Module module, const Program& variables_of, Limits limits)
    : module_(std::move(module)), memory_(variables_of.memory_), limits_(limits), print_(variables_of.print_) {
  init(&variables_of);
}

void Program::init(const Program* variables_of) {
  file_name_ = std::filesystem::path(module_.file).filename().string();
  if (file_name_.empty()) file_name_ = "<ptx>";
  ptx::buildCfg(module_);
  funcs_.resize(module_.functions.size());  // never resized again: DInstr points into it
  layoutSymbols();
  // Variables first: decoding folds their addresses into the instructions.
  try {
    allocateVariables(variables_of);
    decodeFunctions();
  } catch (...) {
    releaseVariables();
    throw;
  }
}

Program::~Program() { releaseVariables(); }

void Program::releaseVariables() {
  for (uint64_t a : owned_allocs_) {
    const Allocation* al = memory_.find(a);
    if (al) memory_.release(a, al->kind);
  }
  owned_allocs_.clear();
}

void Program::layoutSymbols() {
  places_.assign(module_.symbols.size(), SymbolPlace{});
  // Function frames: locals and call-sequence .params, then the function's
  // own parameters and returns (.func only; kernel parameters are in the
  // launch's parameter buffer).
  std::vector<uint8_t> in_frame(module_.symbols.size(), 0);
  for (size_t fi = 0; fi < module_.functions.size(); ++fi) {
    const ptx::Function& fn = module_.functions[fi];
    DFunction& df = funcs_[fi];
    df.address = kCodeWindow + 16 * fi;
    uint64_t frame = 0, kparams = 0;
    auto put = [&](uint32_t s, Place p) -> uint64_t {
      if (s >= module_.symbols.size()) throw Error(fmt::format("{}: symbol {} out of range", fn.name, s));
      const ptx::Symbol& sym = module_.symbols[s];
      uint64_t& cursor = p == Place::KernelParam ? kparams : frame;
      cursor = alignUp(cursor, symAlign(sym));
      places_[s] = {p, cursor};
      in_frame[s] = 1;
      cursor += sym.size;
      return places_[s].addr;
    };
    for (uint32_t s : fn.locals) {
      const Space sp = module_.symbols[s].space;
      if (sp == Space::Local) put(s, Place::FrameLocal);
      else if (sp == Space::Param) put(s, Place::FrameParam);
    }
    for (uint32_t s : fn.params) {
      const uint64_t off = put(s, fn.is_entry ? Place::KernelParam : Place::FrameParam);
      df.param_off.push_back(static_cast<uint32_t>(off));
      df.param_size.push_back(static_cast<uint32_t>(module_.symbols[s].size));
    }
    for (uint32_t s : fn.rets) {
      const uint64_t off = put(s, Place::FrameParam);
      df.ret_off.push_back(static_cast<uint32_t>(off));
      df.ret_size.push_back(static_cast<uint32_t>(module_.symbols[s].size));
    }
    df.frame_bytes = static_cast<uint32_t>(alignUp(frame, 16));
  }
  // Module-scope and remaining symbols by state space. Shared variables as
  // ptxas places them: each kernel charged for those its code reaches
  // (ptx/analysis/shared_layout.h).
  const ptx::SharedLayout shared = ptx::layoutShared(module_, ptx::buildCallGraph(module_));
  kernel_shared_.assign(module_.functions.size(), 0);
  kernel_window_.assign(module_.functions.size(), 0);
  for (size_t f = 0; f < module_.functions.size(); ++f) {
    kernel_shared_[f] = static_cast<uint32_t>(alignUp(shared.static_bytes[f], 16));
    kernel_window_[f] = shared.uses_dynamic[f] ? std::max<uint32_t>(kernel_shared_[f], static_cast<uint32_t>(shared.dynamic_offset))
                                               : kernel_shared_[f];
  }
  uint64_t local = 0;
  for (uint32_t s = 0; s < module_.symbols.size(); ++s) {
    const ptx::Symbol& sym = module_.symbols[s];
    if (sym.is_function) {
      places_[s] = {Place::Code, kCodeWindow + 16ull * sym.function};
      continue;
    }
    if (in_frame[s]) continue;
    switch (sym.space) {
      case Space::Shared:
        places_[s] = {Place::Shared, shared.offset[s]};
        break;
      case Space::Local:
        local = alignUp(local, symAlign(sym));
        places_[s] = {Place::ModuleLocal, local};
        local += sym.size;
        break;
      case Space::Global: case Space::Const:
        places_[s] = {Place::Global, 0};  // address filled by allocateVariables
        break;
      default: break;
    }
  }
  module_local_ = static_cast<uint32_t>(alignUp(local, 16));
}

void Program::allocateVariables(const Program* variables_of) {
  std::vector<bool> shared(module_.symbols.size(), false);
  for (uint32_t s = 0; s < module_.symbols.size(); ++s) {
    const ptx::Symbol& sym = module_.symbols[s];
    if (places_[s].place != Place::Global) continue;
    if (variables_of) {
      const auto& vs = variables_of->module_.symbols;
      bool found = false;
      for (uint32_t o = 0; o < vs.size() && !found; ++o)
        if (vs[o].name == sym.name && variables_of->places_[o].place == Place::Global && variables_of->places_[o].addr) {
          places_[s].addr = variables_of->places_[o].addr;
          shared[s] = found = true;
        }
      if (found) continue;
    }
    if (sym.is_extern && sym.size == 0) continue;
    const AllocKind kind = sym.space == Space::Const ? AllocKind::Const : AllocKind::Global;
    // A __managed__ variable lives where the host can read it at the same address.
    const uint64_t a = sym.is_managed ? memory_.allocateMapped(std::max<uint64_t>(sym.size, 1), AllocKind::Managed, sym.name)
                                      : memory_.allocate(std::max<uint64_t>(sym.size, 1), kind, sym.name);
    owned_allocs_.push_back(a);
    places_[s].addr = a;
  }
  // Initialisers, once every variable has its address.
  for (uint32_t s = 0; s < module_.symbols.size(); ++s) {
    const ptx::Symbol& sym = module_.symbols[s];
    if (places_[s].place != Place::Global || places_[s].addr == 0 || shared[s]) continue;
    std::vector<uint8_t> bytes(sym.size, 0);
    std::memcpy(bytes.data(), sym.init.data(), std::min<size_t>(sym.init.size(), bytes.size()));
    for (const auto& [off, target] : sym.init_addrs) {
      if (target >= places_.size() || off + 8 > bytes.size())
        throw Error(fmt::format("{}:{}: bad address initialiser in '{}'", file_name_, sym.loc.line, sym.name));
      uint64_t v = places_[target].addr;
      if (places_[target].place == Place::Shared) v += kSharedWindow;
      std::memcpy(bytes.data() + off, &v, 8);
    }
    if (!bytes.empty()) memory_.write(places_[s].addr, bytes.data(), bytes.size());
  }
}

void Program::decodeFunctions() {
  for (uint32_t fi = 0; fi < module_.functions.size(); ++fi)
    decodeFunction(module_, fi, places_, file_name_, funcs_[fi]);
  if (module_.machine) columns_ = compactMachineColumns(funcs_);
}

// Machine programs: every warp holds a register column (32 lanes x 8
// bytes) per register the decoded code can name. The physical names run to
// R254, RZ, the predicates, the extension classes' registers and the two
// sink columns (455 columns, 114 KiB a warp), but a program uses R0 .. R<max>,
// a few extension registers if any, and the rest: the columns are renumbered
// program-wide (identity up to the highest general register any function,
// call or built-in parameter names, then the extension registers named,
// then RZ, P0..P6 and the sinks), so a warp holds only those (a 20-register
// kernel: 31 columns, 8 KiB). Program-wide because machine calls share the
// caller's register file. DInstr::reads / writes keep the physical ids (the
// timing model's).
MachineColumns compactMachineColumns(std::vector<DFunction>& funcs) {
  namespace mach = ptx::mach;
  uint32_t top = mach::kSP;  // highest general register named
  std::vector<bool> ext(mach::kNumExtRegs, false);
  auto general = [&](uint32_t r) {
    if (r == ptx::kNoReg) return;
    if (r < mach::kRZ) top = std::max(top, r);
    else if (mach::isExtReg(r)) ext[r - mach::kExtRegBase] = true;
  };
  auto operand = [&](const DOperand& o) {
    switch (o.kind) {
      case DKind::Reg: case DKind::RegNarrow: general(o.reg); break;
      case DKind::RegPair: general(o.reg); general(o.reg + 1); break;
      case DKind::Vec:
        for (unsigned i = 0; i < o.vec_n && i < 4; ++i) {
          general(o.regs[i]);
          if (o.pair && o.regs[i] != ptx::kNoReg) general(o.regs[i] + 1);
        }
        break;
      default: break;
    }
  };
  for (const DFunction& f : funcs) {
    for (const auto* locs : {&f.mach_params, &f.mach_rets})
      for (const auto& p : *locs)
        if (p.in_regs && p.nregs) general(p.first_reg + p.nregs - 1);
    for (const DInstr& d : f.code) {
      general(d.guard_reg);
      for (const DOperand& o : d.dst) operand(o);
      for (const DOperand& o : d.src) operand(o);
      if (d.call && d.call->target_reg != ptx::kNoReg && d.call->target_reg != mach::kRZ) {
        general(d.call->target_reg);
        general(d.call->target_reg + 1);
      }
    }
  }
  MachineColumns mc;
  uint32_t next = top + 1;
  if (std::find(ext.begin(), ext.end(), true) != ext.end()) {
    mc.ext_col.assign(mach::kNumExtRegs, ptx::kNoReg);
    for (uint32_t k = 0; k < mach::kNumExtRegs; ++k)
      if (ext[k]) mc.ext_col[k] = next++;
  }
  mc.row_cols = next;
  // RZ, P0..P6 (ids kRZ .. kExtRegBase - 1) and the sinks (kSinkReg, +1).
  const auto col = [&](uint32_t r) -> uint32_t {
    if (r == ptx::kNoReg || r <= top) return r;
    if (r >= mach::kRZ && r < mach::kExtRegBase) return next + (r - mach::kRZ);
    if (mach::isExtReg(r)) return mc.of(r);
    if (r >= kSinkReg && r < kMachineColumns) return next + (mach::kExtRegBase - mach::kRZ) + (r - kSinkReg);
    return r;
  };
  auto remap = [&](DOperand& o) {
    switch (o.kind) {
      case DKind::Reg: case DKind::RegNarrow: case DKind::RegPair: o.reg = col(o.reg); break;
      case DKind::Vec:
        for (unsigned i = 0; i < 4; ++i) o.regs[i] = col(o.regs[i]);
        break;
      default: break;
    }
  };
  const uint32_t ncols = next + (mach::kExtRegBase - mach::kRZ) + (kMachineColumns - kSinkReg);
  for (DFunction& f : funcs) {
    if (!f.machine) continue;
    f.nregs = ncols;
    for (DInstr& d : f.code) {
      if (d.has_guard) d.guard_reg = col(d.guard_reg);
      for (DOperand& o : d.dst) remap(o);
      for (DOperand& o : d.src) remap(o);
    }
  }
  return mc;
}

uint32_t Program::staticSharedBytes(const std::string& kernel) const {
  auto it = module_.function_index.find(kernel);
  if (it == module_.function_index.end() || !module_.functions[it->second].is_entry)
    throw Error(fmt::format("{}: no kernel (.entry) named '{}'", file_name_, kernel));
  return kernel_shared_[it->second];
}

uint64_t Program::symbolAddress(const std::string& name) const {
  auto it = module_.global_symbols.find(name);
  if (it == module_.global_symbols.end() || places_[it->second].place != Place::Global ||
      places_[it->second].addr == 0)
    throw Error(fmt::format("{}: no .global or .const variable named '{}'", file_name_, name));
  return places_[it->second].addr;
}

LaunchSetup Program::setupLaunch(const std::string& kernel, rt::Dim3 grid, rt::Dim3 block,
                                 const std::vector<std::vector<uint8_t>>& args, uint32_t dynamic_shared_bytes) {
  auto fit = module_.function_index.find(kernel);
  if (fit == module_.function_index.end() || !module_.functions[fit->second].is_entry)
    throw Error(fmt::format("{}: no kernel (.entry) named '{}'", file_name_, kernel));
  const DFunction& k = funcs_[fit->second];
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
    throw Error(fmt::format("launch of {}: grid ({},{},{}) and block ({},{},{}) dimensions must be positive",
                            kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z));
  if (block.count() > 1024)
    throw Error(fmt::format("launch of {}: block ({},{},{}) has {} threads, more than 1024", kernel, block.x,
                            block.y, block.z, block.count()));
  if (block.z > 64) throw Error(fmt::format("launch of {}: block z dimension {} exceeds 64", kernel, block.z));
  if (grid.y > 65535 || grid.z > 65535)
    throw Error(fmt::format("launch of {}: grid y/z dimensions ({}, {}) exceed 65535", kernel, grid.y, grid.z));
  const ptx::Function& kf = *k.fn;
  if (kf.reqntid[0] && (block.x != kf.reqntid[0] || block.y != std::max(1u, kf.reqntid[1]) ||
                        block.z != std::max(1u, kf.reqntid[2])))
    throw Error(fmt::format("launch of {}: block ({},{},{}) differs from the kernel's .reqntid {}, {}, {}", kernel,
                            block.x, block.y, block.z, kf.reqntid[0], kf.reqntid[1], kf.reqntid[2]));
  if (kf.maxntid[0] && block.count() > uint64_t{kf.maxntid[0]} * std::max(1u, kf.maxntid[1]) *
                                           std::max(1u, kf.maxntid[2]))
    throw Error(fmt::format("launch of {}: block ({},{},{}) has more threads than the kernel's .maxntid {}, {}, {}",
                            kernel, block.x, block.y, block.z, kf.maxntid[0], kf.maxntid[1], kf.maxntid[2]));
  const uint32_t static_shared = kernel_shared_[fit->second];
  if (static_cast<uint64_t>(static_shared) + dynamic_shared_bytes > (228u << 10))
    throw Error(fmt::format("launch of {}: {} bytes of static and {} of dynamic shared memory exceed 228 KiB",
                            kernel, static_shared, dynamic_shared_bytes));
  if (args.size() != k.param_off.size())
    throw Error(fmt::format("launch of {}: {} arguments given, the kernel has {} parameters", kernel, args.size(),
                            k.param_off.size()));
  uint64_t pbytes = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].size() != k.param_size[i])
      throw Error(fmt::format("launch of {}: argument {} has {} bytes, parameter '{}' has {}", kernel, i,
                              args[i].size(), module_.symbols[k.fn->params[i]].name, k.param_size[i]));
    pbytes = std::max<uint64_t>(pbytes, k.param_off[i] + k.param_size[i]);
  }
  std::vector<uint8_t> params(pbytes, 0);
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i].empty()) std::memcpy(params.data() + k.param_off[i], args[i].data(), args[i].size());

  return LaunchSetup{&k, grid, block, std::move(params), dynamic_shared_bytes, launches_++, static_shared,
                     kernel_window_[fit->second] + dynamic_shared_bytes};
}

rt::LaunchStats Program::launch(const std::string& kernel, rt::Dim3 grid, rt::Dim3 block,
                                const std::vector<std::vector<uint8_t>>& args, uint32_t dynamic_shared_bytes,
                                AccessSink* sink) {
  rt::LaunchStats stats;
  stats.warp_instrs_by_op.assign(static_cast<size_t>(ptx::Op::Count_), 0);
  const auto t0 = std::chrono::steady_clock::now();
  const LaunchSetup setup = setupLaunch(kernel, grid, block, args, dynamic_shared_bytes);
  if (progress_) progress_->begin();
  struct ClearLine {
    ProgressLine* p;
    ~ClearLine() {
      if (p) p->clear();
    }
  } clear_line{progress_};
  uint64_t done = 0;
  const uint64_t total = grid.count();
  const unsigned threads = static_cast<unsigned>(std::min<uint64_t>(limits_.threads, total));
  if (threads > 1 && !sink && blockOrderDependence(*setup.kernel).empty()) {
    runBlocksConcurrently(setup, stats, threads, [&](uint64_t n) {
      if (!progress_ || !progress_->due(0)) return;
      const double secs = progress_->elapsed();
      progress_->show(fmt::format("kernel {}: {} of {} blocks on {} threads, ETA {:.0f} s", kernel, n, total,
                                  threads, secs * double(total - n) / double(n)));
    });
  } else {
    BlockExecutor exec(*this, setup, stats);
    exec.setAccessSink(sink);
    for (uint32_t z = 0; z < grid.z; ++z)
      for (uint32_t y = 0; y < grid.y; ++y)
        for (uint32_t x = 0; x < grid.x; ++x) {
          exec.run({x, y, z});
          ++done;
          if (progress_ && progress_->due(0)) {
            const double secs = progress_->elapsed();
            progress_->show(fmt::format("kernel {}: {} of {} blocks, {} warp-instr/s, ETA {:.0f} s", kernel, done, total,
                                        ProgressLine::human(double(stats.warp_instrs) / secs),
                                        secs * double(total - done) / double(done)));
          }
        }
  }
  stats.blocks = grid.count();
  stats.warps = grid.count() * ((block.count() + 31) / 32);
  stats.threads = grid.count() * block.count();
  stats.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return stats;
}

}  // namespace rfsim::func
