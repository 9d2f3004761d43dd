#pragma once
// Steps both backwards share (kernels in backward_passes.cu), for their .cu files only;
// each launches on `stream`.
#include <cstdint>

#include "kernels/attention.hpp"

namespace attnlab {

// Δ[position][head] = Σ_d dO·O in fp32, from the dtype's dO and O; with `zeros`
// (positions x heads x head dim floats), also sets those to 0 in the same pass.
void compute_delta(const AttentionProblem& problem, std::int64_t positions, const void* d_o, const void* o,
                   float* delta, float* zeros, cudaStream_t stream);

// to[i] = factor·from[i], rounded to the dtype.
void convert_from_fp32(const float* from, void* to, std::int64_t count, float factor, DType dtype, cudaStream_t stream);

}  // namespace attnlab
