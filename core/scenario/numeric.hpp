#pragma once
// Host conversions between float and the 16-bit formats the kernels read, with
// round-to-nearest-even as the GPU's __float2bfloat16 / __float2half do. The
// reference and the kernels see the same numbers because inputs are rounded once
// here, and the kernels upload exactly these bits.
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/scenario/scenario.hpp"

namespace attnlab {

// bf16 keeps float's sign and 8-bit exponent and the top 7 mantissa bits.
inline std::uint16_t float_to_bf16_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t lsb = (x >> 16) & 1u;  // ties go to the even neighbour
  return static_cast<std::uint16_t>((x + 0x7fffu + lsb) >> 16);
}

inline float bf16_bits_to_float(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t(h) << 16); }

// Adds one to `kept` when the dropped low `shift` bits of `value` are above half
// an ulp, or exactly half and `kept` is odd: round-to-nearest-even on integers.
inline std::uint32_t round_shifted_even(std::uint32_t value, int shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t dropped = value & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + ((dropped > half || (dropped == half && (kept & 1u))) ? 1u : 0u);
}

// fp16: 5-bit exponent (bias 15), 10-bit mantissa, subnormals below 2^-14, largest finite 65504.
inline std::uint16_t float_to_fp16_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;      // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;     // >= 65520 rounds to infinity
  const int exponent = static_cast<int>(magnitude >> 23);  // biased by 127
  if (exponent >= 113) {                                   // normal in fp16 (>= 2^-14)
    const std::uint32_t rebased = ((exponent - 112u) << 23) | (magnitude & 0x7fffffu);
    return sign |
           static_cast<std::uint16_t>(round_shifted_even(rebased, 13));  // a carry bumps the exponent, as it should
  }
  // Subnormal in fp16: count units of 2^-24. shift = 126 - exponent >= 14.
  const int shift = 126 - exponent;
  if (shift > 24) return sign;  // below half of the smallest subnormal
  const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  return sign | static_cast<std::uint16_t>(round_shifted_even(mantissa, shift));
}

inline float fp16_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -value : value;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline std::uint16_t float_to_dtype_bits(float f, DType dtype) {
  return dtype == DType::bf16 ? float_to_bf16_bits(f) : float_to_fp16_bits(f);
}
inline float dtype_bits_to_float(std::uint16_t bits, DType dtype) {
  return dtype == DType::bf16 ? bf16_bits_to_float(bits) : fp16_bits_to_float(bits);
}
// The nearest value the dtype can hold (ties to even).
inline float round_to_dtype(float f, DType dtype) { return dtype_bits_to_float(float_to_dtype_bits(f, dtype), dtype); }

}  // namespace attnlab
