#pragma once
// The chain from the article's 8x fewer scores to its 1.8% shorter training run,
// one link per step of the argument, each with our number: the same links in
// `attnlab step`, the GUI's Training step view and results/REPRODUCE.md.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "analysis/measured_step.hpp"
#include "analysis/step_times.hpp"
#include "core/cost/training_step.hpp"

namespace attnlab {

// The article's reported saving: a nanochat d24 training run 1.8% shorter with varlen.
inline constexpr double article_step_saving = 0.018;

// A count of scores in the article's millions (2^20: "64 x 256K = 8M"), e.g. "16.0M".
std::string article_millions(double n);

// What a link's number rests on: the cost model's counts, a prediction from counts and measured
// rows, a measurement of the whole step, or the article's own report.
enum class LinkEvidence { counted, predicted, measured, reported };
const char* link_evidence_name(LinkEvidence e);  // "counted", "predicted", "measured", "reported"

struct ChainLink {
  std::string label;  // what the link is
  std::string value;  // our number ("4.00x", "3.56%"), or "not measured"
  std::string how;    // where it comes from, in a few words
  LinkEvidence evidence = LinkEvidence::counted;
  std::string source;            // the same in a word or a file name: "cost model", "attnlab-step.csv"
  std::optional<double> number;  // the value as a number (a ratio, or a fraction for a percent); empty: not measured
  bool detail = false;           // a step on the way (a measured part, a partial prediction): `attnlab step --details`
  bool setting_saving = false;   // one measured setting's saving: a row of `attnlab step`'s measured table says it too
};

// `times` holds one prediction per kernel family (attnlab, FA2), in all_kernel_families order;
// `measured` the scenario's measured steps (measured_step_pairs): the chain closes on them, each
// saving with the file and kernel it came from, then where each backend's step time went, part by part.
std::vector<ChainLink> step_chain(const Scenario& s, const TrainingStep& step,
                                  const std::array<StepTimePrediction, 2>& times,
                                  const std::vector<MeasuredStepPair>& measured);

// From the measured steps of `s` to the article's whole run: how long a step would have to be for
// the attention time varlen saves in it to be the article's saving, which of the article's
// settings (documents of mixed lengths, nanochat's Muon, several GPUs) these steps measured, and
// in one sentence what stays unexplained. Empty without a pair with its parts profiled.
std::optional<std::string> article_distance(const Scenario& s, const std::vector<MeasuredStepPair>& measured);

// For each kernel family with a prediction from time and a measured one-GPU step of its backend:
// a few sentences setting the two side by side and saying where the difference comes from; then
// article_distance.
std::vector<std::string> step_explanation(const Scenario& s, const std::array<StepTimePrediction, 2>& times,
                                          const std::vector<MeasuredStepPair>& measured);

}  // namespace attnlab
