// The library module of gol (gol.cu has the kernels), compiled as its own
// translation unit as the CARS paper compiles the common device functions (a
// separate module); the model links the two modules (ptx/link.h) as nvlink
// does. nvcc compiles each unit without knowing the other, so the kernels'
// calls into this unit follow the full ABI. The helpers have weak linkage
// (`inline`: .weak in the PTX), as library code another module may replace
// at link time: even within this unit their callers may not assume which
// registers they leave alone, so every call follows the full ABI and values
// live across a call sit in callee-saved registers (R16 up) that the callee
// saves and restores. The functions the kernels call are this unit's strong,
// visible entry points (ENTRY).
// rfsim: rdc

#include "gol_lib.cuh"

#define LIB __device__ __noinline__ inline
#define ENTRY __device__ __noinline__

// v mod n for v in [-1, n]: the neighbour coordinate with wraparound.
LIB int wrap_coord(int v, int n) {
  if (v < 0) return v + n;
  if (v >= n) return v - n;
  return v;
}

// 1 if the cell at (x, y) -- wrapped onto the torus -- is alive, else 0.
LIB int cell_at(const unsigned char* __restrict__ grid, int x, int y, int w, int h) {
  int wx = wrap_coord(x, w);
  int wy = wrap_coord(y, h);
  return grid[wy * w + wx] != 0 ? 1 : 0;
}

// Live cells among the eight neighbours of (x, y).
ENTRY int count_neighbors(const unsigned char* __restrict__ grid, int x, int y, int w, int h) {
  int n = 0;
  n += cell_at(grid, x - 1, y - 1, w, h);
  n += cell_at(grid, x, y - 1, w, h);
  n += cell_at(grid, x + 1, y - 1, w, h);
  n += cell_at(grid, x - 1, y, w, h);
  n += cell_at(grid, x + 1, y, w, h);
  n += cell_at(grid, x - 1, y + 1, w, h);
  n += cell_at(grid, x, y + 1, w, h);
  n += cell_at(grid, x + 1, y + 1, w, h);
  return n;
}

// B3/S23: a dead cell with three live neighbours is born, a live cell with
// two or three survives, every other cell is dead in the next generation.
ENTRY unsigned char next_state(int alive, int neighbors) {
  if (alive) return (neighbors == 2 || neighbors == 3) ? 1 : 0;
  return neighbors == 3 ? 1 : 0;
}
