// Kernels over aggregates_cases.h: by-value aggregates through __noinline__
// device functions. The PTX beside it (nvcc 13.0, see README.md):
//   nvcc -arch=sm_75 -Wno-deprecated-declarations -ptx aggregates.cu -o aggregates.ptx
//   nvcc -arch=sm_75 -rdc=true -Wno-deprecated-declarations -ptx aggregates.cu -o aggregates_rdc.ptx
#include "aggregates_cases.h"

#define AGG_KERNEL(name, fn)                                   \
  extern "C" __global__ void name(unsigned* out, unsigned n) { \
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;  \
    if (i < n) out[i] = agg::fn(i);                            \
  }
AGG_KERNEL(agg_scalar_sizes, caseScalarSizes)
AGG_KERNEL(agg_vectors, caseVectors)
AGG_KERNEL(agg_bytes, caseBytes)
AGG_KERNEL(agg_stack, caseStack)
