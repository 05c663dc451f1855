// Rodinia backprop (R2D2 suite): one training step of a two-layer network
// whose input layer is split into blocks of 16 units. The two CUDA kernels of
// Rodinia's backprop_cuda_kernel.cu, with their 16x16 thread blocks and a
// grid of (1, in / 16) blocks:
//   r2_bpnn_layerforward    each block multiplies its 16 input units by their
//                           16 x 16 weights and reduces over the rows in
//                           shared memory: the 16 partial sums of the hidden
//                           units; it also leaves the reduced rows in the
//                           weight matrix, as Rodinia does (the host uploads
//                           the weights again before the update)
//   r2_bpnn_adjust_weights  w += eta * delta * ly + momentum * oldw, and the
//                           bias row by the first block
// The weights are a row-major (in + 1) x (hid + 1) matrix; row 0 and column 0
// belong to the bias units. Rodinia's __powf/__log2f loop bounds are written
// as shifts (the same strides 2, 4, 8, 16).
#define WIDTH 16   // hidden units per block (== hid)
#define HEIGHT 16  // input units per block

#define ETA 0.3f
#define MOMENTUM 0.3f

extern "C" __global__ void r2_bpnn_layerforward(float* input_cuda, float* output_hidden_cuda, float* input_hidden_cuda,
                                                float* hidden_partial_sum, int in, int hid) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_in = HEIGHT * by + ty + 1;

  __shared__ float input_node[HEIGHT];
  __shared__ float weight_matrix[HEIGHT][WIDTH];

  if (tx == 0) input_node[ty] = input_cuda[index_in];
  __syncthreads();

  weight_matrix[ty][tx] = input_hidden_cuda[index];
  __syncthreads();

  weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
  __syncthreads();

  for (int i = 1; i <= 4; i++) {  // log2(HEIGHT) steps
    int power_two = 1 << i;
    if (ty % power_two == 0) weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + power_two / 2][tx];
    __syncthreads();
  }

  input_hidden_cuda[index] = weight_matrix[ty][tx];
  __syncthreads();

  if (tx == 0) hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty];
}

extern "C" __global__ void r2_bpnn_adjust_weights(float* delta, int hid, float* ly, int in, float* w, float* oldw) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_y = HEIGHT * by + ty + 1;
  int index_x = tx + 1;

  w[index] += ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
  oldw[index] = ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));

  __syncthreads();

  if (ty == 0 && by == 0) {
    w[index_x] += ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
    oldw[index_x] = ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
  }
}
