// Helpers for the functional-model tests: PTX text written to a temporary
// file and loaded through rt::Device, buffers up and down.
#pragma once

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

#include "runtime/runtime.h"

namespace rfsim::test {

// The folders writePtx made, removed when the test program exits.
class TempDirs {
 public:
  ~TempDirs() {
    std::error_code ec;
    for (const auto& d : dirs_) std::filesystem::remove_all(d, ec);
  }
  void add(const std::filesystem::path& d) {
    std::lock_guard<std::mutex> lock(mu_);
    dirs_.push_back(d);
  }

 private:
  std::mutex mu_;
  std::vector<std::filesystem::path> dirs_;
};

inline std::filesystem::path writePtx(const std::string& text, const std::string& name) {
  static std::atomic<int> counter{0};
  static TempDirs made;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("rfsim_func_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  made.add(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

struct Gpu {
  rt::Device dev;
  explicit Gpu(const std::string& ptx, const std::string& name = "test.ptx") {
    dev.loadModule(writePtx(ptx, name));
  }
  // The machine program compiled under `gpu`'s compiler.* keys (`gpu` must
  // outlive the device).
  Gpu(const std::string& ptx, const std::string& name, const config::GpuConfig& gpu) : dev(compiledWith(gpu)) {
    dev.loadModule(writePtx(ptx, name));
  }
  static rt::DeviceOptions compiledWith(const config::GpuConfig& gpu) {
    rt::DeviceOptions o;
    o.gpu = &gpu;
    return o;
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    const uint64_t a = dev.malloc(v.size() * sizeof(T));
    dev.memcpyHtoD(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  uint64_t zeros(size_t n) {
    const uint64_t a = dev.malloc(n * sizeof(T));
    dev.memset(a, 0, n * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> download(uint64_t a, size_t n) {
    std::vector<T> v(n);
    dev.memcpyDtoH(v.data(), a, n * sizeof(T));
    return v;
  }
};

// A kernel body wrapped in the module header; `params` is the .param list.
inline std::string ptxKernel(const std::string& name, const std::string& params, const std::string& body,
                             const std::string& extra = "") {
  return ".version 9.0\n.target sm_75\n.address_size 64\n" + extra + "\n.visible .entry " + name + "(" + params +
         ")\n{\n" + body + "\n}\n";
}

}  // namespace rfsim::test
