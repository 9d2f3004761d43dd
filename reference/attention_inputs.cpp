#include "reference/attention_inputs.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "core/scenario/numeric.hpp"

namespace attnlab {

namespace {

void check_shape(std::int64_t tokens, int heads, int kv_heads, int head_dim) {
  if (tokens < 0 || heads <= 0 || kv_heads <= 0 || head_dim <= 0 || heads % kv_heads != 0)
    throw std::invalid_argument(
        "attention inputs need tokens >= 0, head_dim > 0 and heads a positive multiple of "
        "kv_heads; got tokens " +
        std::to_string(tokens) + ", heads " + std::to_string(heads) + ", kv_heads " + std::to_string(kv_heads) +
        ", head_dim " + std::to_string(head_dim));
}

AttentionInputs sized_inputs(std::int64_t tokens, int heads, int kv_heads, int head_dim, DType dtype) {
  AttentionInputs in;
  in.tokens = tokens;
  in.heads = heads;
  in.kv_heads = kv_heads;
  in.head_dim = head_dim;
  in.dtype = dtype;
  in.q.resize(static_cast<std::size_t>(tokens) * heads * head_dim);
  in.k.resize(static_cast<std::size_t>(tokens) * kv_heads * head_dim);
  in.v.resize(in.k.size());
  return in;
}

// Uniform values in [-1, 1) rounded to dtype: the top 24 bits of each draw give a
// float in [-1, 1) exactly, on every platform.
void fill_uniform(std::vector<float>& values, std::mt19937_64& rng, DType dtype) {
  for (float& x : values) x = round_to_dtype(static_cast<float>(rng() >> 40) * 0x1p-23f - 1.0f, dtype);
}

}  // namespace

AttentionInputs make_random_inputs(std::int64_t tokens, int heads, int kv_heads, int head_dim, DType dtype,
                                   std::uint64_t seed) {
  check_shape(tokens, heads, kv_heads, head_dim);
  AttentionInputs in = sized_inputs(tokens, heads, kv_heads, head_dim, dtype);
  std::mt19937_64 rng(seed);
  fill_uniform(in.q, rng, dtype);
  fill_uniform(in.k, rng, dtype);
  fill_uniform(in.v, rng, dtype);
  return in;
}

std::vector<float> make_random_grad_output(const AttentionInputs& inputs, std::uint64_t seed) {
  check_shape(inputs.tokens, inputs.heads, inputs.kv_heads, inputs.head_dim);
  std::vector<float> grad(static_cast<std::size_t>(inputs.tokens) * inputs.heads * inputs.head_dim);
  std::mt19937_64 rng(seed);
  fill_uniform(grad, rng, inputs.dtype);
  return grad;
}

std::vector<float> gather_tokens(const Layout& layout, std::span<const float> canonical, std::size_t width,
                                 float pad_value) {
  const std::int64_t tokens = width == 0 ? 0 : static_cast<std::int64_t>(canonical.size() / width);
  std::vector<float> out(static_cast<std::size_t>(layout.buffer_tokens()) * width, pad_value);
  for (std::int64_t p = 0; p < layout.buffer_tokens(); ++p) {
    const std::int64_t t = layout.token_source[p];
    if (t >= tokens)
      throw std::out_of_range("layout token " + std::to_string(t) + " beyond the inputs' " + std::to_string(tokens) +
                              " tokens");
    if (t >= 0) std::copy_n(canonical.data() + t * width, width, out.data() + p * width);
  }
  return out;
}

AttentionInputs gather_inputs(const Layout& layout, const AttentionInputs& canonical, float pad_value) {
  AttentionInputs out;
  out.tokens = layout.buffer_tokens();
  out.heads = canonical.heads;
  out.kv_heads = canonical.kv_heads;
  out.head_dim = canonical.head_dim;
  out.dtype = canonical.dtype;
  const std::size_t q_width = static_cast<std::size_t>(canonical.heads) * canonical.head_dim;
  const std::size_t kv_width = static_cast<std::size_t>(canonical.kv_heads) * canonical.head_dim;
  out.q = gather_tokens(layout, canonical.q, q_width, pad_value);
  out.k = gather_tokens(layout, canonical.k, kv_width, pad_value);
  out.v = gather_tokens(layout, canonical.v, kv_width, pad_value);
  return out;
}

}  // namespace attnlab
