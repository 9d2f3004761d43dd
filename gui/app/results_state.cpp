#include "gui/app/results_state.hpp"

#include <atomic>

namespace attnlab::gui {

namespace {

// Unique in the process, so a view's cache keyed by it never takes one state's rows for another's.
std::uint64_t next_results_version() {
  static std::atomic<std::uint64_t> last{0};
  return ++last;
}

}  // namespace

void ResultsState::load(const std::filesystem::path& path) {
  load_results(loaded_, path);
  version_ = next_results_version();
}

void ResultsState::load_folder(const std::filesystem::path& folder) {
  load_results_folder(loaded_, folder);
  version_ = next_results_version();
}

void ResultsState::drop_stale() {
  if (derived_version_ == version_) return;
  our_kernels_.reset();
  our_kernel_tiles_.reset();
  ratios_.clear();
  derived_version_ = version_;
}

const std::vector<std::string>& ResultsState::our_kernels() {
  drop_stale();
  if (!our_kernels_) our_kernels_ = std::make_unique<std::vector<std::string>>(our_flash_kernels(loaded_));
  return *our_kernels_;
}

const std::vector<std::optional<TileShape>>& ResultsState::our_kernel_tiles() {
  drop_stale();
  if (!our_kernel_tiles_) {
    our_kernel_tiles_ = std::make_unique<std::vector<std::optional<TileShape>>>();
    for (const std::string& k : our_kernels()) our_kernel_tiles_->push_back(kernel_tile(loaded_, k));
  }
  return *our_kernel_tiles_;
}

const std::vector<SourceRatios>& ResultsState::ratios(const Configuration& c, bool padded_equals_varlen) {
  drop_stale();
  const RatiosKey key{c.scenario, int(c.dtype), c.heads, c.head_dim, c.causal, int(c.pass), padded_equals_varlen};
  auto at = ratios_.find(key);
  if (at == ratios_.end()) at = ratios_.emplace(key, source_ratios(loaded_, c, padded_equals_varlen)).first;
  return at->second;
}

}  // namespace attnlab::gui
