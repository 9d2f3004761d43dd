#pragma once
// The fp64 CPU reference of attention's backward pass over any layout: given dO,
// the gradients dQ, dK, dV of the loss L = Σ dO∘O, with the same cells taking
// part as in the forward (cell_kind useful or bleed). Two ways, like the forward:
//  - reference_backward_materialized: per query, the full masked softmax row P,
//    then D = rowsum(dO∘O), dV += Pᵀ·dO, dP = dO·Vᵀ, dS = P∘(dP − D),
//    dQ = scale·dS·K, dK += scale·dSᵀ·Q: what naive does on the GPU, one query row at a time;
//  - reference_backward_tiled: FlashAttention-2's backward, from the forward's saved
//    O and LSE: per key tile, over the query tiles that visit it, P is recomputed as
//    exp(scale·q·k − LSE), dK and dV accumulate for the key tile, dQ accumulates across key tiles.
//
// Grouped-query attention: dK and dV of a kv head sum over every query head of
// its group, so a computed part (ReferenceOptions::heads) must take whole groups
// (whole_kv_groups makes a choice whole); the functions throw otherwise.
// Rows can be sampled freely: no gradient crosses a row.
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/layout/layouts.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab {

// Gradients in the layout's buffer order, for the computed rows and heads only.
// With everything computed, dq is [positions][heads][head_dim] and dk, dv are
// [positions][kv_heads][head_dim]. Padding positions and keys no query attends
// get 0.
struct ReferenceGradients {
  std::int64_t positions = 0;  // the layout's buffer positions
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  std::vector<int> computed_rows;              // sorted layout rows
  std::vector<int> computed_heads;             // sorted query heads: whole KV groups
  std::vector<int> computed_kv_heads;          // sorted kv heads of those groups
  std::vector<char> row_computed;              // per layout row: 1 if computed
  std::vector<std::int64_t> slot_of_position;  // -1 outside the computed rows
  std::vector<int> slot_of_head, slot_of_kv_head;
  std::vector<double> dq;      // [computed positions][computed heads][head_dim]
  std::vector<double> dk, dv;  // [computed positions][computed kv heads][head_dim]

  bool computed(std::int64_t pos) const { return slot_of_position[pos] >= 0; }
  // NaN where not computed.
  double dq_at(std::int64_t pos, int head, int d) const {
    return at(dq, pos, slot_of_head[head], computed_heads.size(), d);
  }
  double dk_at(std::int64_t pos, int kv_head, int d) const {
    return at(dk, pos, slot_of_kv_head[kv_head], computed_kv_heads.size(), d);
  }
  double dv_at(std::int64_t pos, int kv_head, int d) const {
    return at(dv, pos, slot_of_kv_head[kv_head], computed_kv_heads.size(), d);
  }

 private:
  double at(const std::vector<double>& g, std::int64_t pos, int head_slot, std::size_t slots, int d) const {
    if (slot_of_position[pos] < 0 || head_slot < 0) return std::numeric_limits<double>::quiet_NaN();
    return g[(static_cast<std::size_t>(slot_of_position[pos]) * slots + head_slot) * head_dim + d];
  }
};

// The chosen query heads widened to whole KV groups (sorted); empty stays empty (= all).
std::vector<int> whole_kv_groups(const std::vector<int>& heads, int num_heads, int kv_heads);

// grad_output: dO, [tokens][heads][head_dim] in canonical token order (what
// make_random_grad_output gives; gather_tokens puts it in a layout's buffer order).
ReferenceGradients reference_backward_materialized(const Layout& layout, const AttentionInputs& canonical,
                                                   std::span<const float> grad_output, double scale,
                                                   const ReferenceOptions& options = {});

// forward: the forward pass's O and LSE (reference_tiled or reference_materialized),
// which must cover the rows and heads chosen here.
ReferenceGradients reference_backward_tiled(const Layout& layout, const AttentionInputs& canonical,
                                            const ReferenceOutput& forward, std::span<const float> grad_output,
                                            double scale, TileShape tile, const ReferenceOptions& options = {});

}  // namespace attnlab
