#include "run/check_written.hpp"

#include <cmath>
#include <stdexcept>

namespace attnlab {

WrittenOutputs check_written(const Layout& layout, const AttentionProblem& problem, const std::vector<float>& o,
                             const std::vector<float>& lse) {
  const int H = problem.heads, D = problem.head_dim;
  const std::size_t pairs = std::size_t(layout.buffer_tokens()) * H;
  if (o.size() != pairs * D || lse.size() != pairs)
    throw std::invalid_argument("check_written: O or LSE does not hold the layout's positions x heads");
  WrittenOutputs w;
  for (std::int64_t pos = 0; pos < layout.buffer_tokens(); ++pos)
    for (int h = 0; h < H; ++h) {
      const float* out = o.data() + (pos * H + h) * D;
      const float l = lse[pos * H + h];
      if (layout.token_source[pos] >= 0) {
        bool finite = std::isfinite(l);
        for (int d = 0; d < D; ++d) finite = finite && std::isfinite(out[d]);
        w.unwritten += !finite;
      } else {
        bool zero = l == -INFINITY;
        for (int d = 0; d < D; ++d) zero = zero && out[d] == 0.f;
        w.padding_not_zero += !zero;
      }
    }
  return w;
}

}  // namespace attnlab
