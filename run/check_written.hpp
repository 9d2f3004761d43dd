#pragma once
// Whether a run wrote every output it owes: checked on O and LSE poisoned beforehand.
#include <cstdint>
#include <vector>

#include "core/layout/layouts.hpp"
#include "kernels/attention.hpp"

namespace attnlab {

// What a run wrote into O and LSE poisoned beforehand (DeviceBuffer::poison), per
// (position, head): valid pairs whose O or LSE is not finite (left unwritten), and
// padding pairs without O = 0, LSE = -inf.
struct WrittenOutputs {
  std::int64_t unwritten = 0;
  std::int64_t padding_not_zero = 0;
};
WrittenOutputs check_written(const Layout& layout, const AttentionProblem& problem, const std::vector<float>& o,
                             const std::vector<float>& lse);

}  // namespace attnlab
