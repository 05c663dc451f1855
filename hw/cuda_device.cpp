// rt::Device (model/runtime/runtime.h) over the CUDA driver API, so that the
// workloads' host drivers, unchanged, run their kernels on a real NVIDIA GPU:
// the same PTX the model runs is JIT-compiled and linked by the driver
// (cuLink*, as the device linker would for -rdc modules), launched with the
// same arguments, and checked against the same CPU references.
//
// This file replaces model/runtime/runtime.cpp in rfsim-hw only; the two are
// never linked together. What the model alone has (the compiled module, its
// variants, the functional memory, timing records) is not defined here, and a
// driver that used it would not link.
#include "hw/hw_device.h"

#include <cuda.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

namespace rfsim::rt {

namespace {

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  throw std::runtime_error(fmt::format("{}: {} ({})", what, name ? name : "?", text ? text : "?"));
}

std::vector<hw::LaunchTime>& launchLog() {
  static std::vector<hw::LaunchTime> log;
  return log;
}

}  // namespace

KernelArgs& KernelArgs::raw(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  values_.emplace_back(b, b + n);
  return *this;
}

struct Device::Impl {
  DeviceOptions options;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  CUgreenCtx green = nullptr;  // with an SM limit (hw::smLimit)
  CUstream stream = nullptr;    // the green context's stream; else the NULL stream
  CUevent start = nullptr, stop = nullptr;
  std::unordered_map<std::string, CUfunction> functions;
  LaunchStats totals;
};

Device::Device() : Device(DeviceOptions{}) {}

Device::Device(const DeviceOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  check(cuInit(0), "cuInit");
  check(cuDeviceGet(&impl_->device, hw::deviceOrdinal()), "cuDeviceGet");
  if (hw::smLimit() > 0) {
    // A green context over a partition of the GPU's SMs (driver API 12.4+),
    // so that the workloads load each SM as they load the model's --sms N.
    // The driver rounds the count up to its partition granularity (8 SMs
    // on sm_90); the count it gave is what hw::smCount() reports.
    CUdevResource all{}, part{}, rest{};
    check(cuDeviceGetDevResource(impl_->device, &all, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
    unsigned groups = 1;
    check(cuDevSmResourceSplitByCount(&part, &groups, &all, &rest, 0, unsigned(hw::smLimit())),
          "cuDevSmResourceSplitByCount");
    CUdevResourceDesc desc = nullptr;
    check(cuDevResourceGenerateDesc(&desc, &part, 1), "cuDevResourceGenerateDesc");
    check(cuGreenCtxCreate(&impl_->green, desc, impl_->device, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
    check(cuCtxFromGreenCtx(&impl_->context, impl_->green), "cuCtxFromGreenCtx");
    check(cuCtxSetCurrent(impl_->context), "cuCtxSetCurrent");
    check(cuGreenCtxStreamCreate(&impl_->stream, impl_->green, CU_STREAM_NON_BLOCKING, 0), "cuGreenCtxStreamCreate");
    hw::smCountRef() = int(part.sm.smCount);
  } else {
    // The primary context: the one the CUDA runtime would use.
    check(cuDevicePrimaryCtxRetain(&impl_->context, impl_->device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(impl_->context), "cuCtxSetCurrent");
    int sms = 0;
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, impl_->device);
    hw::smCountRef() = sms;
  }
  check(cuEventCreate(&impl_->start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cuEventCreate(&impl_->stop, CU_EVENT_DEFAULT), "cuEventCreate");
}

Device::~Device() {
  if (impl_->module) cuModuleUnload(impl_->module);
  cuEventDestroy(impl_->start);
  cuEventDestroy(impl_->stop);
  if (impl_->green) {
    cuStreamDestroy(impl_->stream);
    cuGreenCtxDestroy(impl_->green);
  } else {
    cuDevicePrimaryCtxRelease(impl_->device);
  }
}

void Device::loadModule(const std::filesystem::path& ptx_file) { loadModules({ptx_file}); }

void Device::loadModules(const std::vector<std::filesystem::path>& ptx_files) {
  if (impl_->module) throw std::runtime_error("rfsim-hw: a device loads one program");
  std::vector<char> error_log(16384, '\0');
  // With hw::maxRegisters, the JIT allocates every function under that limit, as
  // nvcc --maxrregcount (and the model's --maxrregcount) would.
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_MAX_REGISTERS};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(error_log.size()),
                    reinterpret_cast<void*>(uintptr_t(unsigned(hw::maxRegisters())))};
  CUlinkState link = nullptr;
  check(cuLinkCreate(hw::maxRegisters() > 0 ? 3 : 2, opts, values, &link), "cuLinkCreate");
  try {
    for (const auto& f : ptx_files) {
      std::ifstream in(f, std::ios::binary);
      if (!in) throw std::runtime_error(fmt::format("{}: cannot read", f.string()));
      std::stringstream text;
      text << in.rdbuf();
      std::string ptx = text.str();
      CUresult r = cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx.data(), ptx.size() + 1, f.string().c_str(), 0,
                                 nullptr, nullptr);
      if (r != CUDA_SUCCESS)
        check(r, fmt::format("{}: JIT compilation failed: {}", f.string(), error_log.data()).c_str());
    }
    void* cubin = nullptr;
    size_t size = 0;
    CUresult r = cuLinkComplete(link, &cubin, &size);
    if (r != CUDA_SUCCESS) check(r, fmt::format("linking failed: {}", error_log.data()).c_str());
    check(cuModuleLoadData(&impl_->module, cubin), "cuModuleLoadData");
  } catch (...) {
    cuLinkDestroy(link);
    throw;
  }
  cuLinkDestroy(link);
}

const DeviceOptions& Device::options() const { return impl_->options; }

uint32_t Device::waveBlocks(const std::string& kernel, uint32_t block) const {
  if (!impl_->module) throw std::runtime_error("waveBlocks before any module was loaded");
  CUfunction f = nullptr;
  check(cuModuleGetFunction(&f, impl_->module, kernel.c_str()), ("cuModuleGetFunction " + kernel).c_str());
  int per_sm = 0;
  check(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, int(block), 0),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return uint32_t(per_sm) * uint32_t(hw::smCountRef());
}

uint64_t Device::malloc(size_t bytes) {
  CUdeviceptr p = 0;
  check(cuMemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc");
  return p;
}

void Device::free(uint64_t device_address) { check(cuMemFree(device_address), "cuMemFree"); }

void Device::memcpyHtoD(uint64_t dst, const void* src, size_t bytes) {
  // On the kernels' stream, then waited for: a pageable copy may return before
  // its DMA ends, and a green context's stream does not wait for the NULL one.
  check(cuMemcpyHtoDAsync(dst, src, bytes, impl_->stream), "cuMemcpyHtoDAsync");
  check(cuStreamSynchronize(impl_->stream), "cuMemcpyHtoDAsync");
}

void Device::memcpyDtoH(void* dst, uint64_t src, size_t bytes) {
  check(cuMemcpyDtoHAsync(dst, src, bytes, impl_->stream), "cuMemcpyDtoHAsync");
  check(cuStreamSynchronize(impl_->stream), "cuMemcpyDtoHAsync");
}

void Device::memset(uint64_t dst, uint8_t value, size_t bytes) {
  check(cuMemsetD8Async(dst, value, bytes, impl_->stream), "cuMemsetD8Async");
  check(cuStreamSynchronize(impl_->stream), "cuMemsetD8Async");
}

uint64_t Device::symbolAddress(const std::string& name) const {
  CUdeviceptr p = 0;
  size_t bytes = 0;
  check(cuModuleGetGlobal(&p, &bytes, impl_->module, name.c_str()), ("cuModuleGetGlobal " + name).c_str());
  return p;
}

LaunchStats Device::launch(const std::string& kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                           uint32_t dynamic_shared_bytes, int preferred_carveout) {
  if (!impl_->module) throw std::runtime_error("launch before any module was loaded");
  auto it = impl_->functions.find(kernel);
  if (it == impl_->functions.end()) {
    CUfunction f = nullptr;
    check(cuModuleGetFunction(&f, impl_->module, kernel.c_str()), ("cuModuleGetFunction " + kernel).c_str());
    it = impl_->functions.emplace(kernel, f).first;
  }
  CUfunction f = it->second;
  if (dynamic_shared_bytes > 48 * 1024)
    check(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(dynamic_shared_bytes)),
          "cuFuncSetAttribute");
  // The driver's carve-out hint, as the application gave it (-1: none).
  if (preferred_carveout >= 0)
    check(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, preferred_carveout),
          "cuFuncSetAttribute (preferred carve-out)");
  std::vector<void*> params;
  for (const auto& v : args.values()) params.push_back(const_cast<uint8_t*>(v.data()));

  check(cuEventRecord(impl_->start, impl_->stream), "cuEventRecord");
  check(cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, dynamic_shared_bytes,
                       impl_->stream, params.data(), nullptr),
        fmt::format("launch of {}", kernel).c_str());
  check(cuEventRecord(impl_->stop, impl_->stream), "cuEventRecord");
  check(cuEventSynchronize(impl_->stop), fmt::format("kernel {}", kernel).c_str());
  float ms = 0.0f;
  check(cuEventElapsedTime(&ms, impl_->start, impl_->stop), "cuEventElapsedTime");

  hw::LaunchTime t;
  t.kernel = kernel;
  t.ms = ms;
  cuFuncGetAttribute(&t.regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
  cuFuncGetAttribute(&t.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
  t.blocks = grid.count();
  t.threads_per_block = block.count();
  launchLog().push_back(t);

  LaunchStats s;
  s.blocks = grid.count();
  s.threads = grid.count() * block.count();
  s.warps = grid.count() * ((block.count() + 31) / 32);
  s.launches = 1;
  s.host_seconds = ms / 1000.0;
  impl_->totals.blocks += s.blocks;
  impl_->totals.threads += s.threads;
  impl_->totals.warps += s.warps;
  impl_->totals.launches += 1;
  impl_->totals.host_seconds += s.host_seconds;
  return s;
}

const LaunchStats& Device::totals() const { return impl_->totals; }

}  // namespace rfsim::rt

namespace rfsim::hw {

std::vector<LaunchTime> takeLaunchLog() {
  std::vector<LaunchTime> out;
  out.swap(rt::launchLog());
  return out;
}

std::string deviceName() {
  if (cuInit(0) != CUDA_SUCCESS) return "?";
  CUdevice d = 0;
  if (cuDeviceGet(&d, deviceOrdinal()) != CUDA_SUCCESS) return "?";
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, d);
  int sms = 0, major = 0, minor = 0, clock_khz = 0;
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
  cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d);
  int driver = 0;
  cuDriverGetVersion(&driver);
  return fmt::format("{} (sm_{}{}, {} SMs, {} MHz; driver API {}.{})", name, major, minor, sms, clock_khz / 1000,
                     driver / 1000, driver % 1000 / 10);
}

int& smLimitRef() {
  static int limit = 0;
  return limit;
}
int smLimit() { return smLimitRef(); }
int& maxRegistersRef() {
  static int limit = 0;
  return limit;
}
int maxRegisters() { return maxRegistersRef(); }
int& smCountRef() {
  static int count = 0;
  return count;
}

int& deviceOrdinalRef() {
  static int ordinal = 0;
  return ordinal;
}
int deviceOrdinal() { return deviceOrdinalRef(); }

}  // namespace rfsim::hw
