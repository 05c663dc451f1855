#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

constexpr size_t kSlotBytes = 32;  // sizeof(VehicleSlot) in traffic.cu
constexpr int kStopSpacing = 64;   // Bus::kStopSpacing

// The device code of traffic.cu, on the host.
uint32_t hash3(uint32_t id, uint32_t step, uint32_t salt) {
  uint32_t h = id * 0x9E3779B1u ^ (step + 0x7F4A7C15u) * 0x85EBCA77u ^ salt * 0xC2B2AE3Du;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

struct RefVehicle {
  int kind;  // 0 car, 1 truck, 2 bus
  int pos;
  int speed;
};

int maxSpeed(int kind) { return kind == 0 ? 5 : kind == 1 ? 3 : 4; }
int accelerate(int kind, int v) { return v + (kind == 0 ? 2 : 1); }
int slowdownPermille(const RefVehicle& r, int v) {
  switch (r.kind) {
    case 0: return v >= 4 ? 100 : 200;
    case 1: return v <= 1 ? 400 : 250;
    default: return r.pos % kStopSpacing < 4 ? 600 : 150 + 50 * v;
  }
}

// One step of every vehicle from the positions of the previous step.
// Returns how many vehicles dawdled.
int refStep(std::vector<RefVehicle>& veh, int road_len, int step) {
  const int n = int(veh.size());
  std::vector<int> old(n);
  for (int i = 0; i < n; ++i) old[i] = veh[i].pos;
  int dawdled = 0;
  for (int i = 0; i < n; ++i) {
    RefVehicle& r = veh[i];
    int gap = old[(i + 1) % n] - old[i] - 1;
    if (gap < 0) gap += road_len;
    if (r.kind == 2 && r.pos % kStopSpacing < 4 && r.speed > 1) r.speed = 1;
    int v = std::min(accelerate(r.kind, r.speed), maxSpeed(r.kind));
    v = std::min(v, gap);
    if (v > 0 && int(hash3(uint32_t(i), uint32_t(step), 0x5EEDu) % 1000u) < slowdownPermille(r, v)) {
      --v;
      ++dawdled;
    }
    r.speed = v;
    r.pos += v;
    if (r.pos >= road_len) r.pos -= road_len;
  }
  return dawdled;
}

Check runTraffic(rt::Device& dev, Size size) {
  // Small: 1024 vehicles on 4096 cells, 10 steps. Large: 16384 vehicles on
  // 65536 cells, 30 steps (48x the vehicle updates).
  const int n = size == Size::Small ? 1024 : 16384;
  const int road_len = 4 * n;
  const int steps = size == Size::Small ? 10 : 30;
  Rng rng(59);
  // n distinct cells in increasing order (selection sampling), so vehicle
  // i + 1 is the one ahead of vehicle i.
  std::vector<int> kind(n), pos(n), speed(n);
  for (int c = 0, chosen = 0; c < road_len && chosen < n; ++c) {
    if (int(rng.below(uint32_t(road_len - c))) < n - chosen) pos[chosen++] = c;
  }
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    uint32_t r = rng.below(100);
    kind[i] = r < 60 ? 0 : r < 85 ? 1 : 2;  // 60 % cars, 25 % trucks, 15 % buses
    ++counts[kind[i]];
    speed[i] = int(rng.below(uint32_t(maxSpeed(kind[i]) + 1)));
  }

  DeviceBuffer d_kind(dev, kind), d_pos_a(dev, pos), d_pos_b(dev, pos), d_speed0(dev, speed);
  DeviceBuffer d_storage(dev, n * kSlotBytes), d_vehicles(dev, n * sizeof(uint64_t)),
      d_speed(dev, n * sizeof(int));
  const uint32_t block = 128, grid = ceilDiv(n, block);
  dev.launch("construct_vehicles", {grid}, {block},
             rt::KernelArgs()
                 .ptr(d_kind.addr())
                 .ptr(d_pos_a.addr())
                 .ptr(d_speed0.addr())
                 .ptr(d_storage.addr())
                 .ptr(d_vehicles.addr())
                 .i32(n));
  const DeviceBuffer* cur = &d_pos_a;
  const DeviceBuffer* nxt = &d_pos_b;
  for (int s = 0; s < steps; ++s) {
    dev.launch("traffic_step", {grid}, {block},
               rt::KernelArgs()
                   .ptr(d_vehicles.addr())
                   .ptr(cur->addr())
                   .ptr(nxt->addr())
                   .ptr(d_speed.addr())
                   .i32(n)
                   .i32(road_len)
                   .i32(s));
    std::swap(cur, nxt);
  }

  std::vector<RefVehicle> veh(n);
  for (int i = 0; i < n; ++i) veh[i] = {kind[i], pos[i], speed[i]};
  long dawdled = 0;
  for (int s = 0; s < steps; ++s) dawdled += refStep(veh, road_len, s);
  std::vector<int> ref_pos(n), ref_speed(n);
  long speed_sum = 0;
  for (int i = 0; i < n; ++i) {
    ref_pos[i] = veh[i].pos;
    ref_speed[i] = veh[i].speed;
    speed_sum += veh[i].speed;
  }

  const std::string what = fmt::format("{} vehicles ({} cars, {} trucks, {} buses) on a ring of {} cells after {} steps",
                                       n, counts[0], counts[1], counts[2], road_len, steps);
  Check c = compareExact(cur->download<int>(n), ref_pos, "final positions of " + what);
  if (!c.passed) return c;
  Check cs = compareExact(d_speed.download<int>(n), ref_speed, "final speeds");
  if (!cs.passed) return cs;
  c.detail += fmt::format("; final speeds, exact match (mean {:.2f} cells/step, {} random slowdowns in all)",
                          double(speed_sum) / n, dawdled);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("traffic",
               "Nagel-Schreckenberg traffic on a ring road (ParaPoly TRAF): Car/Truck/Bus objects built on the device, "
               "virtual advance/dawdle calls (indirect), hashed slowdowns",
               "workloads/traffic/traffic.ptx", {"calls", "indirect-calls", "divergence", "multi-launch"}, runTraffic,
               {"workloads/traffic/lib/traffic_lib.ptx"});

}  // namespace rfsim::workloads
