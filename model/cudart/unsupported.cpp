// What a call this library does not implement does: one line naming it,
// then cudaErrorNotSupported (the stubs are generated from api_names.txt).
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "cudart/cuda_abi.h"

extern "C" int rfsim_cudart_unsupported(const char* name) {
  static std::mutex mu;
  static std::set<std::string> told;
  std::lock_guard<std::mutex> lock(mu);
  if (told.insert(name).second)
    std::fprintf(stderr, "rfsim cudart: %s is not implemented by the model's CUDA runtime; it returns "
                         "cudaErrorNotSupported (docs/cudart.md lists what is)\n", name);
  return rfsim::cudart::cudaErrorNotSupported;
}
