#pragma once
// What every results row says about the run itself: the GPU, the driver, the CUDA
// version, the commit and the date (DESIGN.md §6).
#include <string>

#include "kernels/attention.hpp"

namespace attnlab::bench {

struct RunInfo {
  std::string gpu, driver, cuda_version, commit, date;
};

// The commit is $ATTNLAB_COMMIT when set (a copy of the tree without .git, as on the
// device machine, passes it in), else `git rev-parse` of the source tree, else empty.
RunInfo describe_run(const GpuInfo& gpu);

}  // namespace attnlab::bench
