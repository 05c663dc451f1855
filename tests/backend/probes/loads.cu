// Probes for how ptxas counts registers: kernels from an empty one to sixteen
// loads summed. scripts/sass_regs.py decodes the highest register their SASS
// names (loads.sass_regs.txt): ptxas' count is that + 1 + 2 on every one
// (backend/backend.h: reserved_registers). e2 shows a uniform register
// (ULDC into UR4) holding the output pointer, outside the count.
// Regenerate with scripts/gen_probes.sh (nvcc 13, sm_75).
extern "C" __global__ void e0() {}
extern "C" __global__ void e1(int* o) { *o = 1; }
extern "C" __global__ void e2(int* o) { *o = threadIdx.x; }
extern "C" __global__ void e3(int* o, int a) { o[a] = a; }
extern "C" __global__ void u2(unsigned* o) { o[threadIdx.x] = 7; }
extern "C" __global__ void g1(float* o, const float* a) { int t = threadIdx.x; o[t] = a[t]; }
extern "C" __global__ void g2(float* o, const float* a, const float* b) { int t = threadIdx.x; o[t] = a[t] + b[t]; }
extern "C" __global__ void g4(float* o, const float* a, const float* b, const float* c, const float* d) {
  int t = threadIdx.x;
  o[t] = a[t] + b[t] + c[t] + d[t];
}
extern "C" __global__ void h2(float* o, const float* a) { int t = threadIdx.x; o[t] = a[t] + a[t + 1]; }
extern "C" __global__ void h4(float* o, const float* a) { int t = threadIdx.x; o[t] = a[t] + a[t + 1] + a[t + 2] + a[t + 3]; }
extern "C" __global__ void h16(float* o, const float* a) {
  int t = threadIdx.x;
  float s = 0;
  for (int k = 0; k < 16; k++) s += a[t + k];
  o[t] = s;
}
