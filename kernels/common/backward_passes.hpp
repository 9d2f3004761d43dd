#pragma once
// Steps both backwards share (kernels in backward_passes.cu), for their .cu files only;
// each launches on `stream`.
#include <cstdint>

#include "kernels/attention.hpp"

namespace attnlab {

// Δ[position][head] = Σ_d dO·O in fp32, from the dtype's dO and O; with `zeros`
// (positions x heads x head dim floats) and `counters` (positions x heads), also sets
// those to 0 in the same pass.
void compute_delta(const AttentionProblem& problem, std::int64_t positions, const void* d_o, const void* o,
                   float* delta, float* zeros, int* counters, cudaStream_t stream);

// to[i] = factor·from[i], rounded to the dtype. With `late` (a backward that finishes dQ
// itself), only the values of the (position, head) pairs, `pair_values` each, whose arrival
// counter (kernels/common/query_gradient_arrivals.hpp) holds a late arrival: the kernel
// wrote the others.
void convert_from_fp32(const float* from, void* to, std::int64_t count, float factor, DType dtype, cudaStream_t stream,
                       const int* late = nullptr, int pair_values = 0);

}  // namespace attnlab
