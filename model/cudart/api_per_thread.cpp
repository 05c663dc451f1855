// The per-thread default stream's forms of the calls (_ptds: no stream
// argument; _ptsz: a stream argument in which 0 means the per-thread default
// stream), which nvcc's --default-stream per-thread makes an application
// call. Every call runs to completion in issue order, so the per-thread
// default stream behaves as the legacy one and each form is its plain call.
#include "cudart/api.h"

using namespace rfsim::cudart;

RFSIM_API cudaError_t cudaMemcpy(void*, const void*, size_t, int);
RFSIM_API cudaError_t cudaMemcpyAsync(void*, const void*, size_t, int, void*);
RFSIM_API cudaError_t cudaMemcpy2D(void*, size_t, const void*, size_t, size_t, size_t, int);
RFSIM_API cudaError_t cudaMemcpy2DAsync(void*, size_t, const void*, size_t, size_t, size_t, int, void*);
RFSIM_API cudaError_t cudaMemset(void*, int, size_t);
RFSIM_API cudaError_t cudaMemsetAsync(void*, int, size_t, void*);
RFSIM_API cudaError_t cudaMemset2D(void*, size_t, int, size_t, size_t);
RFSIM_API cudaError_t cudaMemset2DAsync(void*, size_t, int, size_t, size_t, void*);
RFSIM_API cudaError_t cudaMemcpyToSymbol(const void*, const void*, size_t, size_t, int);
RFSIM_API cudaError_t cudaMemcpyFromSymbol(void*, const void*, size_t, size_t, int);
RFSIM_API cudaError_t cudaMemcpyToSymbolAsync(const void*, const void*, size_t, size_t, int, void*);
RFSIM_API cudaError_t cudaMemcpyFromSymbolAsync(void*, const void*, size_t, size_t, int, void*);
RFSIM_API cudaError_t cudaStreamSynchronize(void*);
RFSIM_API cudaError_t cudaStreamQuery(void*);
RFSIM_API cudaError_t cudaStreamWaitEvent(void*, void*, unsigned);
RFSIM_API cudaError_t cudaStreamGetFlags(void*, unsigned*);
RFSIM_API cudaError_t cudaStreamGetPriority(void*, int*);
RFSIM_API cudaError_t cudaEventRecord(void*, void*);
RFSIM_API cudaError_t cudaEventRecordWithFlags(void*, void*, unsigned);
RFSIM_API cudaError_t cudaLaunchHostFunc(void*, void (*)(void*), void*);
RFSIM_API cudaError_t cudaStreamAddCallback(void*, void (*)(void*, cudaError_t, void*), void*, unsigned);
RFSIM_API cudaError_t cudaMemPrefetchAsync(const void*, size_t, cudaMemLocation, unsigned, void*);

RFSIM_API cudaError_t cudaMemcpy_ptds(void* d, const void* s, size_t n, int k) { return cudaMemcpy(d, s, n, k); }
RFSIM_API cudaError_t cudaMemcpyAsync_ptsz(void* d, const void* s, size_t n, int k, void* st) {
  return cudaMemcpyAsync(d, s, n, k, st);
}
RFSIM_API cudaError_t cudaMemcpy2D_ptds(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, int k) {
  return cudaMemcpy2D(d, dp, s, sp, w, h, k);
}
RFSIM_API cudaError_t cudaMemcpy2DAsync_ptsz(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, int k,
                                             void* st) {
  return cudaMemcpy2DAsync(d, dp, s, sp, w, h, k, st);
}
RFSIM_API cudaError_t cudaMemset_ptds(void* p, int v, size_t n) { return cudaMemset(p, v, n); }
RFSIM_API cudaError_t cudaMemsetAsync_ptsz(void* p, int v, size_t n, void* st) { return cudaMemsetAsync(p, v, n, st); }
RFSIM_API cudaError_t cudaMemset2D_ptds(void* p, size_t pitch, int v, size_t w, size_t h) {
  return cudaMemset2D(p, pitch, v, w, h);
}
RFSIM_API cudaError_t cudaMemset2DAsync_ptsz(void* p, size_t pitch, int v, size_t w, size_t h, void* st) {
  return cudaMemset2DAsync(p, pitch, v, w, h, st);
}
RFSIM_API cudaError_t cudaMemcpyToSymbol_ptds(const void* sym, const void* s, size_t n, size_t off, int k) {
  return cudaMemcpyToSymbol(sym, s, n, off, k);
}
RFSIM_API cudaError_t cudaMemcpyFromSymbol_ptds(void* d, const void* sym, size_t n, size_t off, int k) {
  return cudaMemcpyFromSymbol(d, sym, n, off, k);
}
RFSIM_API cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* sym, const void* s, size_t n, size_t off, int k,
                                                   void* st) {
  return cudaMemcpyToSymbolAsync(sym, s, n, off, k, st);
}
RFSIM_API cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* d, const void* sym, size_t n, size_t off, int k,
                                                     void* st) {
  return cudaMemcpyFromSymbolAsync(d, sym, n, off, k, st);
}
RFSIM_API cudaError_t cudaStreamSynchronize_ptsz(void* st) { return cudaStreamSynchronize(st); }
RFSIM_API cudaError_t cudaStreamQuery_ptsz(void* st) { return cudaStreamQuery(st); }
RFSIM_API cudaError_t cudaStreamWaitEvent_ptsz(void* st, void* ev, unsigned f) { return cudaStreamWaitEvent(st, ev, f); }
RFSIM_API cudaError_t cudaStreamGetFlags_ptsz(void* st, unsigned* f) { return cudaStreamGetFlags(st, f); }
RFSIM_API cudaError_t cudaStreamGetPriority_ptsz(void* st, int* p) { return cudaStreamGetPriority(st, p); }
RFSIM_API cudaError_t cudaEventRecord_ptsz(void* ev, void* st) { return cudaEventRecord(ev, st); }
RFSIM_API cudaError_t cudaEventRecordWithFlags_ptsz(void* ev, void* st, unsigned f) {
  return cudaEventRecordWithFlags(ev, st, f);
}
RFSIM_API cudaError_t cudaLaunchHostFunc_ptsz(void* st, void (*fn)(void*), void* user) {
  return cudaLaunchHostFunc(st, fn, user);
}
RFSIM_API cudaError_t cudaStreamAddCallback_ptsz(void* st, void (*cb)(void*, cudaError_t, void*), void* user,
                                                 unsigned f) {
  return cudaStreamAddCallback(st, cb, user, f);
}
RFSIM_API cudaError_t cudaMemPrefetchAsync_ptsz(const void* p, size_t n, cudaMemLocation loc, unsigned f, void* st) {
  return cudaMemPrefetchAsync(p, n, loc, f, st);
}
