// What every file of the CUDA runtime library's API includes: the export
// marker (the version script, exports.map, gives every exported name the
// version node libcudart.so.13 that nvcc-built executables ask for) and the
// session.
#pragma once

#include "cudart/cuda_abi.h"
#include "cudart/session.h"

#define RFSIM_API extern "C" __attribute__((visibility("default")))
