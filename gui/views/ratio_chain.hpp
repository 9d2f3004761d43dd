#pragma once
// One figure for the way from the model's count to the measured times: for an
// implementation against varlen, the cells its mask lets through (7.99x for the
// article's case), the scores its tiles compute (6.60x in wgmma-sm90's 128x128 tiles),
// the time of our kernel shown (the model is at its tile), with our other kernels beside
// it at their own tiles, then FlashAttention-2's. Each stage is a box with its ratio and where it comes from.
// Views may append stages: the Training step view adds the step's time and the
// article's figure after FlashAttention-2's (append to the vector, then draw it).
#include <optional>
#include <string>
#include <vector>

#include "analysis/source_ratios.hpp"
#include "gui/app/scenario_model.hpp"

namespace attnlab::gui {

struct ChainStage {
  std::string label;            // "cells attended"
  std::optional<double> ratio;  // empty: not measured for this scenario
  std::string detail;           // where it comes from: "cell by cell", "attnlab-bench.csv: 2,234 / 376 µs"
};

// `our_kernel`: the kernel of ours shown (our_kernel.hpp); empty where none of ours is loaded.
std::vector<ChainStage> ratio_chain(const ScenarioModel& model, Implementation impl,
                                    const std::vector<SourceRatios>& measured, const std::string& our_kernel);

// The stages left to right, joined by arrows, each with a bar as long as its ratio.
void draw_ratio_chain(const char* title, const std::vector<ChainStage>& stages);

}  // namespace attnlab::gui
