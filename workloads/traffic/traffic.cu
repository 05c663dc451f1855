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
// Member functions defined in their class are inline, and so is hash3 (the
// paper's library module): weak linkage (.weak in the PTX), so every call
// follows the full ABI and values live across a call sit in callee-saved
// registers (R16 up) that the callee saves and restores.
//
// Compiled with -rdc=true (separate compilation: the calls stay calls):
// rfsim: rdc

#include <new>

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

struct Vehicle {
  int id;
  int pos;
  int speed;
  __device__ Vehicle(int id_, int pos_, int speed_) : id(id_), pos(pos_), speed(speed_) {}

  __device__ virtual int max_speed() const = 0;
  __device__ virtual int accelerate(int v) const = 0;
  __device__ virtual int slowdown_permille(int v) const = 0;

  // Rule 3's decision: true with probability slowdown_permille(v) / 1000.
  __device__ __noinline__ virtual bool dawdle(int v, int step) const {
    unsigned h = hash3(static_cast<unsigned>(id), static_cast<unsigned>(step), 0x5EEDu);
    int p = slowdown_permille(v);
    return static_cast<int>(h % 1000u) < p;
  }

  // One time step with `gap` free cells ahead; returns the new speed.
  __device__ __noinline__ virtual int advance(int gap, int step, int road_len) {
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
};

// Fast, quick to accelerate, rarely dawdles.
struct Car : Vehicle {
  __device__ Car(int id_, int pos_, int speed_) : Vehicle(id_, pos_, speed_) {}
  __device__ int max_speed() const override { return 5; }
  __device__ int accelerate(int v) const override { return v + 2; }
  __device__ int slowdown_permille(int v) const override { return v >= 4 ? 100 : 200; }
};

// Slow, accelerates by one, dawdles more when slow.
struct Truck : Vehicle {
  __device__ Truck(int id_, int pos_, int speed_) : Vehicle(id_, pos_, speed_) {}
  __device__ int max_speed() const override { return 3; }
  __device__ int accelerate(int v) const override { return v + 1; }
  __device__ int slowdown_permille(int v) const override { return v <= 1 ? 400 : 250; }
};

// Medium speed. On the first four cells of a bus stop (one every
// `kStopSpacing` cells) it brakes to 1 before the rules above, so it leaves
// the stop at 2 at most, and dawdles more there.
struct Bus : Vehicle {
  static constexpr int kStopSpacing = 64;
  __device__ Bus(int id_, int pos_, int speed_) : Vehicle(id_, pos_, speed_) {}
  __device__ int max_speed() const override { return 4; }
  __device__ int accelerate(int v) const override { return v + 1; }
  __device__ int slowdown_permille(int v) const override { return pos % kStopSpacing < 4 ? 600 : 150 + 50 * v; }
  __device__ int advance(int gap, int step, int road_len) override {
    if (pos % kStopSpacing < 4 && speed > 1) speed = 1;
    return Vehicle::advance(gap, step, road_len);
  }
};

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
