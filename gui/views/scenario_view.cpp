// The Scenario view: pick a shipped scenario or edit one; every widget goes
// through scenario_edits.hpp, so the model and the pictures follow as you drag.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <vector>

#include "analysis/number_format.hpp"
#include "gui/app/our_kernel.hpp"
#include "gui/app/scenario_edits.hpp"
#include "gui/views/views.hpp"
#include "gui/views/waste_callout.hpp"
#include "gui/widgets/plots.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

void show_scenario_list(AppState& state) {
  ImGui::TextUnformatted("Shipped scenarios");
  if (ImGui::BeginListBox("##shipped", ImVec2(-1, ImGui::GetTextLineHeightWithSpacing() * 9))) {
    for (const ScenarioEntry& shipped : state.shipped_scenarios)
      if (ImGui::Selectable(shipped.name.c_str(), shipped.name == state.scenario.name))
        open_scenario(state, shipped.name);
    ImGui::EndListBox();
  }
  if (ImGui::Button("refresh list")) refresh_shipped_scenarios(state);
}

void show_length_source(AppState& state) {
  const char* current = length_source_name(state.scenario.length_source);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::BeginCombo("document lengths", current)) {
    for (const char* kind : {"uniform", "list", "lognormal"})
      if (ImGui::Selectable(kind, std::string_view(kind) == current)) set_length_source_kind(state, kind);
    ImGui::EndCombo();
  }
  if (const auto* csv = std::get_if<CsvLengths>(&state.scenario.length_source))
    wrapped_text("read from %s (switch to \"list\" to edit them)", csv->path.c_str());
  if (std::holds_alternative<ListLengths>(state.scenario.length_source)) {
    if (state.length_list_edit.empty()) state.length_list_edit = length_list_text(state.scenario);
    ImGui::InputTextMultiline("##lengths", &state.length_list_edit, ImVec2(-1, ImGui::GetTextLineHeight() * 4));
    if (ImGui::Button("apply lengths")) set_length_list(state, state.length_list_edit);
    ImGui::SameLine();
    if (ImGui::Button("revert")) state.length_list_edit = length_list_text(state.scenario);
  } else {
    state.length_list_edit.clear();
  }
}

// Sliders as wide as 16 characters, narrower where their labels would not fit beside them.
float slider_width() {
  return std::max(
      ImGui::GetFontSize() * 4,
      std::min(ImGui::GetFontSize() * 16, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("document length").x -
                                              ImGui::GetStyle().ItemInnerSpacing.x * 2));
}

void show_fields(AppState& state) {
  for (const ScenarioField& field : scenario_fields()) {
    if (!field.applies(state.scenario)) continue;
    double value = field.get(state.scenario);
    ImGui::SetNextItemWidth(slider_width());
    const ImGuiSliderFlags flags = field.logarithmic ? ImGuiSliderFlags_Logarithmic : 0;
    if (ImGui::SliderScalar(field.label, ImGuiDataType_Double, &value, &field.min, &field.max, field.format, flags))
      set_field(state, field, value);
  }
  if (const std::string note = length_source_note(state.scenario); !note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
    wrapped_text("%s", note.c_str());  // wrapped: a long note is never cut at the panel's edge
    ImGui::PopStyleColor();
  }
}

// The sliding window (FlashAttention's window_size): keys to the left, and to the
// right too when the scenario is not causal. The masks and costs follow at once.
void show_window_controls(AppState& state) {
  const Scenario& s = state.scenario;
  bool windowed = s.window.any();
  ImGui::SameLine();
  if (ImGui::Checkbox("sliding window", &windowed))
    set_window(state, windowed ? Window{std::min(512, std::max(1, s.padded_length() / 4)), 0} : Window{});
  if (!s.window.any()) return;
  int left = s.window.left, right = s.window.right;
  ImGui::SetNextItemWidth(slider_width());
  if (ImGui::SliderInt("window: keys to the left", &left, s.causal ? 1 : 0, 65536, "%d", ImGuiSliderFlags_Logarithmic))
    set_window(state, {left, s.window.right});
  if (!s.causal) {
    ImGui::SetNextItemWidth(slider_width());
    if (ImGui::SliderInt("window: keys to the right", &right, 0, 65536, "%d", ImGuiSliderFlags_Logarithmic))
      set_window(state, {s.window.left, right});
  }
}

void show_layout_options(AppState& state) {
  Scenario& s = state.scenario;
  bool fixed = s.pad_to.has_value();
  if (ImGui::Checkbox("pad to a fixed length (else: the longest document)", &fixed))
    set_pad_to(state, fixed ? std::optional<int>(std::max(s.padded_length(), s.row_len)) : std::nullopt);
  if (s.pad_to) {
    int pad = *s.pad_to;
    ImGui::SetNextItemWidth(slider_width());
    if (ImGui::SliderInt("pad to", &pad, 1, 65536, "%d", ImGuiSliderFlags_Logarithmic)) set_pad_to(state, pad);
  }
  int packing = s.packing == PackingPolicy::concatenate ? 0 : 1;
  ImGui::SetNextItemWidth(slider_width());
  if (ImGui::Combo("packing", &packing, "concatenate and cut\0best fit (rows start at a document)\0"))
    set_packing(state, packing == 0 ? PackingPolicy::concatenate : PackingPolicy::best_fit);
  bool causal = s.causal;
  if (ImGui::Checkbox("causal", &causal)) set_causal(state, causal);
  show_window_controls(state);
  int dtype = s.dtype == DType::bf16 ? 0 : 1;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::Combo("dtype", &dtype, "bf16\0fp16\0")) set_dtype(state, dtype == 0 ? DType::bf16 : DType::fp16);
  static const int tile_sizes[] = {16, 32, 64, 128};
  int tile_index = static_cast<int>(std::find(std::begin(tile_sizes), std::end(tile_sizes), state.tile.rows) -
                                    std::begin(tile_sizes));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::Combo("flash tile (rows = cols)", &tile_index, "16\00032\00064\000128\0") && tile_index < 4)
    if (set_tile(state, {tile_sizes[tile_index], tile_sizes[tile_index]})) follow_tile(state);
}

void show_save(AppState& state) {
  ImGui::SetNextItemWidth(slider_width());
  ImGui::InputText("##save path", &state.save_path);
  ImGui::SameLine();
  if (ImGui::Button("save as TOML")) save_scenario_as(state, state.save_path, state.save_message);
  if (!state.save_message.empty()) wrapped_text("%s", state.save_message.c_str());
}

void show_summary(AppState& state) {
  const ScenarioModel& model = state.model();
  const Scenario& s = model.scenario;
  if (state.scenario_edited) {
    // The file's sentence of why it exists describes the file, not the edit (it may say "8x" of lengths now gone).
    ImGui::TextDisabled("Edited from the shipped %s: its description no longer applies.", s.name.c_str());
  } else {
    wrapped_text("%s", s.why.c_str());
  }
  ImGui::Spacing();
  const auto [shortest, longest] = std::minmax_element(s.doc_lengths.begin(), s.doc_lengths.end());
  wrapped_text("%s, %s tokens in all, %s each", count_of(std::ssize(s.doc_lengths), "document").c_str(),
               format_count(double(s.total_tokens())).c_str(),
               *shortest == *longest ? std::to_string(*shortest).c_str()
                                     : (std::to_string(*shortest) + " to " + std::to_string(*longest)).c_str());
  draw_plot({"Document lengths, in tokens", "document, in order", 0, true}, std::span<const int>(s.doc_lengths),
            ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetTextLineHeight() * 6));
  if (!model.ok()) {
    wrapped_text("cannot lay out: %s", model.error.c_str());
    return;
  }
  // The file's sentence rounds (the article's "8x"); the model's figures, beside the table of them.
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  wrapped_text("The model: %s", scenario_summary(model).c_str());
  ImGui::PopStyleColor();
  wrapped_text("padded: %s of %d    packed: %s of %d    varlen: %s in one buffer",
               count_of(model.layouts->padded.num_rows(), "row").c_str(), s.padded_length(),
               count_of(model.layouts->packed.num_rows(), "row").c_str(), s.row_len,
               count_of(model.layouts->varlen.buffer_tokens(), "token").c_str());
  ImGui::Spacing();
  if (ImGui::BeginTable("scores", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("implementation");
    ImGui::TableSetupColumn("scores computed");
    ImGui::TableSetupColumn("vs varlen");
    ImGui::TableHeadersRow();
    for (Implementation i : all_implementations) {
      const ImplementationCost& c = model.costs[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(implementation_name(i));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_count(double(c.scores_computed())).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_ratio(c.computed_vs_varlen).c_str());
    }
    ImGui::EndTable();
  }
  // Packed against varlen as the sliders move (the Masks view has all four, and zoom).
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float width = (avail.x - ImGui::GetStyle().ItemSpacing.x) / 2;
  for (Implementation impl : {Implementation::packed, Implementation::varlen}) {
    if (impl == Implementation::varlen) ImGui::SameLine();
    ImGui::BeginChild(implementation_name(impl), ImVec2(width, avail.y), false, ImGuiWindowFlags_NoScrollWithMouse);
    show_mask_panel(state, impl);
    ImGui::EndChild();
  }
}

}  // namespace

void show_scenario_view(AppState& state) {
  const float left = std::max(ImGui::GetFontSize() * 22, ImGui::GetContentRegionAvail().x * 0.45f);
  ImGui::BeginChild("edit", ImVec2(left, 0));
  show_scenario_list(state);
  ImGui::Separator();
  ImGui::Text("Editing: %s", state.scenario.name.c_str());
  show_length_source(state);
  show_fields(state);
  show_layout_options(state);
  if (!state.scenario_error.empty()) wrapped_text_colored(ImVec4(1, 0.4f, 0.4f, 1), "%s", state.scenario_error.c_str());
  ImGui::Separator();
  show_save(state);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("summary");
  show_summary(state);
  ImGui::EndChild();
}

}  // namespace attnlab::gui
