// The parts of the host API that need no GPU: shared by CUDA and CPU-only builds.
#include <cmath>
#include <stdexcept>

#include "kernels/attention.hpp"

namespace attnlab {

std::string cuda_version_string(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

float AttentionProblem::softmax_scale() const { return scale > 0 ? scale : 1.0f / std::sqrt(float(head_dim)); }

void AttentionProblem::validate() const {
  if (head_dim != 64 && head_dim != 128)
    throw InputError("head_dim: the kernels support 64 and 128, got " + std::to_string(head_dim));
  if (heads <= 0 || kv_heads <= 0 || heads % kv_heads != 0)
    throw InputError("kv_heads: expected a positive divisor of heads (" + std::to_string(heads) + "), got " +
                     std::to_string(kv_heads));
}

}  // namespace attnlab
