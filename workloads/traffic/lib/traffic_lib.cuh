// The vehicle classes of traffic. Their member functions are defined in the
// library module (lib/traffic_lib.cu); the kernels build the objects (the
// constructors are inline here) and call advance through a base-class
// pointer. nvcc emits each vtable, .weak, in the unit that constructs the
// objects (traffic.ptx), naming the methods it only declares; the model's
// linker binds them to the library's definitions.
#pragma once

struct Vehicle {
  int id;
  int pos;
  int speed;
  __device__ Vehicle(int id_, int pos_, int speed_) : id(id_), pos(pos_), speed(speed_) {}

  __device__ virtual int max_speed() const = 0;
  __device__ virtual int accelerate(int v) const = 0;
  __device__ virtual int slowdown_permille(int v) const = 0;

  // Rule 3's decision: true with probability slowdown_permille(v) / 1000.
  __device__ virtual bool dawdle(int v, int step) const;

  // One time step with `gap` free cells ahead; returns the new speed.
  __device__ virtual int advance(int gap, int step, int road_len);
};

// Fast, quick to accelerate, rarely dawdles.
struct Car : Vehicle {
  __device__ Car(int id_, int pos_, int speed_) : Vehicle(id_, pos_, speed_) {}
  __device__ int max_speed() const override;
  __device__ int accelerate(int v) const override;
  __device__ int slowdown_permille(int v) const override;
};

// Slow, accelerates by one, dawdles more when slow.
struct Truck : Vehicle {
  __device__ Truck(int id_, int pos_, int speed_) : Vehicle(id_, pos_, speed_) {}
  __device__ int max_speed() const override;
  __device__ int accelerate(int v) const override;
  __device__ int slowdown_permille(int v) const override;
};

// Medium speed. On the first four cells of a bus stop (one every
// `kStopSpacing` cells) it brakes to 1 before the rules above, so it leaves
// the stop at 2 at most, and dawdles more there.
struct Bus : Vehicle {
  static constexpr int kStopSpacing = 64;
  __device__ Bus(int id_, int pos_, int speed_) : Vehicle(id_, pos_, speed_) {}
  __device__ int max_speed() const override;
  __device__ int accelerate(int v) const override;
  __device__ int slowdown_permille(int v) const override;
  __device__ int advance(int gap, int step, int road_len) override;
};
