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
#include "gui/views/timings/timings_data.hpp"
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
  ImGui::Text("%s from %s", count_of(static_cast<long long>(total_rows(results.loaded())), "row").c_str(),
              count_of(static_cast<long long>(results.loaded().files.size()), "file").c_str());
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
  ImGui::InputTextWithHint("##load", "a results CSV or a folder of them", &results.load_path);
  ImGui::SameLine();
  if (ImGui::Button("load") && !results.load_path.empty()) results.load(results.load_path);
  ImGui::SameLine();
  show_pass_choice(state);
  for (const std::string& problem : results.loaded().problems)
    wrapped_text_colored(ImVec4(1, 0.45f, 0.45f, 1), "skipped %s", problem.c_str());
  show_live_run(state);
}

// The choice of shape (dtype, head dim, heads) among those this scenario was measured in,
// and of every scenario's rows; the data follow on the next frame.
void show_shape_choice(AppState& state, const TimingsData& d) {
  ResultsState& results = state.results;
  const Configuration& own = d.key.own;
  ImGui::Checkbox("every scenario", &results.all_scenarios);
  ImGui::SameLine();
  if (!d.shape) {
    if (d.configurations.empty() && !results.all_scenarios)
      ImGui::TextDisabled("(no %s rows for %s: showing every scenario)", pass_name(own.pass), own.scenario.c_str());
    else
      ImGui::NewLine();
    return;
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 19);
  if (ImGui::BeginCombo("shape", configuration_label(*d.shape, own).c_str())) {
    for (const Configuration& c : d.configurations)
      if (ImGui::Selectable(configuration_label(c, own).c_str(), c == *d.shape)) results.shape = shape_name(c);
    ImGui::EndCombo();
  }
  if (state.scenario_edited) {
    ImGui::SameLine();
    ImGui::TextDisabled("(rows of the shipped %s: it computes the same cells as your edit)", own.scenario.c_str());
  }
}

// Below the table: forward + backward (backward only), each source's own ratios and the
// roofline, side by side where the window is wide, one above the other where it is not.
void show_below_table(AppState& state, const TimingsData& d, float avail) {
  const LoadedResults& results = state.results.loaded();
  if (state.pass == Pass::bwd) {
    const float line = ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().CellPadding.y * 2;
    show_pass_pairs(d.pairs, d.kernels,
                    std::min(avail * 0.25f, line * float(d.pairs.size() + 1) + ImGui::GetStyle().ScrollbarSize));
  }
  const ScenarioModel& model = state.model();
  const ScenarioModel* shown_model = model.ok() && d.key.measured ? &model : nullptr;
  // The scenario's byte floors, forward: why its measured ratio is smaller than the scores'.
  const bool floors_shown = shown_model && results.ceilings && state.pass == Pass::fwd;
  const std::vector<ByteFloor> floors =
      floors_shown ? byte_floors(*shown_model, *results.ceilings) : std::vector<ByteFloor>{};
  const auto ratios_and_floors = [&] {
    ImGui::BeginGroup();
    show_source_ratios(d.ratios, shown_model);
    ImGui::EndGroup();
    frame_if_highlighted(state, Figure::source_ratios);
    if (!floors_shown) return;
    note_text("%s", byte_floor_text(*shown_model, *results.ceilings).c_str());
    ImGui::Spacing();  // room for the Story's frame between the note's last line and the table
    ImGui::BeginGroup();
    show_source_floors(source_floors(*shown_model, d.ratios, *results.ceilings));
    ImGui::EndGroup();
    frame_if_highlighted(state, Figure::roofline);
  };
  if (ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 62) {  // large text: one above the other, scrolling
    ratios_and_floors();
    ImGui::BeginGroup();
    show_roofline(d.runs, d.kernels, results.ceilings, true, 18, floors);
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
  show_roofline(d.runs, d.kernels, results.ceilings, true, 10, floors);
  ImGui::EndGroup();
  frame_if_highlighted(state, Figure::roofline);
  ImGui::EndChild();
}

}  // namespace

void show_timings_view(AppState& state) {
  show_sources(state);
  const TimingsData& d = timings_data(state, state.model());
  show_shape_choice(state, d);
  if (d.runs.empty()) {
    wrapped_text(
        "No %s results to show yet. The shipped H100 results live in results/h100/*.csv; load a file or a "
        "folder above, or make one with `attnlab run` on a GPU machine.",
        pass_name(state.pass));
    return;
  }
  const float avail = ImGui::GetContentRegionAvail().y;
  const float row_height = ImGui::GetFrameHeight() + ImGui::GetStyle().CellPadding.y * 2;  // rows hold a bar
  show_runs_table(d, state.results.loaded().ceilings,
                  std::min(avail * 0.32f, row_height * float(d.runs.size() + 1) + 2));
  if (!d.shape)
    show_roofline(d.runs, d.kernels, state.results.loaded().ceilings, false, 18);
  else
    show_below_table(state, d, avail);
}

}  // namespace attnlab::gui
