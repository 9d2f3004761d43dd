#include "reference/attention_inputs.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "core/numeric.hpp"

namespace attnlab {

namespace {

void check_shape(std::int64_t tokens, int heads, int kv_heads, int head_dim) {
  if (tokens < 0 || heads <= 0 || kv_heads <= 0 || head_dim <= 0 || heads % kv_heads != 0)
    throw std::invalid_argument("attention inputs need tokens >= 0, head_dim > 0 and heads a positive multiple of "
                                "kv_heads; got tokens " + std::to_string(tokens) + ", heads " + std::to_string(heads) +
                                ", kv_heads " + std::to_string(kv_heads) + ", head_dim " + std::to_string(head_dim));
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

}  // namespace

AttentionInputs make_random_inputs(std::int64_t tokens, int heads, int kv_heads, int head_dim, DType dtype,
                                   std::uint64_t seed) {
  check_shape(tokens, heads, kv_heads, head_dim);
  AttentionInputs in = sized_inputs(tokens, heads, kv_heads, head_dim, dtype);
  std::mt19937_64 rng(seed);
  // The top 24 bits of each draw give a float in [-1, 1) exactly, on every platform.
  const auto fill = [&](std::vector<float>& values) {
    for (float& x : values) x = round_to_dtype(static_cast<float>(rng() >> 40) * 0x1p-23f - 1.0f, dtype);
  };
  fill(in.q);
  fill(in.k);
  fill(in.v);
  return in;
}

AttentionInputs gather_inputs(const Layout& layout, const AttentionInputs& canonical, float pad_value) {
  AttentionInputs out =
      sized_inputs(layout.buffer_tokens(), canonical.heads, canonical.kv_heads, canonical.head_dim, canonical.dtype);
  const std::size_t q_width = static_cast<std::size_t>(canonical.heads) * canonical.head_dim;
  const std::size_t kv_width = static_cast<std::size_t>(canonical.kv_heads) * canonical.head_dim;
  for (std::int64_t p = 0; p < out.tokens; ++p) {
    const std::int64_t t = layout.token_source[p];
    if (t >= canonical.tokens) throw std::out_of_range("layout token " + std::to_string(t) + " beyond the inputs' " +
                                                       std::to_string(canonical.tokens) + " tokens");
    const auto copy_or_pad = [&](const std::vector<float>& from, std::vector<float>& to, std::size_t width) {
      float* dst = to.data() + p * width;
      if (t < 0)
        std::fill(dst, dst + width, pad_value);
      else
        std::copy_n(from.data() + t * width, width, dst);
    };
    copy_or_pad(canonical.q, out.q, q_width);
    copy_or_pad(canonical.k, out.k, kv_width);
    copy_or_pad(canonical.v, out.v, kv_width);
  }
  return out;
}

}  // namespace attnlab
