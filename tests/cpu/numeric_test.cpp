#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "core/scenario/numeric.hpp"

namespace attnlab {
namespace {

float from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(Numeric, Bf16RoundsToNearestEvenOnKnownPatterns) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_bf16_bits(from_bits(0x3f808000)), 0x3f80);  // exact tie, 0x3f80 is even: down
  EXPECT_EQ(float_to_bf16_bits(from_bits(0x3f818000)), 0x3f82);  // exact tie, 0x3f81 is odd: up
  EXPECT_EQ(float_to_bf16_bits(from_bits(0x3f808001)), 0x3f81);  // just above the tie
  EXPECT_EQ(float_to_bf16_bits(from_bits(0x3f807fff)), 0x3f80);  // just below the tie
  EXPECT_EQ(float_to_bf16_bits(-0.0f), 0x8000);
  EXPECT_EQ(float_to_bf16_bits(INFINITY), 0x7f80);
  EXPECT_EQ(float_to_bf16_bits(from_bits(0x7f7fffff)), 0x7f80);  // float's largest rounds up to infinity
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(NAN))));
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(from_bits(0x7f800001)))));  // a NaN stays NaN
  EXPECT_EQ(bf16_bits_to_float(0x3fc0), 1.5f);
}

TEST(Numeric, Fp16RoundsToNearestEvenOnKnownPatterns) {
  EXPECT_EQ(float_to_fp16_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_fp16_bits(0.1f), 0x2e66);
  EXPECT_EQ(float_to_fp16_bits(65504.0f), 0x7bff);             // largest finite
  EXPECT_EQ(float_to_fp16_bits(65519.0f), 0x7bff);             // below the midpoint to infinity
  EXPECT_EQ(float_to_fp16_bits(65520.0f), 0x7c00);             // the midpoint ties up to infinity
  EXPECT_EQ(float_to_fp16_bits(1.0f + 0x1p-11f), 0x3c00);      // tie, even below
  EXPECT_EQ(float_to_fp16_bits(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie, even above
  EXPECT_EQ(float_to_fp16_bits(0x1p-14f), 0x0400);             // smallest normal
  EXPECT_EQ(float_to_fp16_bits(0x1p-24f), 0x0001);             // smallest subnormal
  EXPECT_EQ(float_to_fp16_bits(0x1p-25f), 0x0000);             // tie between 0 and 2^-24: to 0
  EXPECT_EQ(float_to_fp16_bits(1.5f * 0x1p-25f), 0x0001);
  EXPECT_EQ(float_to_fp16_bits(3 * 0x1p-25f), 0x0002);        // tie between 1 and 2 units: to 2
  EXPECT_EQ(float_to_fp16_bits(1023.5f * 0x1p-24f), 0x0400);  // largest subnormal + half: up to the normal
  EXPECT_EQ(float_to_fp16_bits(-0x1p-30f), 0x8000);
  EXPECT_EQ(float_to_fp16_bits(-INFINITY), 0xfc00);
  EXPECT_TRUE(std::isnan(fp16_bits_to_float(float_to_fp16_bits(NAN))));
  EXPECT_EQ(fp16_bits_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(fp16_bits_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_bits_to_float(0xfc00), -INFINITY);
}

// Every 16-bit pattern that is not NaN survives bits -> float -> bits.
TEST(Numeric, EveryPatternRoundTrips) {
  for (DType dtype : {DType::bf16, DType::fp16})
    for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
      const float f = dtype_bits_to_float(static_cast<std::uint16_t>(bits), dtype);
      if (std::isnan(f)) continue;
      ASSERT_EQ(float_to_dtype_bits(f, dtype), bits) << dtype_name(dtype) << " pattern " << bits;
    }
}

// Rounding picks a nearest representable neighbour, and the even one on a tie.
TEST(Numeric, RandomFloatsRoundToANearestNeighbour) {
  std::mt19937 rng(3);
  for (DType dtype : {DType::bf16, DType::fp16}) {
    const float limit = dtype == DType::fp16 ? 65504.0f : 1e38f;
    for (int i = 0; i < 200000; ++i) {
      const float x = from_bits(rng());
      if (!std::isfinite(x) || std::abs(x) >= limit) continue;
      const std::uint16_t bits = float_to_dtype_bits(x, dtype);
      const double err = std::abs(double(dtype_bits_to_float(bits, dtype)) - x);
      for (int step : {-1, 1}) {  // neighbours on the same side of zero
        const std::uint16_t other = static_cast<std::uint16_t>(bits + step);
        if ((other & 0x7fff) == 0x7fff || (other ^ bits) & 0x8000) continue;
        const float neighbour = dtype_bits_to_float(other, dtype);
        if (std::isnan(neighbour) || std::isinf(neighbour)) continue;
        const double other_err = std::abs(double(neighbour) - x);
        ASSERT_LE(err, other_err) << dtype_name(dtype) << " x=" << x;
        if (err == other_err) {
          ASSERT_EQ(bits & 1, 0) << "tie not to even for x=" << x;
        }
      }
    }
  }
}

TEST(Numeric, RoundToDtypeIsIdempotent) {
  for (DType dtype : {DType::bf16, DType::fp16})
    for (float x : {0.3f, -1.7f, 1e-6f, 12345.678f}) {
      const float r = round_to_dtype(x, dtype);
      EXPECT_EQ(round_to_dtype(r, dtype), r);
      EXPECT_NEAR(r, x, std::abs(x) * (dtype == DType::bf16 ? 1.0 / 256 : 1.0 / 2048) + 1e-7);
    }
}

}  // namespace
}  // namespace attnlab
