#pragma once
// The inputs every implementation of a run is checked on: seeded random Q, K, V in
// canonical token order (the documents concatenated: the varlen buffer), rounded to
// the dtype, kept on the host for the fp64 reference and uploaded once to the
// device, where each layout gathers them (so a large padded buffer costs no upload);
// and the reference of each layout, computed once however many implementations
// share the layout. Above a budget of cells the reference covers a seeded sample of
// rows and heads, so a large scenario is checked in seconds, not hours.
#include <cstdint>
#include <map>
#include <string>

#include "kernels/attention.hpp"
#include "reference/attention_inputs.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab {

class RunInputs {
 public:
  enum class Coverage { sampled_when_large, everything };

  // Throws GpuMemoryError when the device copy does not fit.
  RunInputs(std::int64_t tokens, const AttentionProblem& problem, std::uint64_t seed,
            Coverage coverage = Coverage::sampled_when_large);

  const AttentionInputs& host() const { return host_; }
  AttentionTensors& device() { return device_; }

  // The reference over `layout` (a layout of these tokens that outlives this object),
  // computed on first use, and what it covers: "all" or e.g. "5/64 rows, 2/16 heads".
  const ReferenceOutput& reference(const Layout& layout);
  const std::string& coverage(const Layout& layout);

 private:
  struct Checked {
    ReferenceOutput output;
    std::string coverage;
  };
  const Checked& checked(const Layout& layout);

  AttentionProblem problem_;
  std::uint64_t seed_;
  Coverage coverage_;
  AttentionInputs host_;
  AttentionTensors device_;
  std::map<const Layout*, Checked> references_;
};

}  // namespace attnlab
