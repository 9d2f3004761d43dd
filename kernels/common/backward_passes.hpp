#pragma once
// Steps both backwards share (kernels in backward_passes.cu), for their .cu files only;
// each launches on `stream`.
#include <cstdint>

#include "kernels/attention.hpp"

namespace attnlab {

// What the Δ pass makes ready of the flash backward's dQ sums (positions x heads x head dim
// floats), which the backward adds into: with `sums` alone, all of them set to 0; with
// `lse` and `arrivals` too, for a backward that stores each block's first dQ and adds the
// rest, each (position, head)'s arrival count set to 0 and its sums to 0 only where its LSE is
// −inf (a row that attends nothing, which no step need write). Nothing: no sums.
struct DqSumsReady {
  float* sums = nullptr;
  const float* lse = nullptr;  // [position][head]
  int* arrivals = nullptr;     // [position][head]
};

// Δ[position][head] = Σ_d dO·O in fp32, from the dtype's dO and O, and the dQ sums made
// ready in the same pass.
void compute_delta(const AttentionProblem& problem, std::int64_t positions, const void* d_o, const void* o,
                   float* delta, const DqSumsReady& ready, cudaStream_t stream);

// to[i] = factor·from[i], rounded to the dtype.
void convert_from_fp32(const float* from, void* to, std::int64_t count, float factor, DType dtype, cudaStream_t stream);

}  // namespace attnlab
