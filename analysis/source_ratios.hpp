#pragma once
// Each source's own ratios: FlashAttention-2's packed run over FlashAttention-2's
// varlen run, cuDNN's over cuDNN's, ours over ours, each from its primary runs
// (primary_runs.hpp). Dividing a peer by *our* varlen mixes two kernels' speeds into
// one number; these ratios keep each family's layouts side by side. Ours are split
// the same way by flash kernel (the teaching mma-sm80, the Hopper wgmma-sm90): each
// kernel's padded and packed over its own varlen, never over the other's.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/peer_families.hpp"
#include "analysis/primary_runs.hpp"
#include "core/layout/layout.hpp"

namespace attnlab {

// A row of ours that a flash kernel ran (padded, packed, varlen), not naive's cuBLAS.
bool ours_of_a_flash_kernel(const ResultRow& r);

// The flash kernels of our rows (padded, packed, varlen; naive's is cuBLAS) in every
// loaded file, in the order they first come in the files: "mma-sm80", or, where a
// run measured both, e.g. "wgmma-sm90", "mma-sm80". An old file's empty kernel counts as one.
std::vector<std::string> our_flash_kernels(const LoadedResults& results);

// The tile a flash kernel of ours computes in: the tile column of its first row that names
// one ("128x128" for wgmma-sm90 in the shipped files); empty where none does.
std::optional<TileShape> kernel_tile(const LoadedResults& results, std::string_view kernel);

// "varlen", or "varlen · wgmma-sm90" for a row of ours where `name_kernel` (the loaded
// results hold several flash kernels of ours; with one, nothing changes).
std::string run_label(const ResultRow& r, bool name_kernel);

struct SourceRatios {
  const SourceFamily* family = nullptr;
  // Ours: the flash kernel of the padded, packed and varlen runs (naive's cuBLAS run
  // stands beside each kernel's); empty for a peer, whose source names its kernel.
  std::string kernel;
  bool kernel_named = false;  // several flash kernels of ours are loaded: labels name this one
  std::array<std::optional<MeasuredRun>, all_implementations.size()> runs;  // by implementation
  // No varlen run of its own: its padded run stands for varlen, where the model says
  // padded computes exactly varlen's scores (documents of one length: no padding).
  bool padded_stands_for_varlen = false;

  const MeasuredRun* run(Implementation i) const {
    return runs[static_cast<int>(i)] ? &*runs[static_cast<int>(i)] : nullptr;
  }
  const MeasuredRun* varlen() const {
    return run(padded_stands_for_varlen ? Implementation::padded : Implementation::varlen);
  }
  // Median time of the primary run over the varlen run's; empty when either is missing.
  std::optional<double> vs_varlen(Implementation i) const;
  // "attnlab", or "attnlab · wgmma-sm90" where kernels are named.
  std::string label() const;
  // The tile its flash runs name in their tile column ("128x128"); empty for a peer and for rows without one.
  std::optional<TileShape> tile() const;
};

// One entry per family with at least one run in `c`, ours first: one per flash kernel
// of ours with a run in `c`, in our_flash_kernels' order. `padded_equals_varlen`: the
// model's padded layout computes the same scores as varlen's for this scenario.
std::vector<SourceRatios> source_ratios(const LoadedResults& results, const Configuration& c,
                                        bool padded_equals_varlen);

// The entry of a family by name (and ours of one flash kernel; without one, the
// first), if it is there.
const SourceRatios* ratios_of(const std::vector<SourceRatios>& all, std::string_view family_name,
                              std::optional<std::string_view> kernel = std::nullopt);

}  // namespace attnlab
