#pragma once
// The Timings view's tables: every primary run with its ratios, file and spread; forward +
// backward per source and implementation; each source's own ratios beside the model's.
#include <optional>
#include <vector>

#include "analysis/ceilings.hpp"
#include "analysis/pass_pairs.hpp"
#include "analysis/source_ratios.hpp"
#include "gui/app/scenario_model.hpp"
#include "gui/views/byte_floor.hpp"
#include "gui/views/timings/run_names.hpp"
#include "gui/views/timings/timings_data.hpp"

namespace attnlab::gui {

// Every run of `d`, one row each (only the rows in sight are drawn). Where kernels are named,
// "time / our varlen" is one column per kernel of ours. Useful TFLOP/s is drawn as a bar
// against the GEMM ceiling where `ceilings` are loaded. Every scenario's rows name their scenario.
void show_runs_table(const TimingsData& d, const std::optional<Ceilings>& ceilings, float height);

// Forward, backward and their sum per source and implementation (analysis/pass_pairs.hpp): the
// sum only of one build's two rows, and a missing pass said in words.
void show_pass_pairs(const std::vector<PassPair>& pairs, const Kernels& kernels, float height);

// Each family's own ratios, beside the model's (scores computed, and cells attended); no model rows without `model`.
void show_source_ratios(const std::vector<SourceRatios>& ratios, const ScenarioModel* model);

// Each source's times against its own floors (byte_floor.hpp): varlen's and packed's distance
// above them, the floors' ratio and the measured ratio they make together.
void show_source_floors(const std::vector<SourceFloors>& floors);

}  // namespace attnlab::gui
