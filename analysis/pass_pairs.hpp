#pragma once
// The forward and the backward of each (source, kernel, implementation) in one shape, and
// their sum: what a training step pays for attention. The sum is taken only where
// one results file holds both passes (one run of the same code on the same machine);
// adding two files' rows would mix runs. A pass no file holds is missing, never zero.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/primary_runs.hpp"

namespace attnlab {

struct PassPair {
  std::string source, kernel, implementation;  // a kernel's forward pairs only with that kernel's backward
  // The rows shown: both from `one_file` where a file holds both passes, else each
  // pass's primary run; empty where no file holds that pass.
  std::optional<Run> fwd, bwd;
  const std::filesystem::path* one_file = nullptr;  // the first file (results order) holding both passes

  // Forward plus backward median, both from `one_file`; empty without one.
  std::optional<double> sum_us() const;
};

// Every (source, kernel, implementation) with a forward or a backward run in `shape` (its
// `pass` is ignored): ours first, then the peers with a backward, then the others; in
// each group in the order their first rows come in the files.
std::vector<PassPair> pass_pairs(const LoadedResults& results, const Configuration& shape);

}  // namespace attnlab
