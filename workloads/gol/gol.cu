// Conway's Game of Life (B3/S23) on a torus, one thread per cell and one
// launch per generation (the host swaps two grids between launches). Modelled
// on ParaPoly's GOL: the per-cell work goes through non-inlined device
// functions,
//   gol_step -> count_neighbors -> cell_at -> wrap_coord
//            -> next_state
// count_neighbors keeps the grid pointer, the cell's coordinates, the grid
// size and the running count live across each of its eight cell_at calls,
// and cell_at keeps the pointer, a coordinate and the sizes live across its
// two wrap_coord calls: under the ABI those values sit in callee-saved
// registers (R16 up) that the callee saves on entry and restores on return.
//
// The helpers play the part of the paper's library module (CARS compiles the
// common device functions as a separate module): `inline` gives them weak
// linkage (.weak in the PTX), so calls to them follow the full ABI (a weak
// function can be replaced at link time; the compiler may not assume which
// registers it leaves alone) and values live across a call sit in
// callee-saved registers (R16 up) that the callee saves and restores.
//
// Compiled with -rdc=true (separate compilation: the calls stay calls):
// rfsim: rdc
// rfsim: link lib/gol_lib
//
// The helpers are a translation unit of their own (lib/gol_lib.cu), which the
// model links with this one (ptx/link.h).

#include "lib/gol_lib.cuh"

extern "C" __global__ void gol_step(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                                    int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  int x = i % w, y = i / w;
  int n = count_neighbors(in, x, y, w, h);
  out[i] = next_state(in[i] != 0, n);
}
