#include "gui/views/ratio_chain.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"
#include "gui/widgets/note_text.hpp"

namespace attnlab::gui {

namespace {

// "our time (measured, wgmma-sm90)": the kernel named wherever the rows name one.
ChainStage measured_stage(const std::string& whose, const SourceRatios* source, Implementation impl) {
  const std::string label =
      whose + " (measured" + (source && !source->kernel.empty() ? ", " + source->kernel : "") + ")";
  ChainStage stage{label, std::nullopt, "not measured for this scenario"};
  if (!source || !source->vs_varlen(impl)) return stage;
  const MeasuredRun &a = *source->run(impl), &v = *source->varlen();
  stage.ratio = source->vs_varlen(impl);
  stage.detail = format_us(*a.primary.row->median_us) + " / " + format_us(*v.primary.row->median_us) + ", " +
                 file_name(a.primary) +
                 (file_name(a.primary) == file_name(v.primary) ? "" : " and " + file_name(v.primary));
  return stage;
}

}  // namespace

std::vector<ChainStage> ratio_chain(const ScenarioModel& model, Implementation impl,
                                    const std::vector<SourceRatios>& measured, const std::string& our_kernel) {
  const ImplementationCost& c = model.costs[impl];
  const ImplementationCost& v = model.costs[Implementation::varlen];
  std::vector<ChainStage> chain;
  chain.push_back({"cells attended (model)", c.attended_vs_varlen,
                   "cell by cell, the mask alone: " + format_count(double(c.scores_attended())) + " / " +
                       format_count(double(v.scores_attended()))});
  chain.push_back({"scores computed (model)", c.computed_vs_varlen,
                   "whole " + tile_name(c.tile) + " tiles: " + format_count(double(c.scores_computed())) + " / " +
                       format_count(double(v.scores_computed()))});
  ChainStage ours = measured_stage("our time", ratios_of(measured, ours_family, our_kernel), impl);
  // Our other kernels beside it, each at its own tile: its time's ratio and its tiles' scores.
  for (const SourceRatios& other : measured) {
    if (other.family->name != ours_family || other.kernel == our_kernel || !other.vs_varlen(impl)) continue;
    const std::optional<TileShape> tile = other.tile();
    ours.detail += "; beside it " + other.kernel + ": " + format_ratio(*other.vs_varlen(impl)) +
                   (tile ? " (its " + tile_name(*tile) + " tiles compute " +
                               format_ratio(model.costs_at(*tile)[impl].computed_vs_varlen) + ")"
                         : "");
  }
  chain.push_back(std::move(ours));
  chain.push_back(measured_stage("FlashAttention-2's time", ratios_of(measured, fa2_family), impl));
  return chain;
}

void draw_ratio_chain(const char* title, const std::vector<ChainStage>& stages) {
  if (stages.empty()) return;
  ImGui::TextUnformatted(title);
  const float arrow = ImGui::CalcTextSize(" -> ").x;
  const float n = float(stages.size());
  const float box = std::max(ImGui::GetFontSize() * 6, (ImGui::GetContentRegionAvail().x - arrow * (n - 1)) / n);
  double most = 1;
  for (const ChainStage& s : stages) most = std::max(most, s.ratio.value_or(0));
  const ImU32 bar = IM_COL32(235, 235, 245, 255), frame = IM_COL32(120, 120, 140, 255);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (i > 0) {
      ImGui::SameLine(0, 0);
      ImGui::TextUnformatted(" -> ");
      ImGui::SameLine(0, 0);
    }
    const ChainStage& s = stages[i];
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + box);
    ImGui::TextUnformatted(s.label.c_str());
    ImGui::SetWindowFontScale(1.4f);
    ImGui::TextUnformatted(s.ratio ? format_ratio(*s.ratio).c_str() : "-");
    ImGui::SetWindowFontScale(1.0f);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight() * 0.5f;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRect(at, ImVec2(at.x + box, at.y + h), frame);
    if (s.ratio) draw->AddRectFilled(at, ImVec2(at.x + box * float(*s.ratio / most), at.y + h), bar);
    ImGui::Dummy(ImVec2(box, h));
    note_text("%s", s.detail.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
  }
}

}  // namespace attnlab::gui
