// The Timings view: measured results (ours and peers' from the same runs) side by
// side, one primary run per configuration (analysis/primary_runs.hpp) with its file and
// the spread of the other runs; each source's own ratios beside the model's; and a
// roofline under the results folder's measured ceilings. Files that cannot be read are
// listed and skipped. Under the backward choice, the backward rows by the same rules, and
// forward + backward per implementation where one build measured both. Where the files
// hold several flash kernels of ours (mma-sm80, wgmma-sm90), each implementation's rows
// of each kernel stand side by side, named and ringed apart, each ratio within one kernel.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "analysis/number_format.hpp"
#include "gui/app/measured_scenario.hpp"
#include "gui/views/highlight.hpp"
#include "gui/views/timings/roofline_plot.hpp"
#include "gui/views/timings/run_order.hpp"
#include "gui/views/timings/timings_tables.hpp"
#include "gui/views/views.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

std::string configuration_label(const Configuration& c, const Configuration& own) {
  return std::string(dtype_name(c.dtype)) + ", head dim " + std::to_string(c.head_dim) +
         (c.heads != own.heads ? ", " + std::to_string(c.heads) + " heads" : "") +
         (c == own ? " (the scenario's own)" : "");
}

// A button that runs this scenario on the local GPU through the CLI, where there is one.
void show_live_run(AppState& state) {
  collect_live_run(state.live_run, state.results);
  const std::filesystem::path cli = attnlab_cli();
  if (!live_runs_possible(cli)) {
    note_text(
        "Live runs need a CUDA GPU here and the attnlab CLI beside this GUI; elsewhere, run "
        "`attnlab run SCENARIO --out FILE.csv` on a GPU machine and load the file.");
    return;
  }
  if (state.live_run.running()) {
    ImGui::TextDisabled("%s", state.live_run.status.c_str());
    return;
  }
  if (ImGui::Button("run this scenario on the GPU")) {
    Scenario scenario = state.model().scenario;
    if (state.scenario_edited) scenario.name += "-edited";  // its rows must not pass for the shipped scenario's
    start_live_run(state.live_run, scenario, cli);
  }
  if (!state.live_run.status.empty()) {
    ImGui::SameLine();
    ImGui::TextUnformatted(state.live_run.status.c_str());
  }
}

void show_sources(AppState& state) {
  ResultsState& results = state.results;
  ImGui::Text("%s from %s", count_of(static_cast<long long>(total_rows(results)), "row").c_str(),
              count_of(static_cast<long long>(results.files.size()), "file").c_str());
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
  ImGui::InputTextWithHint("##load", "a results CSV or a folder of them", &results.load_path);
  ImGui::SameLine();
  if (ImGui::Button("load") && !results.load_path.empty()) load_results(results, results.load_path);
  ImGui::SameLine();
  show_pass_choice(state);
  for (const std::string& problem : results.problems)
    ImGui::TextColored(ImVec4(1, 0.45f, 0.45f, 1), "skipped %s", problem.c_str());
  show_live_run(state);
}

// The shape (dtype, head dim, heads) the view shows: the one chosen in the combo where
// this scenario was measured in it, else the scenario's own; none where every scenario is shown.
std::optional<Configuration> choose_shape(AppState& state, const std::vector<Configuration>& configurations,
                                          const Configuration& own) {
  ResultsState& results = state.results;
  const auto shape_of = [](const Configuration& c) {
    return std::string(dtype_name(c.dtype)) + " d" + std::to_string(c.head_dim) + " h" + std::to_string(c.heads);
  };
  const auto chosen_at = std::find_if(configurations.begin(), configurations.end(),
                                      [&](const Configuration& c) { return shape_of(c) == results.shape; });
  const int chosen = chosen_at == configurations.end() ? 0 : int(chosen_at - configurations.begin());
  const bool every = results.all_scenarios || configurations.empty();
  ImGui::Checkbox("every scenario", &results.all_scenarios);
  ImGui::SameLine();
  if (every) {
    if (configurations.empty() && !results.all_scenarios)
      ImGui::TextDisabled("(no %s rows for %s: showing every scenario)", pass_name(own.pass), own.scenario.c_str());
    else
      ImGui::NewLine();
    return std::nullopt;
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 19);
  if (ImGui::BeginCombo("shape", configuration_label(configurations[chosen], own).c_str())) {
    for (int i = 0; i < int(configurations.size()); ++i)
      if (ImGui::Selectable(configuration_label(configurations[i], own).c_str(), i == chosen))
        results.shape = shape_of(configurations[i]);
    ImGui::EndCombo();
  }
  if (state.scenario_edited) {
    ImGui::SameLine();
    ImGui::TextDisabled("(rows of the shipped %s: it computes the same cells as your edit)", own.scenario.c_str());
  }
  return configurations[chosen];
}

// Below the table: forward + backward (backward only), each source's own ratios and the
// roofline, side by side where the window is wide, one above the other where it is not.
void show_below_table(AppState& state, const std::vector<MeasuredRun>& runs, const std::vector<SourceRatios>& ratios,
                      const Kernels& kernels, const Configuration& shape, float avail) {
  const ResultsState& results = state.results;
  if (state.pass == Pass::bwd) {
    const std::vector<PassPair> pairs = pass_pairs(results, shape);
    const float line = ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().CellPadding.y * 2;
    show_pass_pairs(pairs, kernels,
                    std::min(avail * 0.25f, line * float(pairs.size() + 1) + ImGui::GetStyle().ScrollbarSize));
  }
  const ScenarioModel& model = state.model();
  const ScenarioModel* shown_model = model.ok() && measured_configuration(state, model, state.pass) ? &model : nullptr;
  // The scenario's byte floors, forward: why its measured ratio is smaller than the scores'.
  const bool floors_shown = shown_model && results.ceilings && state.pass == Pass::fwd;
  const std::vector<ByteFloor> floors =
      floors_shown ? byte_floors(*shown_model, *results.ceilings) : std::vector<ByteFloor>{};
  const auto ratios_and_floors = [&] {
    ImGui::BeginGroup();
    show_source_ratios(ratios, shown_model);
    ImGui::EndGroup();
    frame_if_highlighted(state, Figure::source_ratios);
    if (floors_shown) note_text("%s", byte_floor_text(*shown_model, *results.ceilings).c_str());
  };
  if (ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 62) {  // large text: one above the other, scrolling
    ratios_and_floors();
    ImGui::BeginGroup();
    show_roofline(runs, kernels, results.ceilings, true, 18, floors);
    ImGui::EndGroup();
    frame_if_highlighted(state, Figure::roofline);
    return;
  }
  const float left = std::min(ImGui::GetContentRegionAvail().x * 0.45f, ImGui::GetFontSize() * 38);
  ImGui::BeginChild("ratios", ImVec2(left, 0));
  ratios_and_floors();
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("roofline");
  ImGui::BeginGroup();
  show_roofline(runs, kernels, results.ceilings, true, 8, floors);
  ImGui::EndGroup();
  frame_if_highlighted(state, Figure::roofline);
  ImGui::EndChild();
}

}  // namespace

void show_timings_view(AppState& state) {
  show_sources(state);
  const ResultsState& results = state.results;
  const ScenarioModel& model = state.model();
  const Pass pass = state.pass;
  // The rows of the shipped scenario that computes this one's cells; none for an edit no shipped one matches.
  const std::optional<Configuration> measured = measured_configuration(state, model, pass);
  const Configuration own = measured.value_or(own_configuration(model.scenario, pass));
  std::vector<MeasuredRun> of_scenario = primary_runs(
      results, [&](const ResultRow& r) { return r.pass == pass && measured && r.scenario == measured->scenario; });
  const std::optional<Configuration> shape = choose_shape(state, measured_configurations(of_scenario, own), own);
  std::vector<MeasuredRun> runs;
  if (!shape)
    runs = primary_runs(results, [&](const ResultRow& r) { return r.pass == pass; });
  else
    for (MeasuredRun& m : of_scenario)
      if (configuration_of(*m.primary.row) == *shape) runs.push_back(std::move(m));
  if (runs.empty()) {
    wrapped_text(
        "No %s results to show yet. The shipped H100 results live in results/h100/*.csv; load a file or a "
        "folder above, or make one with `attnlab run` on a GPU machine.",
        pass_name(pass));
    return;
  }
  order_for_table(runs);
  const Kernels kernels{our_flash_kernels(results)};
  const bool padded_equals_varlen =
      model.ok() && model.costs[Implementation::padded].scores == model.costs[Implementation::varlen].scores;
  const std::vector<SourceRatios> ratios =
      shape ? source_ratios(results, *shape, padded_equals_varlen) : std::vector<SourceRatios>{};
  const float avail = ImGui::GetContentRegionAvail().y;
  const float row_height = ImGui::GetFrameHeight() + ImGui::GetStyle().CellPadding.y * 2;  // rows hold a bar
  show_runs_table(runs, ratios, kernels, results.ceilings, !shape,
                  std::min(avail * 0.32f, row_height * float(runs.size() + 1) + 2));
  if (!shape)
    show_roofline(runs, kernels, results.ceilings, false, 18);
  else
    show_below_table(state, runs, ratios, kernels, *shape, avail);
}

}  // namespace attnlab::gui
