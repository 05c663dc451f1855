// Back-propagation training step in the style of Rodinia's backprop
// (bpnn_layerforward_CUDA / bpnn_adjust_weights_cuda): 16x16 thread blocks,
// one block row of the input layer per blockIdx.y, every address a linear
// function of blockIdx.y, threadIdx.x and threadIdx.y (R2D2, Fig. 2).
//
// Weights are a row-major (in + 1) x (hid + 1) matrix; row 0 and column 0
// belong to the bias unit, as in Rodinia.

#define BLOCK 16  // rows of the input layer per block == hidden units

// Partial sums of the hidden layer: block `by` multiplies its 16 input units
// by their weights and reduces over the 16 rows in shared memory.
extern "C" __global__ void bpnn_layerforward(const float* __restrict__ input,
                                             const float* __restrict__ weights,
                                             float* __restrict__ partial_sum, int hid) {
  __shared__ float input_node[BLOCK];
  __shared__ float weight_matrix[BLOCK][BLOCK];

  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int index = (hid + 1) * BLOCK * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_in = BLOCK * by + ty + 1;

  if (tx == 0) input_node[ty] = input[index_in];
  __syncthreads();

  weight_matrix[ty][tx] = weights[index] * input_node[ty];
  __syncthreads();

  // Tree reduction over the rows (ty); the stride doubles each step.
  for (int s = 1; s < BLOCK; s *= 2) {
    if (ty % (2 * s) == 0) weight_matrix[ty][tx] += weight_matrix[ty + s][tx];
    __syncthreads();
  }

  if (ty == 0) partial_sum[by * hid + tx] = weight_matrix[0][tx];
}

// w += eta * delta[j] * ly[i] + momentum * oldw; oldw = that change.
extern "C" __global__ void bpnn_adjust_weights(const float* __restrict__ delta, int hid,
                                               const float* __restrict__ ly,
                                               float* __restrict__ w,
                                               float* __restrict__ oldw, float eta,
                                               float momentum) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int index = (hid + 1) * BLOCK * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_y = BLOCK * by + ty + 1;
  int index_x = tx + 1;

  float dw = eta * delta[index_x] * ly[index_y] + momentum * oldw[index];
  w[index] += dw;
  oldw[index] = dw;

  // The bias row (row 0) is updated once, by the first row of the first block.
  if (ty == 0 && by == 0) {
    float db = eta * delta[index_x] + momentum * oldw[index_x];
    w[index_x] += db;
    oldw[index_x] = db;
  }
}
