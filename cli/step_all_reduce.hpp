#pragma once
// `attnlab step`'s all-reduce of several GPUs: each measured multi-GPU row's ring and bus bandwidth,
// and the article's 8 GPUs on paper (analysis/all_reduce_estimate.hpp), as one line of the default
// output, a table of --details and a field of --format json.
#include <optional>
#include <string>

#include "analysis/all_reduce_estimate.hpp"

namespace attnlab::cli {

// One paragraph, wrapped at `columns`: 8 GPUs' bytes, ring steps and estimated time, and which row priced them.
void print_all_reduce_summary(const AllReduceEstimate& e, std::size_t columns);
// How the figures are formed, in a paragraph wrapped at `columns`; then the ring of each measured row and of 8 GPUs.
void print_all_reduce_table(const AllReduceEstimate& e, const ModelShape& model, std::size_t columns);
// The estimate as a JSON object; "null" without one.
std::string all_reduce_json(const std::optional<AllReduceEstimate>& e);

}  // namespace attnlab::cli
