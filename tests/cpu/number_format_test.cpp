// The one set of number forms the CLI and the GUI print.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/number_format.hpp"

namespace attnlab {
namespace {

TEST(NumberFormat, ThreeDigitsAndTheUnitThatKeepsThemBelowAThousand) {
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(34'400'000), "34.4 M");
  EXPECT_EQ(format_count(151'000'000), "151 M");
  // Just under a unit step rounds up into the next unit, not to "1000".
  EXPECT_EQ(format_count(999.7), "1.00 k");
  EXPECT_EQ(format_count(999'700), "1.00 M");
}

// Axis ticks: whole numbers in full with thousands (a histogram of lengths up to 32,768), never "3.277e+04".
TEST(NumberFormat, AxisTicksAreWholeNumbersWithThousands) {
  EXPECT_EQ(format_axis(32768), "32,768");
  EXPECT_EQ(format_axis(1000), "1,000");
  EXPECT_EQ(format_axis(7), "7");
  EXPECT_EQ(format_axis(0.5), "0.5");
  EXPECT_EQ(format_axis(0.001), "0.001");
  EXPECT_EQ(format_integer(1'234'567), "1,234,567");
}

TEST(NumberFormat, BytesInPowersOf1024) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1'480'000'000), "1.38 GiB");
  EXPECT_EQ(format_bytes(3'489'660'928), "3.25 GiB");
  EXPECT_EQ(format_bytes(883'187'712), "842 MiB");
  EXPECT_EQ(format_bytes(1000), "0.98 KiB");
}

TEST(NumberFormat, RatiosKeepTwoSignificantDigitsBelowATenth) {
  EXPECT_EQ(format_ratio(7.2249), "7.22x");
  EXPECT_EQ(format_ratio(1022.3), "1022x");
  EXPECT_EQ(format_ratio(0.24), "0.24x");
  EXPECT_EQ(format_ratio(0.0042), "0.0042x");
  EXPECT_EQ(format_ratio(0), "0.00x");
}

TEST(NumberFormat, MicrosecondsPercentagesAndCountedNouns) {
  EXPECT_EQ(format_percent(0.0356), "3.56%");
  EXPECT_EQ(format_us(37.54), "37.5 \xC2\xB5s");
  EXPECT_EQ(format_us(2233.855), "2,234 \xC2\xB5s");
  EXPECT_EQ(format_us(756921.4), "756,921 \xC2\xB5s");
  EXPECT_EQ(count_of(1, "row"), "1 row");
  EXPECT_EQ(count_of(166, "row"), "166 rows");
  EXPECT_EQ(count_of(0, "file"), "0 files");
  EXPECT_EQ(count_of(2, "query", "queries"), "2 queries");
}

// Any double prints in a few columns: the step's chain can divide one measured time by another.
TEST(NumberFormat, ExtremeAndNonFiniteValuesStayShortAndNamed) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(format_us(1.7e308), "1.7e+308 \xC2\xB5s");
  EXPECT_EQ(format_us(-1.7e308), "-1.7e+308 \xC2\xB5s");
  EXPECT_EQ(format_us(999'999'999'999'999.0), "999,999,999,999,999 \xC2\xB5s");  // the widest in full
  EXPECT_EQ(format_us(1e15), "1e+15 \xC2\xB5s");
  EXPECT_EQ(format_us(inf), "not finite");
  EXPECT_EQ(format_percent(-1e300), "-1e+302%");
  EXPECT_EQ(format_percent(12345.0), "1.23e+06%");
  EXPECT_EQ(format_percent(std::nan("")), "not finite");
  EXPECT_EQ(format_ratio(1e300), "1e+300x");
  EXPECT_EQ(format_ratio(-0.35), "-0.35x");
  EXPECT_EQ(format_ratio(-inf), "not finite");
  EXPECT_EQ(format_count(1e300), "1e+282 E");
  EXPECT_EQ(format_bytes(inf), "not finite");
}

}  // namespace
}  // namespace attnlab
