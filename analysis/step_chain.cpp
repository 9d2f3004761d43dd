#include "analysis/step_chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <tuple>
#include <utility>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"

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

std::string files_of(const MeasuredStepPair& p) {
  if (p.packed && p.varlen && p.packed->file != p.varlen->file)
    return "packed " + p.packed->file + ", varlen " + p.varlen->file;
  return (p.packed ? p.packed : p.varlen)->file;
}

// The saving of each pair with the file and kernel it came from.
void add_measured_savings(std::vector<ChainLink>& chain, const std::vector<MeasuredStepPair>& measured) {
  for (const MeasuredStepPair& p : measured) {
    const std::string label = "measured step saving, " + p.setting();
    if (const auto saving = p.saving()) {
      chain.push_back({label, format_percent(*saving),
                       "1 - varlen / packed step median: " + format_us(p.varlen->row.median_us) + " against " +
                           format_us(p.packed->row.median_us) + "; " + files_of(p),
                       LinkEvidence::measured, files_of(p), *saving, false, true});
    } else {
      const char* only = p.packed ? "packed" : "varlen";
      chain.push_back({label, "not measured",
                       std::string("only the ") + only + " step was measured (" + files_of(p) + "), " +
                           format_us((p.packed ? p.packed : p.varlen)->row.median_us) + "; no " +
                           (p.packed ? "varlen" : "packed") + " row",
                       LinkEvidence::measured, files_of(p), std::nullopt, false, true});
    }
  }
}

struct StepPartLink {
  const char* where;  // "in GEMMs"
  std::optional<double> (*us)(const StepRow&);
};

// Where each backend's step time went: attention's share, then what each part saved, as shares of
// the packed step; the parts and the idle time add up to the measured saving.
void add_measured_parts(std::vector<ChainLink>& chain, const std::vector<MeasuredStepPair>& measured) {
  static constexpr StepPartLink parts[] = {
      {"in attention (forward + backward)", step_attention_us},
      {"in GEMMs", [](const StepRow& r) { return r.part_us(StepPart::gemm); }},
      {"in elementwise work", [](const StepRow& r) { return r.part_us(StepPart::elementwise); }},
      {"in the loss", [](const StepRow& r) { return r.part_us(StepPart::loss); }},
      {"in the optimizer", [](const StepRow& r) { return r.part_us(StepPart::optimizer); }},
      {"in exposed communication", step_exposed_communication_us},
      {"in other kernels", [](const StepRow& r) { return r.part_us(StepPart::other); }},
      {"while the GPU waited (median - busy)", step_idle_us},
  };
  for (const MeasuredStepPair& p : measured) {
    if (!p.has_parts()) continue;
    const StepRow &packed = p.packed->row, &varlen = p.varlen->row;
    const std::string name = p.setting(), file = files_of(p);
    const double pa = *step_attention_us(packed), va = *step_attention_us(varlen);
    chain.push_back({"attention's share of the measured step, " + name, format_percent(pa / packed.median_us),
                     "packed: attention " + format_us(pa) + " of " + format_us(packed.median_us) +
                         "; varlen: " + format_us(va) + " of " + format_us(varlen.median_us) + " (" +
                         format_percent(va / varlen.median_us) + "); the profiler's parts",
                     LinkEvidence::measured, file, pa / packed.median_us, true});
    for (const StepPartLink& part : parts) {
      const auto pu = part.us(packed), vu = part.us(varlen);
      if (!pu || !vu) continue;
      if (part.us == parts[5].us && *pu == 0 && *vu == 0) continue;  // one GPU: nothing to communicate
      chain.push_back({"step time saved " + std::string(part.where) + ", " + name,
                       format_percent((*pu - *vu) / packed.median_us),
                       "packed " + format_us(*pu) + ", varlen " + format_us(*vu) + ", of a packed step of " +
                           format_us(packed.median_us) +
                           (&part == parts ? "; this part and those below add up to the measured saving" : ""),
                       LinkEvidence::measured, file, (*pu - *vu) / packed.median_us, true});
    }
  }
}

// The rest of the step at its bytes (core/cost/step_bytes.hpp), then each family's saving with it added.
void add_rest_of_step(std::vector<ChainLink>& chain, const std::array<StepTimePrediction, 2>& times) {
  const ImplementationStepTime& packed = times.front().packed;
  const StepBytes& b = packed.rest_bytes;
  const auto time_of = [&](double bytes) {
    return times.front().copy_tbps ? ", " + format_us(bytes / (*times.front().copy_tbps * 1e12) * 1e6) : "";
  };
  chain.push_back({"the rest of the step at its bytes (packed)",
                   packed.rest_us ? format_us(*packed.rest_us) : "not measured",
                   "elementwise work " + format_bytes(b.elementwise) + time_of(b.elementwise) + ", loss " +
                       format_bytes(b.loss) + time_of(b.loss) + ", optimizer " + format_bytes(b.optimizer) +
                       time_of(b.optimizer) + "; each operation unfused, " +
                       (times.front().copy_tbps ? "at the copy ceiling" : "no copy ceiling measured"),
                   LinkEvidence::predicted, "bytes at the copy ceiling", packed.rest_us, true});
  for (const StepTimePrediction& t : times) {
    const auto saving = t.saving_step_with_rest();
    chain.push_back({"predicted step saving with the rest, " + t.label(),
                     saving ? format_percent(*saving) : "not measured",
                     "GEMMs, attention and the rest of the step, forward and backward", LinkEvidence::predicted,
                     "runs and bytes at the copy ceiling", saving});
  }
}

}  // namespace

const char* link_evidence_name(LinkEvidence e) {
  switch (e) {
    case LinkEvidence::counted: return "counted";
    case LinkEvidence::predicted: return "predicted";
    case LinkEvidence::measured: return "measured";
    case LinkEvidence::reported: return "reported";
  }
  return "?";
}

std::string article_millions(double n) { return format("%.1fM", n / (1 << 20)); }

std::vector<ChainLink> step_chain(const Scenario& s, const TrainingStep& step,
                                  const std::array<StepTimePrediction, 2>& times,
                                  const std::vector<MeasuredStepPair>& measured) {
  const ArticleCounts counts = article_counts(s.doc_lengths, s.row_len);
  const std::string rows = "rows of " + std::to_string(s.row_len);
  const auto percent_or_not = [](std::optional<double> x) -> std::string {
    return x ? format_percent(*x) : "not measured";
  };
  std::vector<ChainLink> chain;
  chain.push_back({"the article's count", format_ratio(counts.article_ratio()),
                   rows + " as full squares (" + article_millions(counts.rows_full_squares) +
                       ") against the documents as half squares (" +
                       article_millions(double(counts.docs_full_squares) / 2) + ")",
                   LinkEvidence::counted, "the article's counting", counts.article_ratio()});
  chain.push_back({"the same counting on both sides", format_ratio(counts.same_counting_ratio()),
                   "full squares: " + article_millions(counts.rows_full_squares) + " against " +
                       article_millions(counts.docs_full_squares) + ", " + rows,
                   LinkEvidence::counted, "full squares", counts.same_counting_ratio()});
  const double window = over_layers(step, [](const StepCost& c, LayerKind k) { return c.attended_per_layer[int(k)]; });
  // A model without short-window layers has no window to leave anything: the link is the causal mask's.
  const bool windowed = step.layers[int(LayerKind::short_window)] > 0;
  chain.push_back({windowed ? "what the window leaves" : "what the causal mask leaves (no window)",
                   format_ratio(window),
                   windowed ? "scores attended cell by cell (causal), each layer at its window, summed over the layers"
                            : "scores attended cell by cell (causal); every layer sees its whole row",
                   LinkEvidence::counted, "cost model, cell by cell", window});
  const double tiles =
      over_layers(step, [](const StepCost& c, LayerKind k) { return c.computed_per_layer[int(k)].fwd; });
  chain.push_back({"what tile quantization leaves", format_ratio(tiles),
                   "scores computed by " + tile_name(step.tile) + " tiles, summed over the layers",
                   LinkEvidence::counted, "cost model, " + tile_name(step.tile) + " tiles", tiles});
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
    const std::optional<double> ratio = p && v ? std::optional(*p / *v) : std::nullopt;
    chain.push_back({std::string("measured, ") + t.label(), ratio ? format_ratio(*ratio) : "not measured", how,
                     LinkEvidence::measured, "attention runs (bench rows)", ratio});
  }
  const StepCost& packed = step[Implementation::packed];
  chain.push_back({"attention's share of the step (packed)", format_percent(packed.attention_share_full_squares()),
                   "FLOPs, nanochat's full squares; " + format_percent(packed.attention_share_computed()) +
                       " as computed (causal, tiled)",
                   LinkEvidence::counted, "FLOPs, full squares", packed.attention_share_full_squares()});
  for (const StepTimePrediction& t : times) {
    const auto share = t.attention_share_fwd();
    chain.push_back({std::string("attention's share of the forward time, ") + t.label(), percent_or_not(share),
                     t.gemm_pricing() + ", attention measured", LinkEvidence::predicted,
                     "measured GEMMs and attention runs", share});
  }
  chain.push_back(
      {"predicted step saving, from FLOPs", format_percent(step.saving_full_squares()),
       "nanochat's full squares; " + format_percent(step.saving_computed()) + " as computed (causal, tiled)",
       LinkEvidence::predicted, "FLOPs, full squares", step.saving_full_squares()});
  for (const StepTimePrediction& t : times) {
    const auto fwd = t.saving_fwd(), whole = t.saving_step();
    chain.push_back({std::string("predicted step saving, from time, ") + t.label(), percent_or_not(whole),
                     std::string("forward and backward; forward alone ") + percent_or_not(fwd), LinkEvidence::predicted,
                     "measured GEMMs and attention runs", whole, true});
  }
  add_rest_of_step(chain, times);
  if (measured.empty())
    chain.push_back({"the measured step, packed against varlen", "not measured",
                     "a PyTorch training step of this model, timed whole: no step row in the results measured these " +
                         std::to_string(step.tokens) +
                         " tokens' documents under this [model], as the scenario's "
                         "file defines them",
                     LinkEvidence::measured, "no step row"});
  add_measured_savings(chain, measured);
  add_measured_parts(chain, measured);
  chain.push_back({"the article's measured saving", format_percent(article_step_saving),
                   "a whole nanochat d24 training run on 8 GPUs", LinkEvidence::reported, "the article",
                   article_step_saving});
  return chain;
}

}  // namespace attnlab

namespace attnlab {

namespace {

// The prediction prices one GPU's step with AdamW: it stands beside the one-GPU AdamW pair of its
// family's backend; for ours, the same kernel first.
const MeasuredStepPair* pair_of(const StepTimePrediction& t, const std::vector<MeasuredStepPair>& measured) {
  const std::string source = measured_step_source(t.family);
  const MeasuredStepPair* any = nullptr;
  for (const MeasuredStepPair& p : measured) {
    if (p.source != source || p.gpus != 1 || p.optimizer != StepOptimizer::adamw || !p.has_parts()) continue;
    if (p.kernel == t.kernel) return &p;
    if (!any) any = &p;
  }
  return any;
}

}  // namespace

namespace {

// Of the pairs with parts, the one nearest the article's run for each backend: most GPUs, then Muon,
// then the gradients exchanged as nanochat does (its sharded optimizer), else during the backward.
std::vector<const MeasuredStepPair*> nearest_the_article(const std::vector<MeasuredStepPair>& measured) {
  std::vector<const MeasuredStepPair*> nearest;
  for (const MeasuredStepPair& p : measured) {
    if (!p.has_parts()) continue;
    const auto same = std::find_if(nearest.begin(), nearest.end(), [&](const MeasuredStepPair* n) {
      return n->source == p.source && n->kernel == p.kernel;
    });
    if (same == nearest.end())
      nearest.push_back(&p);
    else if (std::tuple(p.gpus, p.optimizer, p.gradient_sync) >
             std::tuple((*same)->gpus, (*same)->optimizer, (*same)->gradient_sync))
      *same = &p;
  }
  return nearest;
}

// "a, b and c"; `last` joins the last two ("or").
std::string joined(const std::vector<std::string>& items, const std::string& last = " and ") {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : i + 1 == items.size() ? last : ", ") + items[i];
  return text;
}

}  // namespace

std::optional<std::string> article_distance(const Scenario& s, const std::vector<MeasuredStepPair>& measured) {
  const std::vector<const MeasuredStepPair*> nearest = nearest_the_article(measured);
  if (nearest.empty()) return std::nullopt;
  const std::string article = format_percent(article_step_saving);
  std::vector<std::string> saved, needed, none_saved;
  for (const MeasuredStepPair* p : nearest) {
    const double attention_saved = *step_attention_us(p->packed->row) - *step_attention_us(p->varlen->row);
    const std::string setting = p->setting();
    if (!(attention_saved > 0)) {  // no step length turns a saving of nothing (or a loss) into 1.8%
      none_saved.push_back(setting + ", " + format_us(-attention_saved) + " more");
      continue;
    }
    const double step_needed = attention_saved / article_step_saving;
    saved.push_back(format_us(attention_saved) + " (" + setting + ")");
    needed.push_back(format_us(step_needed) + ", " + format_ratio(step_needed / p->packed->row.median_us) +
                     " the measured packed step (" + p->label() + ")");
  }
  std::string text = "From this step to the article's " + article + ": ";
  if (!saved.empty())
    text += "varlen saved " + joined(saved) + " of attention per step here. For that to be " + article +
            " of a step, the step would have to take " + joined(needed) + ". ";
  if (!none_saved.empty())
    text += "Varlen saved no attention time in the measured step (" + joined(none_saved) + "), so no step length " +
            "makes its saving " + article + ". ";

  int gpus = 1;
  bool muon = false;
  for (const MeasuredStepPair& p : measured) {
    gpus = std::max(gpus, p.gpus);
    muon = muon || p.optimizer == StepOptimizer::muon;
  }
  std::vector<std::string> ways;  // each gradient sync measured, in the enum's order
  for (GradientSync g : all_gradient_syncs)
    if (std::any_of(measured.begin(), measured.end(), [&](const MeasuredStepPair& p) { return p.gradient_sync == g; }))
      ways.push_back(gradient_sync_phrase(g));
  const bool mixed =
      std::adjacent_find(s.doc_lengths.begin(), s.doc_lengths.end(), std::not_equal_to<>()) != s.doc_lengths.end();
  std::vector<std::string> measured_here, unmeasured;
  (mixed ? measured_here : unmeasured)
      .push_back(mixed ? "documents of mixed lengths" : "real documents of mixed lengths (these are all one length)");
  (muon ? measured_here : unmeasured).push_back("nanochat's Muon optimizer");
  if (gpus > 1)
    measured_here.push_back("up to " + std::to_string(gpus) + " GPUs, the gradients " + joined(ways, " or "));
  if (gpus < 8)
    unmeasured.push_back(gpus > 1 ? "the article's 8 GPUs (measured here up to " + std::to_string(gpus) + ")"
                                  : "the article's 8 GPUs and their all-reduce");
  if (!measured_here.empty()) text += "These steps measure " + joined(measured_here) + ". ";
  unmeasured.push_back("a whole run's evaluation, data loading and checkpoints");
  text += "What these steps leave out adds time varlen does not change: ";
  for (std::size_t i = 0; i < unmeasured.size(); ++i) text += (i ? "; " : "") + unmeasured[i];
  text +=
      ". And nanochat's own attention is FlashAttention-3, of attnlab's kernel's class, so its attention had "
      "less to save than FA2's.";
  return text;
}

std::vector<std::string> step_explanation(const Scenario& s, const std::array<StepTimePrediction, 2>& times,
                                          const std::vector<MeasuredStepPair>& measured) {
  std::vector<std::string> text;
  for (const StepTimePrediction& t : times) {
    const MeasuredStepPair* p = pair_of(t, measured);
    const auto predicted = t.saving_step();
    const auto pf = t.packed.step_us(Pass::fwd, t.layers), pb = t.packed.step_us(Pass::bwd, t.layers);
    if (!p || !predicted || !pf || !pb) continue;
    const StepRow &packed = p->packed->row, &varlen = p->varlen->row;
    const double predicted_packed = *pf + *pb;
    // The two sums first, then their difference: equal predictions save exactly 0, where
    // subtracting term by term left a rounding residue that read as a saving. A difference within
    // rounding of the step's own size is none either.
    double predicted_saved =
        predicted_packed - (*t.varlen.step_us(Pass::fwd, t.layers) + *t.varlen.step_us(Pass::bwd, t.layers));
    if (std::abs(predicted_saved) <= 1e-12 * predicted_packed) predicted_saved = 0;
    const double attention_saved = *step_attention_us(packed) - *step_attention_us(varlen);
    const double gemm = (*t.packed.gemm_us)[int(Pass::fwd)] + (*t.packed.gemm_us)[int(Pass::bwd)];
    const auto rest = [](const StepRow& r) {
      return r.median_us - *step_attention_us(r) - r.part_us(StepPart::gemm).value_or(0.0);
    };
    // A ratio of savings means something only where both are savings.
    const std::string against_prediction =
        predicted_saved > 0 && attention_saved > 0
            ? "the attention time varlen saved in it " + format_ratio(attention_saved / predicted_saved) +
                  " the predicted saving."
            : "the prediction's saving and the measured attention's cannot be set in a ratio: one of them is no "
              "saving.";
    text.push_back(
        p->label() + ": predicted " + format_percent(*predicted) + " from time, measured " +
        format_percent(*p->saving()) + " in the step (" + files_of(*p) + "). The prediction's packed step is its " +
        "matrix products and attention alone, " + format_us(predicted_packed) + " (" + t.gemm_pricing() +
        ", attention from the bench rows), " +
        (predicted_saved >= 0 ? "of which varlen saves " + format_us(predicted_saved)
                              : "and varlen's takes " + format_us(-predicted_saved) + " longer") +
        "; in the measured step varlen saved " + format_us(attention_saved) +
        " of attention, out of a packed step of " + format_us(packed.median_us) + ". GEMMs: " + format_us(gemm) +
        " predicted, " +
        (packed.part_us(StepPart::gemm) ? format_us(*packed.part_us(StepPart::gemm)) : std::string("not profiled")) +
        " measured. The rest of the measured step (elementwise work, loss, optimizer, other kernels, idle), " +
        format_us(rest(packed)) + " packed and " + format_us(rest(varlen)) +
        " varlen, is not in the prediction: the measured packed step is " +
        format_ratio(packed.median_us / predicted_packed) + " the predicted one, and " + against_prediction);
  }
  if (auto distance = article_distance(s, measured)) text.push_back(std::move(*distance));
  return text;
}

}  // namespace attnlab
