#pragma once
// Four fp32 sums scaled and stored as four values of the dtype, in one 8-byte store.
#include <cstdint>

namespace attnlab::flash {

template <typename T>
__device__ __forceinline__ void store_scaled(T* to, const float4& sums, float factor) {
  uint2 packed;
  T* const out = reinterpret_cast<T*>(&packed);
  out[0] = T(sums.x * factor);
  out[1] = T(sums.y * factor);
  out[2] = T(sums.z * factor);
  out[3] = T(sums.w * factor);
  *reinterpret_cast<uint2*>(to) = packed;
}

}  // namespace attnlab::flash
