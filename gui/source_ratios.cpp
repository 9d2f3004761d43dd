#include "gui/source_ratios.hpp"

namespace attnlab::gui {

namespace {

// naive, padded, packed, varlen
const std::array<SourceFamily, 6> families = {{
    {ours_family, "ours", {{{"attnlab"}, {"attnlab"}, {"attnlab"}, {"attnlab"}}}},
    {fa2_family,
     "FA2",
     {{{}, {"torch-sdpa-flash-padded"}, {"torch-sdpa-flash-packed"}, {"torch-varlen_attn", "torch-varlen_attn-kv-expanded"}}}},
    {"cuDNN", "cuDNN", {{{}, {"torch-sdpa-cudnn-padded"}, {"torch-sdpa-cudnn-packed"}, {}}}},
    {"FlexAttention", "Flex", {{{}, {}, {}, {"torch-flex-document-mask"}}}},
    {"SDPA memory-efficient", "mem-eff", {{{}, {"torch-sdpa-efficient-padded"}, {"torch-sdpa-efficient-packed"}, {}}}},
    {"PyTorch eager", "eager", {{{"torch-eager-padded"}, {}, {}, {}}}},
}};

}  // namespace

std::span<const SourceFamily> source_families() { return families; }

const SourceFamily* family_of(std::string_view source) {
  for (const SourceFamily& f : families)
    for (const auto& sources : f.sources)
      for (std::string_view s : sources)
        if (s == source) return &f;
  return nullptr;
}

std::optional<double> SourceRatios::vs_varlen(Implementation i) const {
  const MeasuredRun *a = run(i), *v = varlen();
  if (!a || !v) return std::nullopt;
  return *a->primary.row->median_us / *v->primary.row->median_us;
}

std::vector<SourceRatios> source_ratios(const ResultsState& results, const Configuration& c, bool padded_equals_varlen) {
  std::vector<SourceRatios> out;
  for (const SourceFamily& f : families) {
    SourceRatios r{&f, {}, false};
    bool any = false;
    for (Implementation i : all_implementations)
      for (std::string_view source : f.sources[static_cast<int>(i)]) {
        if ((r.runs[static_cast<int>(i)] = find_run(results, c, source, implementation_name(i)))) {
          any = true;
          break;
        }
      }
    if (!any) continue;
    r.padded_stands_for_varlen = padded_equals_varlen && !r.run(Implementation::varlen) && r.run(Implementation::padded);
    out.push_back(std::move(r));
  }
  return out;
}

const SourceRatios* ratios_of(const std::vector<SourceRatios>& all, std::string_view family_name) {
  for (const SourceRatios& r : all)
    if (r.family->name == family_name) return &r;
  return nullptr;
}

}  // namespace attnlab::gui
