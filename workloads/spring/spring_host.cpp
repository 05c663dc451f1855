#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// The structure: an nx x ny lattice of nodes (spacing 1, in the x-y plane,
// jittered in all three axes) with springs to the right, up and along both
// diagonals; the top row is anchored (inverse mass 0) and gravity pulls
// along -y.
struct Structure {
  int nodes = 0;
  std::vector<float> pos, vel, inv_mass;
  std::vector<int> ends;  // a, b per spring
  std::vector<float> rest, stiff, damp;
  std::vector<int> inc_off, inc;  // CSR: the springs of each node, (s << 1) | (node is b)
  int springs() const { return int(rest.size()); }
};

Structure makeStructure(int nx, int ny, Rng& rng) {
  Structure st;
  st.nodes = nx * ny;
  st.pos.resize(3 * size_t(st.nodes));
  st.vel.assign(3 * size_t(st.nodes), 0.0f);
  st.inv_mass.resize(st.nodes);
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      const int i = y * nx + x;
      st.pos[3 * i] = float(x) + rng.uniform(-0.1f, 0.1f);
      st.pos[3 * i + 1] = float(y) + rng.uniform(-0.1f, 0.1f);
      st.pos[3 * i + 2] = rng.uniform(-0.1f, 0.1f);
      st.inv_mass[i] = y == ny - 1 ? 0.0f : 1.0f / rng.uniform(0.5f, 1.5f);
    }
  }
  auto addSpring = [&](int a, int b, float len) {
    st.ends.push_back(a);
    st.ends.push_back(b);
    st.rest.push_back(len * rng.uniform(0.95f, 1.05f));
    st.stiff.push_back(rng.uniform(50.0f, 150.0f));
    st.damp.push_back(rng.uniform(0.5f, 1.0f));
  };
  const float diag = 1.41421356f;
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      const int i = y * nx + x;
      if (x + 1 < nx) addSpring(i, i + 1, 1.0f);
      if (y + 1 < ny) addSpring(i, i + nx, 1.0f);
      if (x + 1 < nx && y + 1 < ny) addSpring(i, i + nx + 1, diag);
      if (x > 0 && y + 1 < ny) addSpring(i, i + nx - 1, diag);
    }
  }
  std::vector<std::vector<int>> lists(st.nodes);
  for (int s = 0; s < st.springs(); ++s) {
    lists[st.ends[2 * s]].push_back(s << 1);
    lists[st.ends[2 * s + 1]].push_back((s << 1) | 1);
  }
  st.inc_off.push_back(0);
  for (const auto& l : lists) {
    st.inc.insert(st.inc.end(), l.begin(), l.end());
    st.inc_off.push_back(int(st.inc.size()));
  }
  return st;
}

// One time step on the CPU, in float, with the operations of spring.cu in
// the same order (nvcc may contract some multiply-adds into fmas that this
// does not, a rounding each: hence the tolerance of the check).
void refStep(Structure& st, std::vector<float>& sforce, float gravity, float dt) {
  const int ns = st.springs();
  for (int s = 0; s < ns; ++s) {
    const int a = st.ends[2 * s], b = st.ends[2 * s + 1];
    const float* p = st.pos.data();
    const float* v = st.vel.data();
    float dx = p[3 * b] - p[3 * a], dy = p[3 * b + 1] - p[3 * a + 1], dz = p[3 * b + 2] - p[3 * a + 2];
    float dvx = v[3 * b] - v[3 * a], dvy = v[3 * b + 1] - v[3 * a + 1], dvz = v[3 * b + 2] - v[3 * a + 2];
    float len = std::sqrt(dx * dx + dy * dy + dz * dz);
    float inv = len > 0.0f ? 1.0f / len : 0.0f;
    float nx = dx * inv, ny = dy * inv, nz = dz * inv;
    float mag = st.stiff[s] * (len - st.rest[s]);
    mag += st.damp[s] * (dvx * nx + dvy * ny + dvz * nz);
    sforce[3 * s] = mag * nx;
    sforce[3 * s + 1] = mag * ny;
    sforce[3 * s + 2] = mag * nz;
  }
  for (int i = 0; i < st.nodes; ++i) {
    const float im = st.inv_mass[i];
    if (im == 0.0f) continue;
    for (int axis = 0; axis < 3; ++axis) {
      float f = 0.0f;
      for (int e = st.inc_off[i]; e < st.inc_off[i + 1]; ++e) {
        const int entry = st.inc[e];
        const float fs = sforce[3 * (entry >> 1) + axis];
        f += (entry & 1) ? -fs : fs;
      }
      const float g = axis == 1 ? -gravity : 0.0f;
      float& v = st.vel[3 * i + axis];
      float& x = st.pos[3 * i + axis];
      v = v + dt * (f * im + g);
      x = x + dt * v;
    }
  }
}

Check runSpring(rt::Device& dev, Size size) {
  // Small: 32 x 16 = 512 nodes, 1906 springs, 10 steps. Large: 96 x 48 =
  // 4608 nodes, 18002 springs, 40 steps (about 37x the work).
  const int nx = size == Size::Small ? 32 : 96;
  const int ny = size == Size::Small ? 16 : 48;
  const int steps = size == Size::Small ? 10 : 40;
  const float gravity = 9.81f, dt = 0.002f;
  Rng rng(61);
  Structure st = makeStructure(nx, ny, rng);
  const int ns = st.springs();

  DeviceBuffer d_pos(dev, st.pos), d_vel(dev, st.vel), d_inv_mass(dev, st.inv_mass), d_ends(dev, st.ends),
      d_rest(dev, st.rest), d_stiff(dev, st.stiff), d_damp(dev, st.damp), d_inc_off(dev, st.inc_off),
      d_inc(dev, st.inc), d_sforce(dev, 3 * size_t(ns) * sizeof(float));
  const uint32_t block = 128;
  for (int s = 0; s < steps; ++s) {
    dev.launch("spring_forces", {ceilDiv(ns, block)}, {block},
               rt::KernelArgs()
                   .ptr(d_pos.addr())
                   .ptr(d_vel.addr())
                   .ptr(d_ends.addr())
                   .ptr(d_rest.addr())
                   .ptr(d_stiff.addr())
                   .ptr(d_damp.addr())
                   .ptr(d_sforce.addr())
                   .i32(ns));
    dev.launch("integrate_nodes", {ceilDiv(st.nodes, block)}, {block},
               rt::KernelArgs()
                   .ptr(d_pos.addr())
                   .ptr(d_vel.addr())
                   .ptr(d_inv_mass.addr())
                   .ptr(d_inc_off.addr())
                   .ptr(d_inc.addr())
                   .ptr(d_sforce.addr())
                   .i32(st.nodes)
                   .f32(gravity)
                   .f32(dt));
  }

  const std::vector<float> start = st.pos;
  std::vector<float> sforce(3 * size_t(ns));
  for (int s = 0; s < steps; ++s) refStep(st, sforce, gravity, dt);
  double moved = 0.0;
  for (size_t k = 0; k < start.size(); ++k) moved = std::max(moved, double(std::fabs(st.pos[k] - start[k])));

  std::vector<double> ref(st.pos.begin(), st.pos.end());
  Check c = compareFloats(d_pos.download<float>(st.pos.size()), ref, 1e-5, 1e-5,
                          fmt::format("node coordinates ({} nodes, {} springs, {} steps of {} s)", st.nodes, ns, steps, dt));
  c.detail += fmt::format("; nodes moved up to {:.3g}", moved);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("spring",
               "spring-mass structure (ParaPoly Structure): per-spring force through spring_force -> vec_length/"
               "damping -> dot3 calls, per-node CSR gather and semi-implicit Euler, no atomics",
               "workloads/spring/spring.ptx", {"calls", "memory", "multi-launch"}, runSpring,
               {"workloads/spring/lib/spring_lib.ptx"});

}  // namespace rfsim::workloads
