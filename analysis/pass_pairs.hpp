#pragma once
// The forward and the backward of each (source, kernel, implementation) in one shape, and
// their sum: what a training step pays for attention. The sum is taken only of two rows
// of one build: one file's of one commit (one run), or two files' of the same code on the same machine
// (commit, GPU, driver and CUDA alike); adding two builds' rows would mix code. A pass
// no file holds is missing, never zero.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/primary_runs.hpp"

namespace attnlab {

struct PassPair {
  std::string source, kernel, implementation;  // a kernel's forward pairs only with that kernel's backward
  // The rows shown: the primary runs where they are of one build; else the first rows
  // of one build (a file holding both passes first, then any two files in results order);
  // else each pass's primary run. Empty where no file holds that pass.
  std::optional<Run> fwd, bwd;
  bool one_build = false;  // fwd and bwd are of one build: they may be summed

  // Forward plus backward median, where they are of one build; empty otherwise.
  std::optional<double> sum_us() const;
};

// Every (source, kernel, implementation) with a forward or a backward run in `shape` (its
// `pass` is ignored): ours first, then the peers with a backward, then the others; in
// each group in the order their first rows come in the files.
std::vector<PassPair> pass_pairs(const LoadedResults& results, const Configuration& shape);

// Two rows of the same code on the same machine: commit (named), GPU, driver and CUDA version alike.
bool same_build(const ResultRow& a, const ResultRow& b);

}  // namespace attnlab
