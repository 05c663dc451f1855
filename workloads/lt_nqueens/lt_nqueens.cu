// N-queens solution counting (LTRF suite, register-sensitive; after the
// GPGPU-Sim ISPASS-2009 NQU benchmark). The host enumerates every valid
// placement of queens on the first N - DEPTH rows of the board; each thread
// takes one of these prefixes and counts the completions of the last DEPTH
// rows with a depth-first search over bitmasks: for every row the columns
// and the two diagonals already attacked are one word each, and the free
// squares of a row are `full & ~(cols | left | right)`.
//
// The search is DEPTH nested loops that the compiler unrolls from the
// template recursion (no calls, no stack): each level keeps its own masks
// and its free squares in registers while the levels below it run, so a
// thread holds 4 words for each of the DEPTH - 1 open levels at the deepest
// point. The last row is not searched: its completions are the population
// count of its free squares.
#define DEPTH 7

template <int D>
struct Rows {
  // Completions of the remaining D rows given the attacked columns and
  // diagonals (left: shifted towards the high bits each row, right: towards
  // the low bits).
  static __device__ __forceinline__ unsigned count(unsigned cols, unsigned left, unsigned right, unsigned full) {
    unsigned free = full & ~(cols | left | right);
    unsigned n = 0;
    while (free) {
      unsigned bit = free & (0u - free);  // the lowest free column
      free ^= bit;
      n += Rows<D - 1>::count(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1, full);
    }
    return n;
  }
};

template <>
struct Rows<1> {
  static __device__ __forceinline__ unsigned count(unsigned cols, unsigned left, unsigned right, unsigned full) {
    return __popc(full & ~(cols | left | right));
  }
};

// prefixes: (cols, left, right) of every prefix, three words each.
// counts: the number of solutions below each prefix.
extern "C" __global__ void __launch_bounds__(128) lt_nqueens(const unsigned* __restrict__ prefixes,
                                                             unsigned* __restrict__ counts, int num_prefixes,
                                                             int n) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= num_prefixes) return;
  const unsigned full = (1u << n) - 1u;
  unsigned cols = prefixes[3 * p], left = prefixes[3 * p + 1], right = prefixes[3 * p + 2];
  counts[p] = Rows<DEPTH>::count(cols, left, right, full);
}
