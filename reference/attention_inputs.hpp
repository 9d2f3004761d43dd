#pragma once
// Q, K and V for a run, in canonical token order (the documents concatenated,
// i.e. the varlen buffer), already rounded to the run's dtype so the GPU and the
// CPU reference see the very same numbers.
#include <cstdint>
#include <span>
#include <vector>

#include "core/layout/layouts.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {

struct AttentionInputs {
  std::int64_t tokens = 0;  // positions, canonical tokens or layout buffer positions
  int heads = 0;
  int kv_heads = 0;  // grouped-query attention: query head h reads kv head h / (heads / kv_heads)
  int head_dim = 0;
  DType dtype = DType::bf16;
  std::vector<float> q;  // [tokens][heads][head_dim]
  std::vector<float> k;  // [tokens][kv_heads][head_dim]
  std::vector<float> v;  // [tokens][kv_heads][head_dim]

  int kv_head_of(int head) const { return head / (heads / kv_heads); }
  const float* q_at(std::int64_t t, int head) const { return q.data() + (t * heads + head) * head_dim; }
  const float* k_at(std::int64_t t, int kv_head) const { return k.data() + (t * kv_heads + kv_head) * head_dim; }
  const float* v_at(std::int64_t t, int kv_head) const { return v.data() + (t * kv_heads + kv_head) * head_dim; }
};

// Uniform values in [-1, 1), rounded to dtype. The generator is mt19937_64 with our
// own float mapping, so a seed gives the same numbers with every standard library.
// Throws std::invalid_argument unless heads is a positive multiple of kv_heads.
AttentionInputs make_random_inputs(std::int64_t tokens, int heads, int kv_heads, int head_dim, DType dtype,
                                   std::uint64_t seed);

// dO for the backward pass, [tokens][heads][head_dim] in canonical token order:
// uniform in [-1, 1) and rounded to the inputs' dtype, drawn as make_random_inputs
// draws (its own seed, so Q, K and V stay what they were).
std::vector<float> make_random_grad_output(const AttentionInputs& inputs, std::uint64_t seed);

// Per-token values (`width` floats per token, canonical order) in a layout's buffer
// order: position p holds token layout.token_source[p], padding holds pad_value.
// Throws std::out_of_range for a layout token beyond the values.
std::vector<float> gather_tokens(const Layout& layout, std::span<const float> canonical, std::size_t width,
                                 float pad_value = 0.0f);

// The inputs in a layout's buffer order (what a kernel uploads): position p holds
// canonical token layout.token_source[p]; padding positions hold pad_value.
AttentionInputs gather_inputs(const Layout& layout, const AttentionInputs& canonical, float pad_value = 0.0f);

}  // namespace attnlab
