// The Costs view: the cost model of the four implementations side by side, as
// stacked bars by cell kind and as a table with ratios against varlen; measured
// HBM bytes beside the model's where the results hold them.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <optional>

#include "gui/cell_colors.hpp"
#include "gui/number_format.hpp"
#include "gui/views.hpp"

namespace attnlab::gui {

namespace {

using MeasuredRows = std::array<const ResultRow*, all_implementations.size()>;
using MeasuredBytes = std::array<std::optional<std::int64_t>, all_implementations.size()>;

// One horizontal bar per implementation, its length the scores computed, split by cell kind.
void show_score_bars(const ScenarioModel& model) {
  std::int64_t most = 1;
  for (const ImplementationCost& c : model.costs.costs) most = std::max(most, c.scores_computed());
  ImGui::TextUnformatted("Scores computed, by cell kind");
  const float label_width = ImGui::CalcTextSize("padded  ").x;
  const float width = ImGui::GetContentRegionAvail().x - label_width - ImGui::CalcTextSize(" 000.0G (00.00x varlen)").x;
  const float height = ImGui::GetTextLineHeight() * 1.4f;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (const ImplementationCost& c : model.costs.costs) {
    ImGui::TextUnformatted(implementation_name(c.implementation));
    ImGui::SameLine(label_width);
    ImVec2 at = ImGui::GetCursorScreenPos();
    for (CellKind kind : computed_cell_kinds) {
      const float w = width * float(double(c.scores[kind]) / double(most));
      draw->AddRectFilled(at, ImVec2(at.x + w, at.y + height), cell_kind_color(kind));
      at.x += w;
    }
    ImGui::Dummy(ImVec2(width, height));
    ImGui::SameLine();
    ImGui::Text("%s (%s varlen)", format_count(double(c.scores_computed())).c_str(), format_ratio(c.computed_vs_varlen).c_str());
  }
}

// Bars of the model's HBM bytes per implementation, each with a thin bar of the measured bytes below where known.
void show_hbm_bars(const ScenarioModel& model, const MeasuredBytes& measured) {
  std::int64_t most = 1;
  for (const ImplementationCost& c : model.costs.costs) most = std::max(most, c.hbm.total());
  for (const auto& m : measured) most = std::max(most, m.value_or(0));
  const bool any_measured = std::any_of(measured.begin(), measured.end(), [](const auto& m) { return m.has_value(); });
  ImGui::TextUnformatted(any_measured ? "HBM bytes moved: the model (thick), ncu's measured DRAM bytes (thin)"
                                                    : "HBM bytes moved (model)");
  const float label_width = ImGui::CalcTextSize("padded  ").x;
  const float width = ImGui::GetContentRegionAvail().x - label_width - ImGui::CalcTextSize(" 000.0 GB (00.00x varlen)").x;
  for (const ImplementationCost& c : model.costs.costs) {
    ImGui::TextUnformatted(implementation_name(c.implementation));
    ImGui::SameLine(label_width);
    ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImVec4(0.55f, 0.6f, 0.75f, 1));
    ImGui::ProgressBar(float(double(c.hbm.total()) / double(most)), ImVec2(width, 0), "");
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::Text("%s (%s varlen)", format_bytes(double(c.hbm.total())).c_str(), format_ratio(c.hbm_vs_varlen).c_str());
    if (const auto& m = measured[static_cast<int>(c.implementation)]) {
      const ImVec2 at(ImGui::GetCursorScreenPos().x + label_width, ImGui::GetCursorScreenPos().y);
      const float w = width * float(double(*m) / double(most)), h = ImGui::GetTextLineHeight() * 0.35f;
      ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + w, at.y + h), IM_COL32(240, 240, 255, 255));
      ImGui::Dummy(ImVec2(width, h));
    }
  }
}

// The largest waste against varlen, in words: the 8x of the article's case, and what it cost on the GPU.
void show_callout(const ScenarioModel& model, const MeasuredRows& measured) {
  const ImplementationCost* worst = &model.costs[Implementation::padded];
  for (Implementation i : {Implementation::padded, Implementation::packed})
    if (model.costs[i].computed_vs_varlen > worst->computed_vs_varlen) worst = &model.costs[i];
  const ImplementationCost& varlen = model.costs[Implementation::varlen];
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImGui::SetWindowFontScale(1.3f);
  ImGui::TextWrapped("%s computes %s the scores of varlen (%s against %s); counting only the cells its mask lets "
                     "through, %s.",
                     implementation_name(worst->implementation), format_ratio(worst->computed_vs_varlen).c_str(),
                     format_count(double(worst->scores_computed())).c_str(),
                     format_count(double(varlen.scores_computed())).c_str(),
                     format_ratio(worst->attended_vs_varlen).c_str());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::PopStyleColor();
  const ResultRow* slow = measured[static_cast<int>(worst->implementation)];
  const ResultRow* fast = measured[static_cast<int>(Implementation::varlen)];
  if (slow && fast && slow->median_us && fast->median_us)
    ImGui::TextWrapped("Measured on %s: %s took %s varlen's time (%.0f us against %.0f us).", slow->gpu.c_str(),
                       implementation_name(worst->implementation), format_ratio(*slow->median_us / *fast->median_us).c_str(),
                       *slow->median_us, *fast->median_us);
  const ImplementationCost& packed = model.costs[Implementation::packed];
  if (packed.scores_useful() < varlen.scores_useful())
    ImGui::TextWrapped("Packed rows cut documents longer than a row: they compute only %s of varlen's %s useful scores "
                       "(attention across a cut is lost).", format_count(double(packed.scores_useful())).c_str(),
                       format_count(double(varlen.scores_useful())).c_str());
  if (packed.scores[CellKind::bleed] > 0)
    ImGui::TextWrapped("In packed rows, %s scores are bleed: a token attending to earlier documents of its row, "
                       "which changes its output.", format_count(double(packed.scores[CellKind::bleed])).c_str());
}

void cell(const std::string& text) {
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(text.c_str());
}

void show_cost_table(const ScenarioModel& model, const MeasuredBytes& measured) {
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                    ImGuiTableFlags_ScrollX;
  const float height = ImGui::GetTextLineHeightWithSpacing() * 6.5f;
  if (!ImGui::BeginTable("costs", 7 + computed_kind_count, flags, ImVec2(0, height))) return;
  for (const char* title : {"implementation", "tile", "scores computed"}) ImGui::TableSetupColumn(title);
  for (CellKind kind : computed_cell_kinds) ImGui::TableSetupColumn(cell_kind_name(kind));
  for (const char* title : {"FLOPs fwd", "HBM model", "HBM measured", "extra memory"}) ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  for (const ImplementationCost& c : model.costs.costs) {
    ImGui::TableNextRow();
    cell(implementation_name(c.implementation));
    cell(std::to_string(c.tile.rows) + "x" + std::to_string(c.tile.cols));
    cell(format_count(double(c.scores_computed())) + " (" + format_ratio(c.computed_vs_varlen) + ")");
    for (CellKind kind : computed_cell_kinds) cell(format_count(double(c.scores[kind])));
    cell(format_count(double(c.flops_fwd)));
    cell(format_bytes(double(c.hbm.total())) + " (" + format_ratio(c.hbm_vs_varlen) + ")");
    const auto& bytes = measured[static_cast<int>(c.implementation)];
    cell(bytes ? format_bytes(double(*bytes)) : "not measured");
    cell(format_bytes(double(c.extra_memory_bytes)));
  }
  ImGui::EndTable();
}

}  // namespace

void show_costs_view(AppState& state) {
  if (show_model_error(state)) return;
  const ScenarioModel& model = state.model();
  const Scenario& s = model.scenario;
  ImGui::Text("%s: %d heads, head dim %d, %s, %s; flash tile %dx%d. All counts over every head, forward pass.",
              s.name.c_str(), s.heads, s.head_dim, dtype_name(s.dtype), s.causal ? "causal" : "not causal", model.tile.rows,
              model.tile.cols);
  // An edited scenario no longer matches the results rows of its name: nothing measured is shown for it.
  MeasuredRows rows{};
  MeasuredBytes measured;
  if (!state.scenario_edited)
    for (Implementation i : all_implementations) {
      const MeasuredForward found = our_measured_forward(state.results, model.scenario, i);
      rows[static_cast<int>(i)] = found.timed;
      measured[static_cast<int>(i)] = found.hbm_bytes;
    }
  show_callout(model, rows);
  ImGui::Spacing();
  draw_cell_kind_legend();
  show_score_bars(model);
  ImGui::Spacing();
  show_hbm_bars(model, measured);
  ImGui::Spacing();
  show_cost_table(model, measured);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("FLOPs: 4 x head dim per score computed (backward: 2.5x). HBM bytes and extra memory: the cost "
                     "model of core/README.md; measured bytes come from ncu runs in the results files.");
  ImGui::PopStyleColor();
}

}  // namespace attnlab::gui
