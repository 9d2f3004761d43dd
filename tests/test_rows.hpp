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

// A context-parallel rank's row (results/README.md, "Context parallelism"), our_row's otherwise:
// rank `rank` of `ranks` by `strategy` and `exchange`, its compute `compute_us`, of a whole run of
// 400 µs; over several GPUs (`gpus` > 1) its run, transfers and exposed time set as well.
inline ResultRow cp_rank_row(int rank, int ranks, const char* exchange, int gpus, double compute_us,
                             const char* strategy = "zigzag", const std::string& scenario = "uniform-64x512") {
  ResultRow r = our_row("varlen", compute_us, "", scenario);
  r.ranks = ranks;
  r.cp_strategy = strategy;
  r.cp_exchange = exchange;
  r.cp_rank = rank;
  r.cp_gpus = gpus;
  r.cp_whole_us = 400;
  if (gpus > 1) {
    r.cp_run_us = compute_us + 10 * (rank + 1);
    r.cp_transfer_us = 50;
    r.cp_exposed_us = 5 * (rank + 1);
    r.cp_kv_bytes_received = 1 << 20;
  }
  return r;
}

// A peer's row beside `implementation` (its kernel named by `source`), as our_row's otherwise.
inline ResultRow peer_row(const char* source, const char* implementation, double median_us) {
  ResultRow r = our_row(implementation, median_us);
  r.source = source;
  return r;
}

}  // namespace attnlab
