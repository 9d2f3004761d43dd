// Host-only check of check_written (run/check_written.hpp), which `attnlab run`
// and the GPU tests use to see that a run wrote every output. Needs no GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "run/check_written.hpp"

namespace attnlab {
namespace {

TEST(CheckWritten, CountsUnwrittenValidPairsAndDirtyPadding) {
  const Layout layout = make_padded_layout({3, 1}, 3, true);  // row 1: one token, two padding positions
  AttentionProblem p;
  p.heads = 2;
  p.kv_heads = 1;
  p.head_dim = 64;
  const std::size_t pairs = std::size_t(layout.buffer_tokens()) * p.heads;
  std::vector<float> o(pairs * p.head_dim, 0.5f), lse(pairs, 1.f);
  for (std::int64_t pos = 0; pos < layout.buffer_tokens(); ++pos)
    if (layout.token_source[pos] < 0)
      for (int h = 0; h < p.heads; ++h) {
        std::fill_n(o.begin() + (pos * p.heads + h) * p.head_dim, p.head_dim, 0.f);
        lse[pos * p.heads + h] = -INFINITY;
      }
  EXPECT_EQ(check_written(layout, p, o, lse).unwritten, 0);
  EXPECT_EQ(check_written(layout, p, o, lse).padding_not_zero, 0);

  o[(1 * p.heads + 1) * p.head_dim + 7] = std::numeric_limits<float>::quiet_NaN();  // position 1, head 1: poison left
  lse[0] = INFINITY;                                                                // position 0, head 0
  const std::int64_t first_pad = layout.row_start[1] + 1;
  lse[first_pad * p.heads] = 0.f;  // a padding pair with a finite LSE
  const WrittenOutputs w = check_written(layout, p, o, lse);
  EXPECT_EQ(w.unwritten, 2);
  EXPECT_EQ(w.padding_not_zero, 1);

  EXPECT_THROW(check_written(layout, p, std::vector<float>(3), lse), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab
