#pragma once
// Where run-time choices become a kernel's template arguments: the instances of a kernel
// (the CUDA element type of each dtype, bf16 or fp16, and each head dim, 64 or 128;
// AttentionProblem::validate admits no other), and its counting instantiation.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <array>
#include <string>
#include <type_traits>

#include "kernels/common/launchers.hpp"

namespace attnlab::flash {

template <typename T, int D>
constexpr int instance_of() {
  return instance_of(std::is_same_v<T, __nv_bfloat16> ? DType::bf16 : DType::fp16, D);
}
static_assert(instance_of<__nv_bfloat16, 64>() == 0 && instance_of<__nv_bfloat16, 128>() == 1 &&
              instance_of<__half, 64>() == 2 && instance_of<__half, 128>() == 3);

// "bf16 d128": the instantiation a launch line names.
template <typename T, int D>
std::string instance_name() {
  return instance_name(instance_of<T, D>());
}

// One instance of a kernel, as a value: `of` in every_instance deduces T and D from it.
template <typename T, int D>
struct Instance {};

// {of(Instance<T, D>{}) for every instance}, in instance_of's order: the launchers of a
// kernel, one per instantiation.
template <typename Of>
constexpr auto every_instance(Of of) {
  return std::array{of(Instance<__nv_bfloat16, 64>{}), of(Instance<__nv_bfloat16, 128>{}), of(Instance<__half, 64>{}),
                    of(Instance<__half, 128>{})};
}

// Calls launch.template operator()<counting>(name) with counting = whether the kernel's
// parameters carry counters (the counting run's instantiation), `name` then saying so.
template <typename KernelParams, typename Launch>
void with_counting(const KernelParams& params, const std::string& name, Launch&& launch) {
  if (params.counts)
    launch.template operator()<true>(name + " counting");
  else
    launch.template operator()<false>(name);
}

}  // namespace attnlab::flash
