#pragma once
// Each source's own ratios: FlashAttention-2's packed run over FlashAttention-2's
// varlen run, cuDNN's over cuDNN's, ours over ours, each from its primary runs
// (primary_runs.hpp). Dividing a peer by *our* varlen mixes two kernels' speeds into
// one number; these ratios keep each family's layouts side by side.
#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "gui/primary_runs.hpp"

namespace attnlab::gui {

// A family of kernels and the results `source` of each of its layouts (a results row
// of a peer names the attnlab implementation it stands beside). The names follow
// bench/peers/torch_peers.py and bench/results_table.py.
struct SourceFamily {
  std::string_view name;        // "FlashAttention-2"
  std::string_view short_name;  // "FA2", for plot labels
  std::array<std::vector<std::string_view>, all_implementations.size()> sources;  // by implementation, first found wins
};
std::span<const SourceFamily> source_families();
// The family a row's source belongs to; null for a source no family lists.
const SourceFamily* family_of(std::string_view source);

struct SourceRatios {
  const SourceFamily* family = nullptr;
  std::array<std::optional<MeasuredRun>, all_implementations.size()> runs;  // by implementation
  // No varlen run of its own: its padded run stands for varlen, where the model says
  // padded computes exactly varlen's scores (documents of one length: no padding).
  bool padded_stands_for_varlen = false;

  const MeasuredRun* run(Implementation i) const { return runs[static_cast<int>(i)] ? &*runs[static_cast<int>(i)] : nullptr; }
  const MeasuredRun* varlen() const { return run(padded_stands_for_varlen ? Implementation::padded : Implementation::varlen); }
  // Median time of the primary run over the varlen run's; empty when either is missing.
  std::optional<double> vs_varlen(Implementation i) const;
};

// One entry per family with at least one run in `c`, ours first. `padded_equals_varlen`:
// the model's padded layout computes the same scores as varlen's for this scenario.
std::vector<SourceRatios> source_ratios(const ResultsState& results, const Configuration& c, bool padded_equals_varlen);

// The entry of a family by name, if it is there.
const SourceRatios* ratios_of(const std::vector<SourceRatios>& all, std::string_view family_name);

inline constexpr std::string_view ours_family = "attnlab";
inline constexpr std::string_view fa2_family = "FlashAttention-2";

}  // namespace attnlab::gui
