#include "gui/views/timings/timings_tables.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "analysis/number_format.hpp"
#include "gui/views/timings/model_ratios.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

constexpr ImGuiTableFlags scrolling_table = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                            ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY |
                                            ImGuiTableFlags_ScrollX;

void text_or_dash(const std::optional<std::string>& text) { ImGui::TextUnformatted(text ? text->c_str() : "-"); }

std::optional<std::string> ratio_text(const std::optional<double>& r) {
  return r ? std::optional(format_ratio(*r)) : std::nullopt;
}

// Useful TFLOP/s as a bar against the GEMM ceiling: how much of the machine did useful work.
void useful_rate_cell(const ResultRow& r, const std::optional<Ceilings>& ceilings) {
  if (!r.useful_tflops) {
    ImGui::TextUnformatted("-");
    return;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", *r.useful_tflops);
  if (ceilings)
    ImGui::ProgressBar(float(*r.useful_tflops / ceilings->tflops), ImVec2(ImGui::GetFontSize() * 7, 0), text);
  else
    ImGui::TextUnformatted(text);
}

// The other runs' spread, with their files and times in a tooltip.
void other_runs_cell(const MeasuredRun& m) {
  if (m.others.empty()) {
    ImGui::TextDisabled("none");
    return;
  }
  ImGui::TextUnformatted(spread_text(m).c_str());
  if (!ImGui::IsItemHovered()) return;
  std::string files;
  for (const Run& o : m.others) files += "\n" + file_name(o) + ": " + format_us(*o.row->median_us);
  ImGui::SetTooltip("primary: %s: %s (the first file in name order, as the README's table)%s",
                    file_name(m.primary).c_str(), format_us(*m.primary.row->median_us).c_str(), files.c_str());
}

void show_run_row(const TimingsData& d, std::size_t i, const std::optional<Ceilings>& ceilings) {
  const MeasuredRun& m = d.runs[i];
  const ResultRow& r = *m.primary.row;
  ImGui::TableNextRow();
  if (!d.shape) {
    ImGui::TableNextColumn();
    ImGui::Text("%s %s d%d", r.scenario.c_str(), dtype_name(r.dtype), r.head_dim);
  }
  ImGui::TableNextColumn();
  show_implementation_name(r, d.kernels);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(r.source.c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(format_us(*r.median_us).c_str());
  ImGui::TableNextColumn();
  text_or_dash(r.min_us && r.max_us ? std::optional(format_us(*r.min_us) + ".." + format_us(*r.max_us)) : std::nullopt);
  ImGui::TableNextColumn();
  useful_rate_cell(r, ceilings);
  for (const std::optional<double>& vs : d.rows[i].vs_our_varlen) {
    ImGui::TableNextColumn();
    text_or_dash(ratio_text(vs));
  }
  ImGui::TableNextColumn();
  text_or_dash(ratio_text(d.rows[i].vs_own_varlen));
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(file_name(m.primary).c_str());
  ImGui::TableNextColumn();
  other_runs_cell(m);
}

void ratio_cell(const std::optional<double>& r, const char* note = "") {
  ImGui::TableNextColumn();
  if (r)
    ImGui::Text("%s%s", format_ratio(*r).c_str(), note);
  else
    ImGui::TextDisabled("-");
}

}  // namespace

void show_runs_table(const TimingsData& d, const std::optional<Ceilings>& ceilings, float height) {
  const bool show_scenario = !d.shape;
  if (!ImGui::BeginTable("results", (show_scenario ? 9 : 8) + int(d.versus.size()), scrolling_table, ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  if (show_scenario) ImGui::TableSetupColumn("scenario and shape");
  for (const char* title : {"implementation", "source", "median", "min..max", "useful TFLOP/s"})
    ImGui::TableSetupColumn(title);
  for (const std::string& k : d.versus)
    ImGui::TableSetupColumn(d.kernels.named() ? ("time / varlen \xC2\xB7 " + k).c_str() : "time / our varlen");
  for (const char* title : {"time / its own varlen", "file", "other runs"}) ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;  // a file of many rows: only those in sight are drawn
  clipper.Begin(int(d.runs.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) show_run_row(d, std::size_t(i), ceilings);
  ImGui::EndTable();
}

void show_pass_pairs(const std::vector<PassPair>& pairs, const Kernels& kernels, float height) {
  ImGui::TextUnformatted("Forward + backward, summed where one build measured both passes (a training step pays both)");
  if (!ImGui::BeginTable("pass pairs", 7, scrolling_table, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* title :
       {"implementation", "source", "forward", "backward", "forward + backward", "bwd / fwd", "from"})
    ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  const auto pass_cell = [](const std::optional<Run>& run, const char* missing) {
    ImGui::TableNextColumn();
    if (run)
      ImGui::TextUnformatted(format_us(*run->row->median_us).c_str());
    else
      ImGui::TextDisabled("%s", missing);
  };
  for (const PassPair& p : pairs) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    show_implementation_name(*(p.fwd ? p.fwd : p.bwd)->row, kernels);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(p.source.c_str());
    pass_cell(p.fwd, "not measured");
    pass_cell(p.bwd, "not measured");
    ImGui::TableNextColumn();
    if (const std::optional<double> sum = p.sum_us())
      ImGui::TextUnformatted(format_us(*sum).c_str());
    else
      ImGui::TextDisabled("%s", p.fwd && p.bwd ? "two builds" : "-");
    ImGui::TableNextColumn();
    if (p.one_build)
      ImGui::TextUnformatted(format_ratio(*p.bwd->row->median_us / *p.fwd->row->median_us).c_str());
    else
      ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    if (p.one_build && p.fwd->file == p.bwd->file)
      ImGui::Text("%s, both passes", file_name(*p.fwd).c_str());
    else if (p.one_build)
      ImGui::Text("fwd %s, bwd %s (commit %s)", file_name(*p.fwd).c_str(), file_name(*p.bwd).c_str(),
                  p.fwd->row->commit.c_str());
    else if (p.fwd && p.bwd)
      ImGui::TextDisabled("two builds: fwd %s (commit %s), bwd %s (commit %s)", file_name(*p.fwd).c_str(),
                          p.fwd->row->commit.c_str(), file_name(*p.bwd).c_str(), p.bwd->row->commit.c_str());
    else
      ImGui::TextDisabled("%s; no %s measured", file_name(p.fwd ? *p.fwd : *p.bwd).c_str(),
                          p.fwd ? "backward" : "forward");
  }
  ImGui::EndTable();
}

void show_source_ratios(const std::vector<SourceRatios>& ratios, const ScenarioModel* model) {
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                    ImGuiTableFlags_ScrollX;  // a narrow column scrolls, never cuts a header
  wrapped_text("Each source's own ratios: its padded and packed time over its own varlen time");
  const std::vector<ModelRatioRow> model_rows = model ? model_ratio_rows(*model, ratios) : std::vector<ModelRatioRow>{};
  const float rows = float(model_rows.size() + ratios.size() + 1);
  const float height = rows * (ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2 + 1) +
                       ImGui::GetStyle().ScrollbarSize + 2;
  if (!ImGui::BeginTable("source ratios", 4, flags, ImVec2(0, height))) return;
  for (const char* title : {"source", "varlen", "padded/varlen", "packed/varlen"}) ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  for (const ModelRatioRow& row : model_rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(row.label.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(row.varlen.c_str());
    ratio_cell(row.padded);
    ratio_cell(row.packed);
  }
  bool stand_in = false;
  std::vector<std::string> files;
  for (const SourceRatios& s : ratios) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(s.label().c_str());
    ImGui::TableNextColumn();
    if (const MeasuredRun* v = s.varlen())
      ImGui::Text("%s%s", format_us(*v->primary.row->median_us).c_str(), s.padded_stands_for_varlen ? " *" : "");
    else
      ImGui::TextDisabled("no varlen run");
    stand_in |= s.padded_stands_for_varlen;
    ratio_cell(s.padded_stands_for_varlen ? std::nullopt : s.vs_varlen(Implementation::padded));
    ratio_cell(s.vs_varlen(Implementation::packed));
    for (const auto& run : s.runs)
      if (run && std::find(files.begin(), files.end(), file_name(run->primary)) == files.end())
        files.push_back(file_name(run->primary));
  }
  ImGui::EndTable();
  std::string text;
  for (const std::string& f : files) text += (text.empty() ? "" : ", ") + f;
  note_text("Primary runs from %s%s", text.c_str(),
            stand_in ? ". * No varlen run: its padded run stands in (documents of one length: padded = varlen)." : ".");
}

void show_source_floors(const std::vector<SourceFloors>& floors) {
  if (floors.empty()) return;
  wrapped_text("Why each ratio is what it is: each time over its own floor (the least two perfect kernels would take)");
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg;
  if (!ImGui::BeginTable("source floors", 5, flags)) return;
  ImGui::TableSetupColumn("source, floors of", ImGuiTableColumnFlags_WidthStretch);
  for (const char* title : {"varlen/floor", "packed/floor", "floors apart", "measured"})
    ImGui::TableSetupColumn(title, ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableHeadersRow();
  for (const SourceFloors& f : floors) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    wrapped_text("%s, %s", f.source.c_str(), f.basis.c_str());  // wrapped: the number columns keep their room
    for (const double x : {f.varlen_above(), f.packed_above(), f.floors_ratio(), f.measured_ratio()}) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_ratio(x).c_str());
    }
  }
  ImGui::EndTable();
  note_text(
      "measured (packed/varlen) = floors apart x packed/floor / (varlen/floor). A floor is the FLOPs at the GEMM roof "
      "or "
      "the least bytes at the copy roof, whichever is longer: ours at its kernel's tile, a peer at the cells attended "
      "(its tile is not in its rows, and no tile computes fewer).");
}

}  // namespace attnlab::gui
