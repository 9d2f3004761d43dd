// The parts of the host API that need no GPU: shared by CUDA and CPU-only builds.
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "kernels/attention.hpp"

namespace attnlab {

namespace {

// The kernels exponentiate base 2: a score is multiplied by scale·log2 e.
constexpr float log2_e = std::numbers::log2e_v<float>;

// Whether a softmax scale and what the kernels multiply scores by are both positive and finite in fp32.
bool usable_scale(float scale) { return scale > 0 && std::isfinite(scale) && std::isfinite(scale * log2_e); }

template <typename Number>
std::string shortest(Number value) {
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  return error == std::errc{} ? std::string(text, end) : "?";
}

[[noreturn]] void refuse_scale(double scale) {
  throw InputError("scale: expected a softmax scale above 0 and at most " +
                   shortest(std::numeric_limits<float>::max() / log2_e) +
                   " (scale and scale * log2(e) finite and nonzero in float32), got " + shortest(scale));
}

}  // namespace

std::string cuda_version_string(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

float checked_softmax_scale(double scale) {
  // Compared as a double first: a double past fp32's range has no fp32 value to convert to.
  if (!(scale > 0 && scale <= std::numeric_limits<float>::max()) || !usable_scale(static_cast<float>(scale)))
    refuse_scale(scale);
  return static_cast<float>(scale);
}

float AttentionProblem::softmax_scale() const { return scale.value_or(1.0f / std::sqrt(float(head_dim))); }

void AttentionProblem::validate() const {
  if (head_dim != 64 && head_dim != 128)
    throw InputError("head_dim: the kernels support 64 and 128, got " + std::to_string(head_dim));
  if (heads <= 0 || kv_heads <= 0 || heads % kv_heads != 0)
    throw InputError("kv_heads: expected a positive divisor of heads (" + std::to_string(heads) + "), got " +
                     std::to_string(kv_heads));
  if (scale && !usable_scale(*scale)) refuse_scale(*scale);
}

}  // namespace attnlab
