#include "gui/views/attention_shares.hpp"

#include <imgui.h>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

std::vector<AttentionShare> attention_shares(const StepFigures& f) {
  const StepCost& packed = f.step[Implementation::packed];
  const std::string step = "the step (fwd + bwd)";
  std::vector<AttentionShare> out = {
      {packed.attention_share_full_squares(), "FLOPs", step, "packed", "nanochat's full squares", "cost model"},
      {packed.attention_share_computed(), "FLOPs", step, "packed",
       "computed: causal, " + tile_name(f.step.tile) + " tiles", "cost model"}};
  for (const StepTimePrediction& t : f.times)
    if (const std::optional<double> share = t.attention_share_fwd())
      out.push_back({*share, "time", "the forward", "packed", "predicted: " + t.gemm_pricing() + ", attention measured",
                     t.label()});
  for (const MeasuredStepPair& p : f.measured) {
    if (!p.has_parts()) continue;
    const std::string whose = p.setting();
    for (const MeasuredStepRun* run : {&*p.packed, &*p.varlen})
      out.push_back({*step_attention_us(run->row) / run->row.median_us, "time", step,
                     run == &*p.packed ? "packed" : "varlen", "measured: the profiler's parts of the step's median",
                     whose + ", " + run->file});
  }
  return out;
}

void show_attention_shares(const std::vector<AttentionShare>& shares) {
  wrapped_text("Attention's share of the step, every way it is said here:");
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg;
  // As wide as the window, said outright: a table of stretched columns otherwise tells its group (the
  // Story's frame around it) only its columns' own widths.
  if (!ImGui::BeginTable("attention shares", 6, flags, ImVec2(ImGui::GetContentRegionAvail().x, 0))) return;
  for (const char* title : {"share", "of", "of what", "layout"})
    ImGui::TableSetupColumn(title, ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("whose", ImGuiTableColumnFlags_WidthStretch, 1);
  ImGui::TableSetupColumn("counted", ImGuiTableColumnFlags_WidthStretch, 2);
  ImGui::TableHeadersRow();
  for (const AttentionShare& s : shares) {
    ImGui::TableNextRow();
    for (const std::string& cell : {format_percent(s.share), s.of, s.part, s.layout}) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cell.c_str());
    }
    ImGui::TableNextColumn();
    wrapped_text("%s", s.source.c_str());  // wrapped: a narrow window never cuts them
    ImGui::TableNextColumn();
    wrapped_text("%s", s.counted.c_str());
  }
  ImGui::EndTable();
  note_text(
      "FLOPs count attention against the matrix products of the whole step; a time share also counts how far "
      "attention runs below its roof. The forward's time is predicted from the bench rows and the GEMMs alone; a "
      "measured step adds elementwise work, the loss and the optimizer, and varlen's share is of its own, shorter "
      "step.");
}

}  // namespace attnlab::gui
