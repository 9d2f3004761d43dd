#pragma once
// Results rows of ours and of peers, as the tests write them: by default for uniform-64x512 on the H100.
#include <string>

#include "core/results/results_csv.hpp"

namespace attnlab {

// `kernel`: the results' kernel column (empty, as a file from before it was written). The shape,
// tokens and window columns are uniform-64x512's, as every writer fills them (a row without
// them stands for no scenario's cells: analysis/same_cells.hpp).
inline ResultRow our_row(const char* implementation, double median_us, const char* kernel = "",
                         const std::string& scenario = "uniform-64x512") {
  ResultRow r;
  r.kernel = kernel;
  r.scenario = scenario;
  r.implementation = implementation;
  r.source = "attnlab";
  r.gpu = "NVIDIA H100 80GB HBM3";
  r.heads = 16;
  r.kv_heads = 16;
  r.head_dim = 128;
  r.tokens = 64 * 512;
  r.window_left = r.window_right = -1;
  r.median_us = median_us;
  return r;
}

// A peer's row beside `implementation` (its kernel named by `source`), as our_row's otherwise.
inline ResultRow peer_row(const char* source, const char* implementation, double median_us) {
  ResultRow r = our_row(implementation, median_us);
  r.source = source;
  return r;
}

}  // namespace attnlab
