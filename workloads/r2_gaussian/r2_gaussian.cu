// Rodinia gaussian (R2D2 suite): forward elimination of a dense Size x Size
// system a x = b without pivoting, two launches per pivot column t:
//   r2_fan1  1-D blocks of 512 (MAXBLOCKSIZE): the multipliers
//            m[i][t] = a[i][t] / a[t][t] of the rows below the pivot
//   r2_fan2  2-D blocks of 4 x 4 (BLOCK_SIZE_XY): a[i][j] -= m[i][t] * a[t][j]
//            for the rows below and the columns from t on, and
//            b[i] -= m[i][t] * b[t] by the threads of column t
// As in Rodinia the grids do not shrink with t: threads past the active
// part return at once. x indexes rows and y columns, as Rodinia's Fan2
// does. The host substitutes backwards.
extern "C" __global__ void r2_fan1(float* m_cuda, float* a_cuda, int Size, int t) {
  if (threadIdx.x + blockIdx.x * blockDim.x >= Size - 1 - t) return;
  *(m_cuda + Size * (blockDim.x * blockIdx.x + threadIdx.x + t + 1) + t) =
      *(a_cuda + Size * (blockDim.x * blockIdx.x + threadIdx.x + t + 1) + t) / *(a_cuda + Size * t + t);
}

extern "C" __global__ void r2_fan2(float* m_cuda, float* a_cuda, float* b_cuda, int Size, int j1, int t) {
  if (threadIdx.x + blockIdx.x * blockDim.x >= Size - 1 - t) return;
  if (threadIdx.y + blockIdx.y * blockDim.y >= Size - t) return;

  int xidx = blockIdx.x * blockDim.x + threadIdx.x;
  int yidx = blockIdx.y * blockDim.y + threadIdx.y;

  a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= m_cuda[Size * (xidx + 1 + t) + t] * a_cuda[Size * t + (yidx + t)];
  if (yidx == 0) {
    b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t) + (yidx + t)] * b_cuda[t];
  }
}
