// The Costs view's backward pass: per implementation the backward's FLOPs and HBM
// bytes beside the forward's, and the memory each keeps for the backward (naive's S,
// P, dP and dS against flash's log-sum-exp, Delta and dQ accumulator). Every figure
// comes from core/cost/backward_cost.hpp through ScenarioModel::backward; none is computed here.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <string>

#include "analysis/number_format.hpp"
#include "gui/views/backward_callouts.hpp"
#include "gui/views/costs_widgets.hpp"
#include "gui/views/views.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

// One implementation's figure in both passes, with the numbers printed beside the bars.
struct PassBar {
  std::int64_t forward = 0, backward = 0;
  std::string forward_text, backward_text;
};
using PassBars = std::array<PassBar, all_implementations.size()>;

// Per implementation a thick bar for the backward and a thin one below it for the
// forward, on one scale. The bars grow to fill `height_to_fill` (0: their natural height).
void show_pass_bars(const char* title, const PassBars& bars, float height_to_fill) {
  std::int64_t most = 1;
  for (const PassBar& b : bars) most = std::max({most, b.forward, b.backward});
  wrapped_text("%s", title);
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float width =
      ImGui::GetContentRegionAvail().x - bar_label_width() - gap - ImGui::CalcTextSize("000.0 GiB (0.00x fwd)").x;
  const auto [thick, thin] = bar_pair_heights(height_to_fill);
  for (Implementation i : all_implementations) {
    const PassBar& b = bars[static_cast<int>(i)];
    const float bwd = width * float(double(b.backward) / double(most)),
                fwd = width * float(double(b.forward) / double(most));
    bar_row(implementation_name(i), thick, width + gap, b.backward_text, 1, [&](ImDrawList* draw, ImVec2 at) {
      draw->AddRectFilled(at, ImVec2(at.x + bwd, at.y + thick), backward_bar);
    });
    bar_row("", thin, fwd + gap, b.forward_text, 0.85f,
            [&](ImDrawList* draw, ImVec2 at) { draw->AddRectFilled(at, ImVec2(at.x + fwd, at.y + thin), model_bar); });
  }
}

PassBars flops_bars(const ScenarioModel& model) {
  PassBars bars;
  for (Implementation i : all_implementations) {
    const ImplementationCost& f = model.costs[i];
    const BackwardCost& b = model.backward_of(i);
    bars[static_cast<int>(i)] = {f.flops_fwd, b.flops, "fwd " + format_count(double(f.flops_fwd)),
                                 format_count(double(b.flops)) + " (" + format_ratio(b.flops_vs_forward) + " fwd)"};
  }
  return bars;
}

PassBars hbm_bars(const ScenarioModel& model) {
  PassBars bars;
  for (Implementation i : all_implementations) {
    const std::int64_t fwd = model.costs[i].hbm.total(), bwd = model.backward_of(i).hbm.total();
    bars[static_cast<int>(i)] = {fwd, bwd, "fwd " + format_bytes(double(fwd)), format_bytes(double(bwd))};
  }
  return bars;
}

// Per implementation one bar of the memory the backward needs beyond the inputs, O and
// the gradients: what the forward kept for it, then what the backward allocates.
void show_memory_bars(const ScenarioModel& model) {
  std::int64_t most = 1;
  for (const BackwardCost& b : model.backward) most = std::max(most, b.extra_memory_bytes);
  wrapped_text(
      "Memory the backward needs beyond Q, K, V, O and the gradients: kept from the forward (darker: "
      "naive's S and P, flash's log-sum-exp), then allocated by the backward (lighter: naive's dP, dS "
      "and fp32 dK, dV sums; flash's dQ accumulator; Delta for both)");
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float width =
      ImGui::GetContentRegionAvail().x - bar_label_width() - gap - ImGui::CalcTextSize("000.0 GiB (0000x varlen)").x;
  const float height = ImGui::GetTextLineHeight() * 1.6f;
  const double varlen = double(model.backward_of(Implementation::varlen).extra_memory_bytes);
  for (Implementation i : all_implementations) {
    const BackwardCost& b = model.backward_of(i);
    const float kept = width * float(double(model.costs[i].extra_memory_bytes) / double(most));
    const float workspace = width * float(double(b.workspace_bytes) / double(most));
    bar_row(implementation_name(i), height, kept + workspace + gap,
            format_bytes(double(b.extra_memory_bytes)) + " (" + format_ratio(double(b.extra_memory_bytes) / varlen) +
                " varlen)",
            1, [&](ImDrawList* draw, ImVec2 at) {
              draw->AddRectFilled(at, ImVec2(at.x + kept, at.y + height), model_bar);
              draw->AddRectFilled(ImVec2(at.x + kept, at.y), ImVec2(at.x + kept + workspace, at.y + height),
                                  backward_bar);
            });
  }
}

void show_backward_table(const ScenarioModel& model) {
  constexpr ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  const float height = ImGui::GetTextLineHeightWithSpacing() * 5.6f + ImGui::GetStyle().ScrollbarSize;
  if (!ImGui::BeginTable("backward costs", 10, flags, ImVec2(0, height))) return;
  for (const char* title : {"", "products", "recomputed", "FLOPs fwd", "FLOPs bwd", "useful bwd", "HBM fwd", "HBM bwd",
                            "memory fwd", "memory bwd"})
    ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  for (Implementation i : all_implementations) {
    const ImplementationCost& f = model.costs[i];
    const BackwardCost& b = model.backward_of(i);
    ImGui::TableNextRow();
    text_cell(implementation_name(i));
    text_cell(std::to_string(b.gemms));
    text_cell(format_count(double(b.scores_recomputed)));
    text_cell(format_count(double(f.flops_fwd)));
    text_cell(format_count(double(b.flops)));
    text_cell(format_count(double(b.flops_useful)));
    text_cell(format_bytes(double(f.hbm.total())));
    text_cell(format_bytes(double(b.hbm.total())));
    text_cell(format_bytes(double(f.extra_memory_bytes)));
    text_cell(format_bytes(double(b.extra_memory_bytes)));
  }
  ImGui::EndTable();
  note_text(
      "All heads. products: matrix products per score computed, 2 x head dim FLOPs each; recomputed: "
      "scores evaluated again; useful bwd: 10 x head dim per useful score, the convention backward "
      "TFLOP/s are reported in. memory fwd: what the forward keeps beyond Q, K, V and O; memory bwd: "
      "what the backward needs beyond those and the gradients. The formulas: core/cost/README.md, "
      "\"Backward\"; attnlab model prints the same figures.");
}

}  // namespace

void show_backward_costs(const ScenarioModel& model) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImGui::SetWindowFontScale(1.25f);
  wrapped_text("%s", backward_memory_callout(model).c_str());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::PopStyleColor();
  wrapped_text("%s", backward_flops_text(model).c_str());
  ImGui::Separator();
  // Where the window is wide, FLOPs and bytes side by side, their bars growing into the
  // height that the memory bars and the table below leave; stacked and scrolling where narrow.
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float column = (ImGui::GetContentRegionAvail().x - spacing) / 2;
  const char* flops_title = "FLOPs: the backward's (upper bar) and the forward's (lower bar)";
  const char* bytes_title = "HBM bytes (model): the backward's (upper bar) and the forward's (lower bar)";
  if (column < ImGui::GetFontSize() * 30) {
    show_pass_bars(flops_title, flops_bars(model), 0);
    show_pass_bars(bytes_title, hbm_bars(model), 0);
  } else {
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float upper = std::max(line * 10, ImGui::GetContentRegionAvail().y - line * 17.5f);
    ImGui::BeginChild("flops", ImVec2(column, upper));
    show_pass_bars(flops_title, flops_bars(model), upper - line * 1.2f);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("bytes", ImVec2(column, upper));
    show_pass_bars(bytes_title, hbm_bars(model), upper - line * 1.2f);
    ImGui::EndChild();
  }
  show_memory_bars(model);
  ImGui::Spacing();
  show_backward_table(model);
}

}  // namespace attnlab::gui
