#pragma once
// How far an output is from the fp64 reference, over the valid (non-padding)
// positions of the rows and heads the reference computed; and the bleed: how far
// one layout's outputs (packed) move from the true per-document outputs (varlen),
// token by token.
#include <optional>
#include <span>

#include "core/layout/layouts.hpp"
#include "reference/reference_attention.hpp"
#include "reference/reference_backward.hpp"

namespace attnlab {

struct ErrorStats {
  double rel_l2 = 0;                  // ||candidate - reference||_2 / ||reference||_2
  double max_abs = 0;                 // max |candidate - reference|
  std::optional<double> lse_max_abs;  // max |LSE - reference LSE|, when an LSE was given
  std::int64_t values = 0;            // output values compared
};

// candidate_o: [positions][heads][head_dim] in the layout's buffer order (float,
// as downloaded from a kernel); candidate_lse (optional): [positions][heads].
ErrorStats compare_to_reference(const Layout& layout, const ReferenceOutput& reference,
                                std::span<const float> candidate_o, std::span<const float> candidate_lse = {});

// A backward pass's gradients against the reference, each on its own: dQ over the
// valid positions of the computed rows and heads, dK and dV over those positions
// and the computed kv heads (whole KV groups, so each kv head's sum is complete).
struct GradientErrorStats {
  ErrorStats dq, dk, dv;
  // The gradient with the largest relative L2 (the one a run reports) and its name.
  const ErrorStats& worst() const;
  const char* worst_name() const;
};

// candidate_dq: [positions][heads][head_dim], candidate_dk and candidate_dv:
// [positions][kv_heads][head_dim], all in the layout's buffer order (float, as
// downloaded from a kernel).
GradientErrorStats compare_gradients_to_reference(const Layout& layout, const ReferenceGradients& reference,
                                                  std::span<const float> candidate_dq,
                                                  std::span<const float> candidate_dk,
                                                  std::span<const float> candidate_dv);

// One layout's outputs against another layout's reference, both mapped to
// canonical tokens through token_source, over the tokens present in both and
// computed by the reference (heads as the reference's). The candidate is a float
// output of every position and head, or another ReferenceOutput (then only what
// both computed). With candidate = packed and reference = varlen this is the bleed.
ErrorStats compare_across_layouts(const Layout& candidate_layout, std::span<const float> candidate_o,
                                  const Layout& reference_layout, const ReferenceOutput& reference);
ErrorStats compare_across_layouts(const Layout& candidate_layout, const ReferenceOutput& candidate,
                                  const Layout& reference_layout, const ReferenceOutput& reference);

// Relative L2 of packed outputs against the true per-document (varlen) outputs.
inline double bleed_rel_l2(const Layout& packed, const ReferenceOutput& packed_out, const Layout& varlen,
                           const ReferenceOutput& varlen_out) {
  return compare_across_layouts(packed, packed_out, varlen, varlen_out).rel_l2;
}

}  // namespace attnlab
