#include "analysis/source_ratios.hpp"

#include <algorithm>

#include "core/layout/tile_name.hpp"

namespace attnlab {

bool ours_of_a_flash_kernel(const ResultRow& r) {
  const std::optional<Implementation> i = parse_implementation(r.implementation);
  return r.source == our_source && i && !materializes_scores(*i);
}

std::vector<std::string> our_flash_kernels(const LoadedResults& results) {
  std::vector<std::string> kernels;
  for (const ResultsFile& file : results.files)
    for (const ResultRow& r : file.rows)
      if (ours_of_a_flash_kernel(r) && r.median_us &&
          std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end())
        kernels.push_back(r.kernel);
  return kernels;
}

std::optional<TileShape> kernel_tile(const LoadedResults& results, std::string_view kernel) {
  for (const ResultsFile& file : results.files)
    for (const ResultRow& r : file.rows)
      if (ours_of_a_flash_kernel(r) && r.kernel == kernel)
        if (const auto tile = parse_tile_name(r.tile)) return tile;
  return std::nullopt;
}

std::string run_label(const ResultRow& r, bool name_kernel) {
  return r.implementation + (name_kernel && r.source == our_source && !r.kernel.empty() ? " \xC2\xB7 " + r.kernel : "");
}

std::string SourceRatios::label() const {
  return std::string(family->name) + (kernel_named && !kernel.empty() ? " \xC2\xB7 " + kernel : "");
}

std::optional<TileShape> SourceRatios::tile() const {
  for (const std::optional<MeasuredRun>& run : runs)
    if (run)
      if (const auto t = parse_tile_name(run->primary.row->tile)) return t;  // naive's rows name no tile
  return std::nullopt;
}

std::optional<double> SourceRatios::vs_varlen(Implementation i) const {
  const MeasuredRun *a = run(i), *v = varlen();
  if (!a || !v) return std::nullopt;
  return *a->primary.row->median_us / *v->primary.row->median_us;
}

std::vector<SourceRatios> source_ratios(const LoadedResults& results, const Configuration& c,
                                        bool padded_equals_varlen) {
  const std::vector<std::string> all_kernels = our_flash_kernels(results);
  // Ours: one entry per flash kernel measured in `c`; none measured (naive alone): one entry of any kernel.
  std::vector<std::optional<std::string>> our_kernels;
  for (const std::string& k : all_kernels)
    if (std::any_of(results.files.begin(), results.files.end(), [&](const ResultsFile& f) {
          return std::any_of(f.rows.begin(), f.rows.end(), [&](const ResultRow& r) {
            return ours_of_a_flash_kernel(r) && r.median_us && r.kernel == k && c.holds(r);
          });
        }))
      our_kernels.emplace_back(k);
  if (our_kernels.empty()) our_kernels.emplace_back();
  std::vector<SourceRatios> out;
  for (const SourceFamily& f : source_families())
    for (const std::optional<std::string>& kernel :
         f.name == ours_family ? our_kernels : std::vector<std::optional<std::string>>(1)) {
      SourceRatios r{&f, kernel.value_or(""), kernel && all_kernels.size() > 1, {}, false};
      bool any = false;
      for (Implementation i : all_implementations)
        for (const std::string& source : f.sources[static_cast<int>(i)]) {
          const auto kernel_of_i = materializes_scores(i) ? std::nullopt : std::optional<std::string_view>(kernel);
          if ((r.runs[static_cast<int>(i)] = find_run(results, c, source, implementation_name(i), kernel_of_i))) {
            any = true;
            break;
          }
        }
      if (!any) continue;
      r.padded_stands_for_varlen =
          padded_equals_varlen && !r.run(Implementation::varlen) && r.run(Implementation::padded);
      out.push_back(std::move(r));
    }
  return out;
}

const SourceRatios* ratios_of(const std::vector<SourceRatios>& all, std::string_view family_name,
                              std::optional<std::string_view> kernel) {
  for (const SourceRatios& r : all)
    if (r.family->name == family_name && (!kernel || r.kernel == *kernel)) return &r;
  return nullptr;
}

}  // namespace attnlab
