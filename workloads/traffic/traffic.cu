// Nagel-Schreckenberg traffic on a ring road (ParaPoly TRAF). Vehicles are
// C++ objects of three classes (Car, Truck, Bus) built on the device with
// placement new (construct_vehicles), so their vtable pointers are device
// addresses; traffic_step then advances every vehicle by one time step
// through a base-class pointer. The class of a vehicle is read from memory,
// so the virtual calls stay indirect calls through the vtable:
//   traffic_step -> advance (virtual; Bus::advance calls Vehicle::advance)
//                     -> accelerate, max_speed (virtual)
//                     -> dawdle (virtual) -> hash3 (non-inlined helper)
//                                           -> slowdown_permille (virtual)
// advance keeps the object pointer, the gap, the step and the speed live
// across its calls, dawdle the object, the speed and the step: callee-saved
// registers. The rules of one step, for a vehicle with gap g free cells ahead:
//   1. v = min(accelerate(v), max_speed())
//   2. v = min(v, g)                      (no collisions, no overtaking)
//   3. v = v - 1 with a probability given by a hash of (id, step), if v > 0
//   4. move v cells along the ring
// Randomness is a deterministic hash, so the CPU reference is exact. The
// host swaps two position arrays between steps: every thread reads the
// positions of the previous step only.
//
// The member functions and hash3 are the paper's library module (CARS
// compiles the common device functions as a separate module):
// lib/traffic_lib.cu, its own translation unit, which the model links with
// this one (ptx/link.h), so the virtual calls into it follow the full ABI.
// The vtables nvcc emits here name methods this unit only declares; the
// linker resolves them. Within the library hash3 is inline: weak linkage
// (.weak in the PTX), so calls to it follow the full ABI too and values live
// across a call sit in callee-saved registers (R16 up) that the callee saves
// and restores.
//
// Compiled with -rdc=true (separate compilation: the calls stay calls):
// rfsim: rdc
// rfsim: link lib/traffic_lib

#include <new>

#include "lib/traffic_lib.cuh"

// Every slot of `storage` is big enough and aligned for any of the vehicles.
struct alignas(16) VehicleSlot {
  unsigned char bytes[32];
};
static_assert(sizeof(Car) <= sizeof(VehicleSlot) && sizeof(Truck) <= sizeof(VehicleSlot) &&
                  sizeof(Bus) <= sizeof(VehicleSlot),
              "VehicleSlot too small");

// kind[i]: 0 car, 1 truck, 2 bus.
extern "C" __global__ void construct_vehicles(const int* __restrict__ kind, const int* __restrict__ pos,
                                              const int* __restrict__ speed, VehicleSlot* __restrict__ storage,
                                              Vehicle** __restrict__ vehicles, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  void* slot = &storage[i];
  Vehicle* v;
  switch (kind[i]) {
    case 0: v = new (slot) Car(i, pos[i], speed[i]); break;
    case 1: v = new (slot) Truck(i, pos[i], speed[i]); break;
    default: v = new (slot) Bus(i, pos[i], speed[i]); break;
  }
  vehicles[i] = v;
}

// Vehicles are numbered in ring order: vehicle i's leader is i + 1 (mod n),
// and since nobody overtakes, the order never changes.
extern "C" __global__ void traffic_step(Vehicle* const* __restrict__ vehicles, const int* __restrict__ pos_in,
                                        int* __restrict__ pos_out, int* __restrict__ speed_out, int n,
                                        int road_len, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int next = i + 1 == n ? 0 : i + 1;
  int gap = pos_in[next] - pos_in[i] - 1;
  if (gap < 0) gap += road_len;
  Vehicle* v = vehicles[i];
  speed_out[i] = v->advance(gap, step, road_len);
  pos_out[i] = v->pos;
}
