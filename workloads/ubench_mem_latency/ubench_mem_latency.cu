// Global-memory load latency per level of the hierarchy by pointer chasing:
// one thread follows a chain of dependent loads (`ld.global.u64 p, [p]`),
// each word holding the absolute device address of the next, one word per
// visited 128-byte line, so no two consecutive loads share a line. The host
// lays out one chain per footprint (L1-, L2- and DRAM-sized) and launches
// this kernel once for each: `warm` untimed loads, then `timed` loads
// between two reads of %clock64, both counts multiples of UNROLL.
//
// The chase is inline PTX (asm volatile): nvcc can neither fold it (every
// address comes from global memory) nor reorder it against the clock reads.
// Each clock read waits for the chain's last value (clock_after): without
// that, in-order issue would read %clock64 while the last warm-up load is
// still in flight (its latency, from another level, would land in the timed
// region) and the final read would not wait for the last timed load.

#define UNROLL 32

// %clock64 once `p` has arrived: the comparison needs p, so it (and the
// branch around the never-taken trap, and the clock read behind them in
// program order) cannot issue before the load that writes p completes.
__device__ __forceinline__ unsigned long long clock_after(unsigned long long p) {
  if (p == 0) __trap();  // no chain holds a null address
  return clock64();
}

extern "C" __global__ void mem_chase(const unsigned long long* __restrict__ start, unsigned long long* __restrict__ end,
                                     unsigned long long* __restrict__ clk, double* __restrict__ cycles_per_load,
                                     int warm, int timed) {
  unsigned long long p = reinterpret_cast<unsigned long long>(start);
  unsigned long long t0 = 0, t1 = 0;
  // Phase 0 chases `warm` loads, phase 1 `timed`, through the same code: the
  // timed phase runs instructions the warm-up already brought into the L1I
  // (two copies of the loop would leave the timed copy cold, and an L1I miss
  // costs more than an L1D hit).
#pragma unroll 1
  for (int phase = 0; phase < 2; ++phase) {
    const int loads = phase == 0 ? warm : timed;
#pragma unroll 1
    for (int i = 0; i < loads; i += UNROLL) {
#pragma unroll
      for (int k = 0; k < UNROLL; ++k) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p));
    }
    const unsigned long long t = clock_after(p);
    t0 = t1;  // after phase 1: t0 ends the warm-up, t1 the timed loads
    t1 = t;
  }
  *end = p;
  *clk = t1 - t0;
  *cycles_per_load = static_cast<double>(t1 - t0) / static_cast<double>(timed);
}
