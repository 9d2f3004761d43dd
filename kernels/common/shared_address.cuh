#pragma once
// The 32-bit shared-memory address that PTX's shared-space operands take (ldmatrix,
// cp.async, mbarriers, TMA), for both flash kernels.
#include <cstdint>

namespace attnlab {

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace attnlab
