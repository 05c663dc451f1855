#include <utility>

#include "workloads/common/driver.h"

namespace rfsim::workloads {
namespace {

// One generation of B3/S23 on a w x h torus, as gol.cu computes it.
std::vector<uint8_t> lifeStep(const std::vector<uint8_t>& in, int w, int h) {
  std::vector<uint8_t> out(in.size());
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      int n = 0;
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0) continue;
          int wx = (x + dx + w) % w, wy = (y + dy + h) % h;
          n += in[size_t(wy) * w + wx] != 0;
        }
      }
      bool alive = in[size_t(y) * w + x] != 0;
      out[size_t(y) * w + x] = alive ? (n == 2 || n == 3) : (n == 3);
    }
  }
  return out;
}

Check runGol(rt::Device& dev, Size size) {
  // Small: 64 x 32 = 2048 cells (threads), 4 generations. Large: 256 x 128
  // = 32768 cells, 12 generations (48x the cell updates).
  const int w = size == Size::Small ? 64 : 256;
  const int h = size == Size::Small ? 32 : 128;
  const int gens = size == Size::Small ? 4 : 12;
  const size_t cells = size_t(w) * h;
  Rng rng(53);
  std::vector<uint8_t> grid(cells);
  for (auto& c : grid) c = rng.below(100) < 35 ? 1 : 0;  // 35 % alive
  const size_t alive0 = std::count(grid.begin(), grid.end(), uint8_t(1));

  DeviceBuffer d_a(dev, grid), d_b(dev, cells);
  const DeviceBuffer* cur = &d_a;
  const DeviceBuffer* nxt = &d_b;
  const uint32_t block = 128, nblocks = ceilDiv(cells, block);
  for (int g = 0; g < gens; ++g) {
    dev.launch("gol_step", {nblocks}, {block},
               rt::KernelArgs().ptr(cur->addr()).ptr(nxt->addr()).i32(w).i32(h));
    std::swap(cur, nxt);
  }

  std::vector<uint8_t> ref = grid;
  for (int g = 0; g < gens; ++g) ref = lifeStep(ref, w, h);
  const size_t alive = std::count(ref.begin(), ref.end(), uint8_t(1));

  // Compared as integers, so that a mismatch prints as a number, not a char.
  std::vector<uint8_t> got8 = cur->download<uint8_t>(cells);
  std::vector<int> got(got8.begin(), got8.end()), want(ref.begin(), ref.end());
  Check c = compareExact(got, want, fmt::format("cells of the {}x{} torus after {} generations", w, h, gens));
  c.detail += fmt::format(" ({} alive at the start, {} at the end)", alive0, alive);
  return c;
}

}  // namespace

RFSIM_WORKLOAD("gol",
               "Conway's game of life on a torus (ParaPoly GOL): count_neighbors -> cell_at -> wrap_coord calls, "
               "one launch per generation",
               "workloads/gol/gol.ptx", {"calls", "memory", "multi-launch"}, runGol,
               {"workloads/gol/lib/gol_lib.ptx"});

}  // namespace rfsim::workloads
