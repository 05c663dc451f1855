// thrust's and CUB's device-wide algorithms beyond sort, reduce and scan:
// select (cub::DeviceSelect::If, thrust::copy_if), histogram
// (cub::DeviceHistogram::HistogramEven), segmented reduction
// (cub::DeviceSegmentedReduce::Sum), thrust::for_each and thrust::fill.
// Each result is checked against the CPU. Built with -DALGO_<NAME> for each
// algorithm to include (SELECT, HISTOGRAM: int samples, HISTOGRAM_FLOAT:
// float samples, SEGREDUCE, REDUCE: cub::DeviceReduce::Sum and Max called
// directly, FOREACH; all but HISTOGRAM_FLOAT when none is given), so that a
// module holds only the kernels it runs.
//   cub_algos [select|histogram|histogram-float|segreduce|reduce|foreach|all]
#if !defined(ALGO_SELECT) && !defined(ALGO_HISTOGRAM) && !defined(ALGO_HISTOGRAM_FLOAT) && \
    !defined(ALGO_SEGREDUCE) && !defined(ALGO_REDUCE) && !defined(ALGO_FOREACH)
#define ALGO_SELECT
#define ALGO_HISTOGRAM
#define ALGO_SEGREDUCE
#define ALGO_REDUCE
#define ALGO_FOREACH
#endif
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/host_vector.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

[[maybe_unused]] int value(int i) { return (i * 7919 + 13) % 1000; }

#ifdef ALGO_SELECT
struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return x & 1; }
};

int select() {
  const int n = 2000;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = value(i);
  std::vector<int> want;
  for (int x : h)
    if (x & 1) want.push_back(x);
  thrust::device_vector<int> in(h.begin(), h.end()), out(n);
  thrust::device_vector<int> count(1);
  // CUB, with its temporary storage asked for first.
  size_t temp_bytes = 0;
  const int* pin = thrust::raw_pointer_cast(in.data());
  int* pout = thrust::raw_pointer_cast(out.data());
  int* pcount = thrust::raw_pointer_cast(count.data());
  CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, pin, pout, pcount, n, IsOdd()) == cudaSuccess);
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes) == cudaSuccess);
  CHECK(cub::DeviceSelect::If(temp, temp_bytes, pin, pout, pcount, n, IsOdd()) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(temp) == cudaSuccess);
  CHECK(count[0] == static_cast<int>(want.size()));
  thrust::host_vector<int> got = out;
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == want[i]);
  // thrust::copy_if over the same input.
  thrust::device_vector<int> out2(n);
  auto end = thrust::copy_if(in.begin(), in.end(), out2.begin(), IsOdd());
  CHECK(end - out2.begin() == static_cast<long>(want.size()));
  thrust::host_vector<int> got2 = out2;
  for (size_t i = 0; i < want.size(); ++i) CHECK(got2[i] == want[i]);
  std::printf("select: %zu of %d selected\n", want.size(), n);
  return 0;
}

#endif

#if defined(ALGO_HISTOGRAM) || defined(ALGO_HISTOGRAM_FLOAT)
// Samples in [0, 100) into 16 even bins; T is the sample type.
template <class T>
int histogram() {
  const int n = 3000, bins = 16;
  std::vector<T> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<T>(value(i)) / static_cast<T>(10);
  std::vector<int> want(bins, 0);
  for (T x : h) ++want[static_cast<int>(x * bins / static_cast<T>(100))];
  thrust::device_vector<T> in(h.begin(), h.end());
  thrust::device_vector<int> hist(bins);
  const T* pin = thrust::raw_pointer_cast(in.data());
  int* phist = thrust::raw_pointer_cast(hist.data());
  const T lo = 0, hi = 100;
  size_t temp_bytes = 0;
  CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, pin, phist, bins + 1, lo, hi, n) == cudaSuccess);
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes) == cudaSuccess);
  CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, pin, phist, bins + 1, lo, hi, n) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(temp) == cudaSuccess);
  thrust::host_vector<int> got = hist;
  for (int b = 0; b < bins; ++b) CHECK(got[b] == want[b]);
  std::printf("histogram: %d values in %d bins\n", n, bins);
  return 0;
}
#endif

#ifdef ALGO_SEGREDUCE
int segreduce() {
  const int segments = 50;
  std::vector<int> offsets(segments + 1, 0);
  for (int s = 0; s < segments; ++s) offsets[s + 1] = offsets[s] + (s * 37) % 90;  // some empty
  const int n = offsets[segments];
  std::vector<double> h(n);
  for (int i = 0; i < n; ++i) h[i] = value(i) * 0.25;
  std::vector<double> want(segments, 0.0);
  for (int s = 0; s < segments; ++s)
    for (int i = offsets[s]; i < offsets[s + 1]; ++i) want[s] += h[i];
  thrust::device_vector<double> in(h.begin(), h.end()), out(segments);
  thrust::device_vector<int> off(offsets.begin(), offsets.end());
  const double* pin = thrust::raw_pointer_cast(in.data());
  double* pout = thrust::raw_pointer_cast(out.data());
  const int* poff = thrust::raw_pointer_cast(off.data());
  size_t temp_bytes = 0;
  CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, pin, pout, segments, poff, poff + 1) == cudaSuccess);
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1) == cudaSuccess);
  CHECK(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, pin, pout, segments, poff, poff + 1) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(temp) == cudaSuccess);
  thrust::host_vector<double> got = out;
  for (int s = 0; s < segments; ++s) CHECK(got[s] == want[s]);  // quarters: exact in any order
  std::printf("segreduce: %d segments, %d values\n", segments, n);
  return 0;
}

#endif

#ifdef ALGO_REDUCE
// cub::DeviceReduce called directly, each with its temporary storage asked
// for first, on raw pointers.
int reduce() {
  const int n = 10000;
  std::vector<int> h(n);
  long long want = 0;
  int want_max = 0;
  for (int i = 0; i < n; ++i) {
    h[i] = value(i);
    want += h[i];
    want_max = h[i] > want_max ? h[i] : want_max;
  }
  int* in = nullptr;
  long long* sum = nullptr;
  int* mx = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(int)) == cudaSuccess);
  CHECK(cudaMalloc(&sum, sizeof(long long)) == cudaSuccess);
  CHECK(cudaMalloc(&mx, sizeof(int)) == cudaSuccess);
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  size_t temp_bytes = 0, max_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, sum, n) == cudaSuccess);
  CHECK(cub::DeviceReduce::Max(nullptr, max_bytes, in, mx, n) == cudaSuccess);
  temp_bytes = temp_bytes > max_bytes ? temp_bytes : max_bytes;
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes) == cudaSuccess);
  CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, sum, n) == cudaSuccess);
  CHECK(cub::DeviceReduce::Max(temp, temp_bytes, in, mx, n) == cudaSuccess);
  long long got = 0;
  int got_max = 0;
  CHECK(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(cudaMemcpy(&got_max, mx, sizeof got_max, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(got == want);
  CHECK(got_max == want_max);
  for (void* p : {static_cast<void*>(in), static_cast<void*>(sum), static_cast<void*>(mx), temp}) CHECK(cudaFree(p) == cudaSuccess);
  std::printf("reduce: sum %lld and max %d of %d values\n", got, got_max, n);
  return 0;
}
#endif

#ifdef ALGO_FOREACH
struct Square {
  __host__ __device__ void operator()(int& x) const { x = x * x; }
};

int foreach() {
  const int n = 5000;
  thrust::device_vector<int> v(n);
  thrust::fill(v.begin(), v.end(), 7);
  thrust::host_vector<int> h = v;
  for (int i = 0; i < n; ++i) CHECK(h[i] == 7);
  thrust::fill_n(v.begin() + 100, 50, -3);
  thrust::for_each(v.begin(), v.end(), Square());
  h = v;
  for (int i = 0; i < n; ++i) CHECK(h[i] == (i >= 100 && i < 150 ? 9 : 49));
  std::printf("foreach: fill and for_each over %d values\n", n);
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "all";
  const bool all = std::strcmp(which, "all") == 0;
  bool known = all;
  struct Case {
    const char* name;
    int (*run)();
  } cases[] = {
#ifdef ALGO_SELECT
      {"select", select},
#endif
#ifdef ALGO_HISTOGRAM
      {"histogram", histogram<int>},
#endif
#ifdef ALGO_HISTOGRAM_FLOAT
      {"histogram-float", histogram<float>},
#endif
#ifdef ALGO_SEGREDUCE
      {"segreduce", segreduce},
#endif
#ifdef ALGO_REDUCE
      {"reduce", reduce},
#endif
#ifdef ALGO_FOREACH
      {"foreach", foreach},
#endif
  };
  for (const Case& c : cases) {
    if (!all && std::strcmp(which, c.name) != 0) continue;
    known = true;
    if (c.run() != 0) return 1;
  }
  CHECK(known);
  std::printf("cub_algos %s: all checks passed\n", which);
  return 0;
}
