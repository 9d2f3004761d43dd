#include "analysis/step_chain.hpp"

#include <algorithm>
#include <cstdio>

#include "analysis/number_format.hpp"
#include "core/tile_name.hpp"

namespace attnlab {

namespace {

std::string format(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// Packed over varlen of a per-layer quantity summed over the layers.
template <class PerLayer>
double over_layers(const TrainingStep& step, PerLayer per_layer) {
  double packed = 0, varlen = 0;
  for (LayerKind kind : all_layer_kinds) {
    packed += step.layers[int(kind)] * per_layer(step[Implementation::packed], kind);
    varlen += step.layers[int(kind)] * per_layer(step[Implementation::varlen], kind);
  }
  return varlen > 0 ? packed / varlen : 0.0;
}

}  // namespace

std::string article_millions(double n) { return format("%.1fM", n / (1 << 20)); }

std::vector<ChainLink> step_chain(const Scenario& s, const TrainingStep& step,
                                  const std::array<StepTimePrediction, 2>& times) {
  const ArticleCounts counts = article_counts(s.doc_lengths, s.row_len);
  const std::string rows = "rows of " + std::to_string(s.row_len);
  std::vector<ChainLink> chain;
  chain.push_back({"the article's count", format_ratio(counts.article_ratio()),
                   rows + " as full squares (" + article_millions(counts.rows_full_squares) +
                       ") against the documents as half squares (" + article_millions(counts.docs_full_squares / 2) +
                       ")"});
  chain.push_back({"the same counting on both sides", format_ratio(counts.same_counting_ratio()),
                   "full squares: " + article_millions(counts.rows_full_squares) + " against " +
                       article_millions(counts.docs_full_squares) + ", " + rows});
  chain.push_back(
      {"what the window leaves",
       format_ratio(over_layers(step, [](const StepCost& c, LayerKind k) { return c.attended_per_layer[int(k)]; })),
       "scores attended cell by cell (causal), each layer at its window, summed over the layers"});
  chain.push_back(
      {"what tile quantization leaves",
       format_ratio(over_layers(step, [](const StepCost& c, LayerKind k) { return c.computed_per_layer[int(k)].fwd; })),
       "scores computed by " + tile_name(step.tile) + " tiles, summed over the layers"});
  for (const StepTimePrediction& t : times) {
    const auto p = t.packed.attention_us(Pass::fwd, t.layers), v = t.varlen.attention_us(Pass::fwd, t.layers);
    std::string how = "attention forward time over the layers, shipped results (H100); one layer:";
    std::vector<std::string> sources;
    for (LayerKind kind : all_layer_kinds) {
      if (t.layers[int(kind)] == 0) continue;  // a pattern without this kind of layer
      const auto& pk = t.packed.layer[int(kind)][int(Pass::fwd)];
      const auto& vk = t.varlen.layer[int(kind)][int(Pass::fwd)];
      how += std::string(how.back() == ':' ? " " : ", ") + layer_kind_name(kind) + " " +
             (pk && vk ? format_ratio(pk->us / vk->us) : "not measured");
      for (const auto* run : {&pk, &vk})
        if (*run && std::find(sources.begin(), sources.end(), (*run)->source) == sources.end())
          sources.push_back((*run)->source);
    }
    if (t.family != KernelFamily::attnlab && !sources.empty()) {
      how += "; sources";
      for (const std::string& source : sources) how += (source == sources.front() ? " " : ", ") + source;
    }
    chain.push_back({std::string("measured, ") + t.label(), p && v ? format_ratio(*p / *v) : "not measured", how});
  }
  const StepCost& packed = step[Implementation::packed];
  chain.push_back({"attention's share of the step (packed)", format_percent(packed.attention_share_full_squares()),
                   "FLOPs, nanochat's full squares; " + format_percent(packed.attention_share_computed()) +
                       " as computed (causal, tiled)"});
  for (const StepTimePrediction& t : times) {
    const auto share = t.attention_share_fwd();
    chain.push_back({std::string("attention's share of the forward time, ") + t.label(),
                     share ? format_percent(*share) : "not measured",
                     t.gemm_tflops ? "GEMMs at " + format("%.0f", *t.gemm_tflops) + " TFLOP/s, attention measured"
                                   : std::string("no GEMM ceiling measured")});
  }
  chain.push_back(
      {"predicted step saving, from FLOPs", format_percent(step.saving_full_squares()),
       "nanochat's full squares; " + format_percent(step.saving_computed()) + " as computed (causal, tiled)"});
  for (const StepTimePrediction& t : times) {
    const auto fwd = t.saving_fwd(), whole = t.saving_step();
    chain.push_back(
        {std::string("predicted step saving, from time, ") + t.label(), whole ? format_percent(*whole) : "not measured",
         std::string("forward and backward; forward alone ") + (fwd ? format_percent(*fwd) : "not measured")});
  }
  // The results schema holds no whole-step rows yet (pass is fwd or bwd): the link waits for them.
  chain.push_back({"the measured step, packed against varlen", "not measured",
                   "a PyTorch training step of this model, timed whole: no results row of one ships"});
  chain.push_back(
      {"the article's measured saving", format_percent(article_step_saving), "a whole nanochat d24 training run"});
  return chain;
}

}  // namespace attnlab
