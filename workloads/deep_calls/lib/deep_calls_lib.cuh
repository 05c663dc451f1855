// What deep_calls' kernel calls in its library module (lib/deep_calls_lib.cu):
// the first level of the chain.
#pragma once

template <int L>
__device__ unsigned level(unsigned x, unsigned y, const unsigned* __restrict__ table);
template <>
__device__ unsigned level<1>(unsigned x, unsigned y, const unsigned* __restrict__ table);
