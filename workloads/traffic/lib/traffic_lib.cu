// The library module of traffic (traffic.cu has the kernels): the vehicles'
// member functions and the hash behind their random slowdowns, compiled as
// their own translation unit as the CARS paper compiles the common device
// functions (a separate module); the model links the two modules
// (ptx/link.h) as nvlink does. nvcc compiles each unit without knowing the
// other, so the kernels' virtual calls into this unit follow the full ABI.
// The member functions are strong, visible definitions (the vtables that
// point at them are in the kernels' unit), so a virtual call within this
// unit may rely on the registers its possible targets, all of them here,
// leave alone. hash3 has weak linkage (`inline`: .weak in the PTX), as
// library code another module may replace at link time, so calls to it
// follow the full ABI and values live across them sit in callee-saved
// registers (R16 up) that the callee saves and restores.
// rfsim: rdc

#include "traffic_lib.cuh"

#define LIB __device__ __noinline__ inline

// A 32-bit integer hash of a vehicle's id, the time step and a salt
// (lowbias32 by Chris Wellons, applied to a combination of the three).
LIB unsigned hash3(unsigned id, unsigned step, unsigned salt) {
  unsigned h = id * 0x9E3779B1u ^ (step + 0x7F4A7C15u) * 0x85EBCA77u ^ salt * 0xC2B2AE3Du;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

__device__ __noinline__ bool Vehicle::dawdle(int v, int step) const {
  unsigned h = hash3(static_cast<unsigned>(id), static_cast<unsigned>(step), 0x5EEDu);
  int p = slowdown_permille(v);
  return static_cast<int>(h % 1000u) < p;
}

__device__ __noinline__ int Vehicle::advance(int gap, int step, int road_len) {
  int v = accelerate(speed);
  int vmax = max_speed();
  if (v > vmax) v = vmax;
  if (v > gap) v = gap;
  if (v > 0 && dawdle(v, step)) v -= 1;
  speed = v;
  pos += v;
  if (pos >= road_len) pos -= road_len;
  return v;
}

__device__ int Car::max_speed() const { return 5; }
__device__ int Car::accelerate(int v) const { return v + 2; }
__device__ int Car::slowdown_permille(int v) const { return v >= 4 ? 100 : 200; }

__device__ int Truck::max_speed() const { return 3; }
__device__ int Truck::accelerate(int v) const { return v + 1; }
__device__ int Truck::slowdown_permille(int v) const { return v <= 1 ? 400 : 250; }

__device__ int Bus::max_speed() const { return 4; }
__device__ int Bus::accelerate(int v) const { return v + 1; }
__device__ int Bus::slowdown_permille(int v) const { return pos % kStopSpacing < 4 ? 600 : 150 + 50 * v; }
__device__ __noinline__ int Bus::advance(int gap, int step, int road_len) {
  if (pos % kStopSpacing < 4 && speed > 1) speed = 1;
  return Vehicle::advance(gap, step, road_len);
}
