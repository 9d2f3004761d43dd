#include <gtest/gtest.h>

#include "gui/number_format.hpp"

namespace attnlab::gui {
namespace {

TEST(NumberFormat, ThreeDigitsAndTheUnitThatKeepsThemBelowAThousand) {
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(34'400'000), "34.4M");
  EXPECT_EQ(format_count(151'000'000), "151M");
  // Just under a unit step rounds up into the next unit, not to "1000".
  EXPECT_EQ(format_count(999.7), "1.00K");
  EXPECT_EQ(format_count(999'700), "1.00M");
  EXPECT_EQ(format_bytes(1'480'000'000), "1.48 GB");
  EXPECT_EQ(format_bytes(999'999), "1.00 MB");
  EXPECT_EQ(format_ratio(7.2249), "7.22x");
  EXPECT_EQ(format_ratio(1022.3), "1022x");
}

}  // namespace
}  // namespace attnlab::gui
