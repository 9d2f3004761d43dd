#pragma once
// The inputs every implementation of a run is checked on: seeded random Q, K, V in
// canonical token order (the documents concatenated: the varlen buffer), rounded to
// the dtype, kept on the host for the fp64 reference and uploaded once to the
// device, where each layout gathers them (so a large padded buffer costs no upload);
// and the reference of each layout, computed once however many implementations
// share the layout. Above a budget of cells the reference covers a seeded sample of
// rows and heads, so a large scenario is checked in seconds, not hours. For the
// backward: a seeded random dO beside them, and the fp64 backward reference of each
// layout on the same sample (its heads widened to whole KV groups).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/attention.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/reference_attention.hpp"
#include "reference/reference_backward.hpp"

namespace attnlab {

class RunInputs {
 public:
  enum class Coverage { sampled_when_large, everything };

  // Throws GpuMemoryError when the device copy does not fit.
  RunInputs(std::int64_t tokens, const AttentionProblem& problem, std::uint64_t seed,
            Coverage coverage = Coverage::sampled_when_large);

  const AttentionInputs& host() const { return host_; }
  AttentionTensors& device() { return device_; }
  // dO in canonical token order, [tokens][heads][head_dim], values of the dtype;
  // drawn on first use (a forward-only run never holds it).
  const std::vector<float>& d_o();

  // The reference over `layout` (a layout of these tokens that outlives this object),
  // computed on first use, and what it covers: "all" or e.g. "5/64 rows, 2/16 heads".
  const ReferenceOutput& reference(const Layout& layout);
  const std::string& coverage(const Layout& layout);
  // The backward reference over `layout` for d_o(), computed on first use.
  const ReferenceGradients& reference_gradients(const Layout& layout);

 private:
  struct Checked {
    ReferenceOutput output;
    std::string coverage;
    ReferenceOptions sample;
  };
  const Checked& checked(const Layout& layout);

  AttentionProblem problem_;
  std::uint64_t seed_;
  Coverage coverage_;
  AttentionInputs host_;
  AttentionTensors device_;
  std::vector<float> d_o_;
  std::map<const Layout*, Checked> references_;
  std::map<const Layout*, ReferenceGradients> gradient_references_;
};

}  // namespace attnlab
