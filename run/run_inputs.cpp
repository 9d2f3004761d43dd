#include "run/run_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace attnlab {

namespace {

// The fp64 reference walks every cell of every row it computes; above this many
// cells (all checked heads together) it checks a seeded sample instead.
constexpr double reference_cell_budget = 4e8;
constexpr int sampled_heads = 2;

struct ReferenceSample {
  ReferenceOptions options;
  std::string description;  // "all" or "5/64 rows, 2/16 heads"
};

ReferenceSample choose_reference_sample(const Layout& layout, int heads, std::uint64_t seed) {
  const LayoutView view = layout.view();
  std::vector<double> row_cells(layout.num_rows());
  for (int r = 0; r < layout.num_rows(); ++r) row_cells[r] = std::pow(double(row_extent(view, r)), 2);
  const double all_cells = std::accumulate(row_cells.begin(), row_cells.end(), 0.0);
  ReferenceSample sample;
  if (all_cells * heads <= reference_cell_budget) {
    sample.description = "all";
    return sample;
  }
  std::mt19937_64 rng(seed);
  std::vector<int> heads_order(heads), rows_order(layout.num_rows());
  std::iota(heads_order.begin(), heads_order.end(), 0);
  std::iota(rows_order.begin(), rows_order.end(), 0);
  std::shuffle(heads_order.begin(), heads_order.end(), rng);
  std::shuffle(rows_order.begin(), rows_order.end(), rng);
  // Two heads, or one when the first sampled row alone would take the budget with two.
  const int nheads =
      row_cells[rows_order.front()] * sampled_heads > reference_cell_budget ? 1 : std::min(heads, sampled_heads);
  sample.options.heads.assign(heads_order.begin(), heads_order.begin() + nheads);
  double used = 0;
  for (int r : rows_order) {  // seeded order; every row that still fits, and at least one
    if (!sample.options.rows.empty() && used + row_cells[r] * nheads > reference_cell_budget) continue;
    sample.options.rows.push_back(r);
    used += row_cells[r] * nheads;
  }
  std::sort(sample.options.rows.begin(), sample.options.rows.end());
  std::sort(sample.options.heads.begin(), sample.options.heads.end());
  sample.description = std::to_string(sample.options.rows.size()) + "/" + std::to_string(layout.num_rows()) +
                       " rows, " + std::to_string(nheads) + "/" + std::to_string(heads) + " heads";
  return sample;
}

}  // namespace

RunInputs::RunInputs(std::int64_t tokens, const AttentionProblem& problem, std::uint64_t seed, Coverage coverage)
    : problem_(problem),
      seed_(seed),
      coverage_(coverage),
      host_(make_random_inputs(tokens, problem.heads, problem.kv_heads, problem.head_dim, problem.dtype, seed)),
      device_(tokens, problem) {
  upload_qkv(device_, problem.dtype, host_.q, host_.k, host_.v);
}

const RunInputs::Checked& RunInputs::checked(const Layout& layout) {
  auto found = references_.find(&layout);
  if (found == references_.end()) {
    ReferenceSample sample;
    if (coverage_ == Coverage::sampled_when_large)
      sample = choose_reference_sample(layout, problem_.heads, seed_ + 100);
    else
      sample.description = "all";
    ReferenceOutput output = reference_materialized(layout, host_, problem_.softmax_scale(), sample.options);
    found = references_.emplace(&layout, Checked{std::move(output), sample.description, sample.options}).first;
  }
  return found->second;
}

const ReferenceOutput& RunInputs::reference(const Layout& layout) { return checked(layout).output; }

const std::string& RunInputs::coverage(const Layout& layout) { return checked(layout).coverage; }

const std::vector<float>& RunInputs::d_o() {
  if (d_o_.empty()) d_o_ = make_random_grad_output(host_, seed_ + 1000);
  return d_o_;
}

const ReferenceGradients& RunInputs::reference_gradients(const Layout& layout) {
  auto found = gradient_references_.find(&layout);
  if (found == gradient_references_.end()) {
    ReferenceOptions options = checked(layout).sample;
    options.heads = whole_kv_groups(options.heads, problem_.heads, problem_.kv_heads);
    found =
        gradient_references_
            .emplace(&layout, reference_backward_materialized(layout, host_, d_o(), problem_.softmax_scale(), options))
            .first;
  }
  return found->second;
}

}  // namespace attnlab
