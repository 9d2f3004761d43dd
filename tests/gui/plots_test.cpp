// A plot narrower than its values draws one column per run of them: as many columns as
// pixels whatever the number of values (16M document lengths drew 16M bars, 8 GB a frame),
// each holding the least and greatest of its run.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "gui/widgets/plots.hpp"

namespace attnlab::gui {
namespace {

TEST(Plots, ColumnsHoldTheRangeOfTheirValues) {
  std::vector<int> lengths(1 << 20);
  std::iota(lengths.begin(), lengths.end(), 1);
  lengths[700'000] = 5'000'000;  // one long document stands out in its column
  const auto columns = column_ranges(std::span<const int>(lengths), 300);
  ASSERT_EQ(columns.size(), 300u);
  EXPECT_EQ(columns.front().first, 1.0);
  EXPECT_EQ(columns.back().second, double(1 << 20));
  const std::size_t at = 700'000 * 300 / (1 << 20);
  EXPECT_EQ(columns[at].second, 5'000'000.0);
  for (std::size_t c = 0; c + 1 < columns.size(); ++c) {
    if (c != at && c + 1 != at) {
      EXPECT_LT(columns[c].second, columns[c + 1].first);
    }
  }
  const std::vector<double> missing = {NAN, NAN, 2.0, INFINITY};
  const auto two = column_ranges(std::span<const double>(missing), 2);
  EXPECT_TRUE(std::isnan(two[0].first));
  EXPECT_EQ(two[1], (std::pair{2.0, 2.0}));
}

}  // namespace
}  // namespace attnlab::gui
