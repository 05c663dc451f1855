// Probes for the operations ptxas expands into several SASS instructions
// (backend/prealloc_scratch.cpp): each kernel applies one operation to
// loaded values; the register count ptxas gives it, against the same
// kernel with a single-instruction operation (k_fmul, k_fexp, k_dmul), is
// what the expansion needs beside its operands.
// Regenerate with scripts/gen_probes.sh (nvcc 13, sm_75).
extern "C" __global__ void k_fmul(float* o, const float* a, const float* b) { int t = threadIdx.x; o[t] = a[t] * b[t]; }
extern "C" __global__ void k_fdiv(float* o, const float* a, const float* b) { int t = threadIdx.x; o[t] = a[t] / b[t]; }
extern "C" __global__ void k_fdivc(float* o, const float* a) { int t = threadIdx.x; o[t] = a[t] / 255.0f; }
extern "C" __global__ void k_fexp(float* o, const float* a) { int t = threadIdx.x; o[t] = __expf(a[t]); }
extern "C" __global__ void k_fsqrt(float* o, const float* a) { int t = threadIdx.x; o[t] = sqrtf(a[t]); }
extern "C" __global__ void k_frcp(float* o, const float* a) { int t = threadIdx.x; o[t] = 1.0f / a[t]; }
extern "C" __global__ void k_idiv(int* o, const int* a, const int* b) { int t = threadIdx.x; o[t] = a[t] / b[t]; }
extern "C" __global__ void k_udiv(unsigned* o, const unsigned* a, const unsigned* b) { int t = threadIdx.x; o[t] = a[t] / b[t]; }
extern "C" __global__ void k_irem(int* o, const int* a, const int* b) { int t = threadIdx.x; o[t] = a[t] % b[t]; }
extern "C" __global__ void k_dmul(double* o, const double* a, const double* b) { int t = threadIdx.x; o[t] = a[t] * b[t]; }
extern "C" __global__ void k_ddiv(double* o, const double* a, const double* b) { int t = threadIdx.x; o[t] = a[t] / b[t]; }
extern "C" __global__ void k_dsqrt(double* o, const double* a) { int t = threadIdx.x; o[t] = sqrt(a[t]); }
extern "C" __global__ void k_drcp(double* o, const double* a) { int t = threadIdx.x; o[t] = 1.0 / a[t]; }
extern "C" __global__ void k_i64div(long long* o, const long long* a, const long long* b) { int t = threadIdx.x; o[t] = a[t] / b[t]; }
