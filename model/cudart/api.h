// What every file of the CUDA runtime library's API includes: the export
// marker (the version script, exports.map, gives every exported name the
// version node libcudart.so.13 that nvcc-built executables ask for) and the
// session.
#pragma once

#include <string>

#include "cudart/cuda_abi.h"
#include "cudart/session.h"

#define RFSIM_API extern "C" __attribute__((visibility("default")))

namespace rfsim::cudart {

// The application's call site of a return address: "main+0x1c
// (/path/app+0x1a2c)", the function where the file's symbols name one
// (call_site.cpp).
std::string callSite(const void* return_address);
// A call the model does not implement: prints its name, `note` and the call
// site (once per name), records cudaErrorNotSupported as the last error and
// returns it (unsupported.cpp; the stubs of api_names.txt call it).
cudaError_t unsupported(const char* name, const char* note, const void* caller);

}  // namespace rfsim::cudart
