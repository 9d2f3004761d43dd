#pragma once
// The one place a run-time problem becomes a kernel's template arguments: calls
// launch.template operator()<T, D>() with the CUDA element type of the problem's
// dtype (bf16 or fp16) and its head dim (64 or 128; AttentionProblem::validate
// admits no other).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/attention.hpp"

namespace attnlab {

template <typename Launch>
void with_element_and_head_dim(const AttentionProblem& problem, Launch&& launch) {
  const bool bf16 = problem.dtype == DType::bf16;
  if (problem.head_dim == 64)
    bf16 ? launch.template operator()<__nv_bfloat16, 64>() : launch.template operator()<__half, 64>();
  else
    bf16 ? launch.template operator()<__nv_bfloat16, 128>() : launch.template operator()<__half, 128>();
}

}  // namespace attnlab
