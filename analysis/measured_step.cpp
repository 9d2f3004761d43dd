#include "analysis/measured_step.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <utility>

namespace attnlab {

namespace {

struct StepSource {
  std::string_view source, label;
};
// The backends of attnlab/step/attention.py, in the order the chain shows them.
constexpr std::array<StepSource, 3> step_sources = {
    {{"torch-step-fa2", "FA2"}, {"torch-step-attnlab", "attnlab"}, {"torch-step-cudnn", "cuDNN"}}};

std::size_t source_rank(const std::string& source) {
  const auto at =
      std::find_if(step_sources.begin(), step_sources.end(), [&](const StepSource& s) { return s.source == source; });
  return std::size_t(at - step_sources.begin());
}

// The step attnlab/step/command.py runs: the scenario's documents, their packed rows and its [model].
bool same_step(const Scenario& a, const Scenario& b) {
  return a.doc_lengths == b.doc_lengths && a.row_len == b.row_len && a.packing == b.packing && a.pad_to == b.pad_to &&
         a.model == b.model;
}

// A gradient sync in a setting's few words and as a sentence says it.
struct GradientSyncWords {
  const char* text;
  const char* phrase;
};
GradientSyncWords gradient_sync_words(GradientSync g) {
  switch (g) {
    case GradientSync::after_backward: return {"all-reduce after bwd", "all-reduced after the backward"};
    case GradientSync::during_backward: return {"all-reduce during bwd", "all-reduced during the backward as DDP does"};
    case GradientSync::sharded: return {"sharded optimizer", "exchanged in nanochat's sharded optimizer step"};
  }
  return {"?", "?"};
}

}  // namespace

const char* gradient_sync_phrase(GradientSync g) { return gradient_sync_words(g).phrase; }

std::string MeasuredStepPair::label() const {
  const std::size_t rank = source_rank(source);
  const std::string name = rank < step_sources.size() ? std::string(step_sources[rank].label) : source;
  return kernel.empty() ? name : name + " \xC2\xB7 " + kernel;
}

std::string MeasuredStepPair::conditions() const {
  std::string text = gpus == 1 ? "one GPU" : std::to_string(gpus) + " GPUs";
  text += optimizer == StepOptimizer::muon ? ", Muon" : ", AdamW";
  if (gradient_sync) text += std::string(", ") + gradient_sync_words(*gradient_sync).text;
  return text;
}

std::string MeasuredStepPair::setting() const { return conditions() + ", " + label(); }

std::optional<double> MeasuredStepPair::saving() const {
  if (!packed || !varlen || !(packed->row.median_us > 0)) return std::nullopt;
  return 1.0 - varlen->row.median_us / packed->row.median_us;
}

bool MeasuredStepPair::has_parts() const {
  return packed && varlen && packed->row.kernels_us && varlen->row.kernels_us && step_attention_us(packed->row) &&
         step_attention_us(varlen->row);
}

std::optional<double> step_attention_us(const StepRow& row) {
  const auto fwd = row.part_us(StepPart::attention_fwd), bwd = row.part_us(StepPart::attention_bwd);
  if (!fwd || !bwd) return std::nullopt;
  return *fwd + *bwd;
}

std::optional<double> step_exposed_communication_us(const StepRow& row) {
  const std::optional<double> all = row.part_us(StepPart::communication);
  if (!all) return std::nullopt;
  return row.communication_exposed_us ? std::min(*all, *row.communication_exposed_us) : *all;
}

std::optional<double> step_busy_us(const StepRow& row) {
  if (!row.kernels_us) return std::nullopt;
  return *row.kernels_us - row.part_us(StepPart::communication).value_or(0) +
         step_exposed_communication_us(row).value_or(0);
}

std::optional<double> step_idle_us(const StepRow& row) {
  const std::optional<double> busy = step_busy_us(row);
  if (!busy) return std::nullopt;
  return row.median_us - *busy;
}

std::vector<StepTableLine> step_table_lines(const MeasuredStepPair& pair) {
  std::vector<StepTableLine> lines;
  if (!pair.packed || !pair.varlen) return lines;
  const StepRow &packed = pair.packed->row, &varlen = pair.varlen->row;
  const auto add = [&](std::string label, std::optional<double> (*us)(const StepRow&)) {
    lines.push_back({std::move(label), us(packed), us(varlen)});
  };
  for (StepPart part : all_step_parts)
    lines.push_back({step_part_name(part), packed.part_us(part), varlen.part_us(part)});
  add("kernels (the parts' sum)", [](const StepRow& r) { return r.kernels_us; });
  const auto communicated = [](const StepRow& r) { return r.part_us(StepPart::communication).value_or(0) > 0; };
  const bool communication = communicated(packed) || communicated(varlen);
  if (communication) {
    add("communication exposed (no kernel beside it)", step_exposed_communication_us);
    add("busy (the sum less communication beside other kernels)", step_busy_us);
  }
  add(communication ? "idle (median - busy)" : "idle (median - kernels)", step_idle_us);
  add("step (median)", [](const StepRow& r) { return std::optional<double>(r.median_us); });
  return lines;
}

std::vector<MeasuredStepPair> measured_step_pairs(const Scenario& s, const TrainingStep& step,
                                                  const LoadedResults& results, const ScenarioLookup& lookup) {
  std::map<std::string_view, bool> ran_s;  // per name the rows carry: whether its scenario's step is s's
  const auto steps_s = [&](const std::string& name) {
    const auto [at, added] = ran_s.try_emplace(name, false);
    if (added) {
      const std::optional<Scenario> named = lookup(name);
      at->second = named && same_step(*named, s);
    }
    return at->second;
  };
  std::vector<MeasuredStepPair> pairs;
  for (const ResultsFile& file : results.files)
    for (const StepRow& row : file.steps) {
      if (row.tokens != step.tokens || !steps_s(row.scenario)) continue;
      auto pair = std::find_if(pairs.begin(), pairs.end(), [&](const MeasuredStepPair& p) {
        return p.source == row.source && p.kernel == row.kernel && p.gpus == row.gpus && p.optimizer == row.optimizer &&
               p.gradient_sync == row.gradient_sync;
      });
      if (pair == pairs.end())
        pair = pairs.insert(pairs.end(), {row.source, row.kernel, row.gpus, row.optimizer, row.gradient_sync, {}, {}});
      std::optional<MeasuredStepRun>& slot = row.implementation == "packed" ? pair->packed : pair->varlen;
      if (!slot) slot = MeasuredStepRun{row, shown_file_name(file.path)};
    }
  std::stable_sort(pairs.begin(), pairs.end(), [](const MeasuredStepPair& a, const MeasuredStepPair& b) {
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    const std::size_t ra = source_rank(a.source), rb = source_rank(b.source);
    if (ra != rb) return ra < rb;
    if (ra == step_sources.size() && a.source != b.source) return a.source < b.source;
    return std::pair(a.optimizer, a.gradient_sync) < std::pair(b.optimizer, b.gradient_sync);
  });
  return pairs;
}

}  // namespace attnlab
