#pragma once
// The results the Timings, Costs and Training step views show (the shipped folder plus
// any file or folder loaded from the Timings view), with the Timings view's choices. The
// rows change only through load and load_folder, which give a new version (unique in the
// process, as a scenario's): what the views derive from the rows (the grouping into primary
// runs, each source's ratios, the measured context-parallel runs) is computed once per
// version, never per frame.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/results_files.hpp"
#include "analysis/source_ratios.hpp"

namespace attnlab::gui {

class ResultsState {
 public:
  const LoadedResults& loaded() const { return loaded_; }
  std::uint64_t version() const { return version_; }
  // A file, or every *.csv of a folder (load_results); a folder with its gemms/ and ceilings (load_results_folder).
  void load(const std::filesystem::path& path);
  void load_folder(const std::filesystem::path& folder);

  // The flash kernels of ours in the loaded rows (our_flash_kernels), once per version.
  const std::vector<std::string>& our_kernels();
  // The tile of each of them (kernel_tile), in the same order, once per version.
  const std::vector<std::optional<TileShape>>& our_kernel_tiles();
  // Each source's own ratios in `c` (source_ratios), once per version and configuration.
  const std::vector<SourceRatios>& ratios(const Configuration& c, bool padded_equals_varlen);

  std::string load_path;       // the Timings view's "load a file or folder" field
  bool all_scenarios = false;  // else only the rows of the current scenario (all when it has none)
  // The Timings view's choice of shape, as "bf16 d64 h16"; empty, or a shape this scenario was not measured in: its
  // own.
  std::string shape;

 private:
  LoadedResults loaded_;
  std::uint64_t version_ = 0;
  // Derived from loaded_ at derived_version_ (cleared when the version moves).
  std::uint64_t derived_version_ = 0;
  std::unique_ptr<std::vector<std::string>> our_kernels_;
  std::unique_ptr<std::vector<std::optional<TileShape>>> our_kernel_tiles_;
  using RatiosKey = std::tuple<std::string, int, int, int, bool, int, bool>;  // a Configuration, padded = varlen
  std::map<RatiosKey, std::vector<SourceRatios>> ratios_;
  void drop_stale();
};

}  // namespace attnlab::gui
