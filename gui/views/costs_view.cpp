// The Costs view: the cost model of the four implementations side by side, as
// stacked bars by cell kind and as a table with ratios against varlen; the chain
// from the model's ratio to the measured ones; HBM bytes, the model's and ncu's
// measured ones, with naive's broken down by tensor. Measured numbers come from the
// primary run of the scenario's own configuration (analysis/primary_runs.hpp), file named.
// The backward pass has its own half (costs_backward_view.cpp), chosen at the top.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "analysis/number_format.hpp"
#include "core/layout/tile_name.hpp"
#include "gui/app/measured_scenario.hpp"
#include "gui/app/our_kernel.hpp"
#include "gui/mask_picture/cell_colors.hpp"
#include "gui/views/costs_widgets.hpp"
#include "gui/views/highlight.hpp"
#include "gui/views/ratio_chain.hpp"
#include "gui/views/views.hpp"
#include "gui/views/waste_callout.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

// Our primary run of each implementation, in the scenario's own configuration.
using OurRuns = std::array<std::optional<MeasuredRun>, all_implementations.size()>;

const MeasuredRun* run_of(const OurRuns& runs, Implementation i) {
  return runs[static_cast<int>(i)] ? &*runs[static_cast<int>(i)] : nullptr;
}

const Run* bytes_run(const OurRuns& runs, Implementation i) {
  const MeasuredRun* m = run_of(runs, i);
  return m ? m->with_measured_bytes() : nullptr;
}

// One horizontal bar per implementation, its length the scores computed, split by cell kind.
// The bars grow to fill `height_to_fill` (0: their natural height).
void show_score_bars(const ScenarioModel& model, float height_to_fill) {
  std::int64_t most = 1;
  for (const ImplementationCost& c : model.costs.costs) most = std::max(most, c.scores_computed());
  ImGui::TextUnformatted("Scores computed, by cell kind");
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float width =
      ImGui::GetContentRegionAvail().x - bar_label_width() - gap - ImGui::CalcTextSize("000.0G (00.00x varlen)").x;
  const float height =
      std::max(ImGui::GetTextLineHeight() * 1.2f,
               std::min(ImGui::GetTextLineHeight() * 4, height_to_fill / 4 - ImGui::GetStyle().ItemSpacing.y));
  for (const ImplementationCost& c : model.costs.costs) {
    bar_row(implementation_name(c.implementation), height, width + gap,
            format_count(double(c.scores_computed())) + " (" + format_ratio(c.computed_vs_varlen) + " varlen)", 1,
            [&](ImDrawList* draw, ImVec2 at) {
              for (CellKind kind : computed_cell_kinds) {
                const float w = width * float(double(c.scores[kind]) / double(most));
                draw->AddRectFilled(at, ImVec2(at.x + w, at.y + height), cell_kind_color(kind));
                at.x += w;
              }
            });
  }
}

// Per implementation: the model's HBM bytes (a thick bar) and, where a run holds them,
// ncu's measured DRAM bytes (a thinner bar below), each with its number.
void show_hbm_bars(const ScenarioModel& model, const OurRuns& runs, float height_to_fill) {
  std::int64_t most = 1;
  bool any_measured = false;
  for (Implementation i : all_implementations) {
    most = std::max(most, model.costs[i].hbm.total());
    if (const Run* r = bytes_run(runs, i)) {
      most = std::max(most, *r->row->hbm_bytes_measured);
      any_measured = true;
    }
  }
  wrapped_text(any_measured ? "HBM bytes: the model's (upper bar), ncu's measured (lower bar)"
                            : "HBM bytes: the model's (no measured bytes for this scenario)");
  // Every bar's text first: the bars leave room for the longest, so none is cut at the edge.
  std::array<std::string, all_implementations.size()> model_text, ncu_text;
  float text_width = 0;
  for (Implementation i : all_implementations) {
    const ImplementationCost& c = model.costs[i];
    const int n = static_cast<int>(i);
    model_text[n] = format_bytes(double(c.hbm.total())) + " (" + format_ratio(c.hbm_vs_varlen) + " varlen)";
    text_width = std::max(text_width, ImGui::CalcTextSize(model_text[n].c_str()).x);
    if (const Run* r = bytes_run(runs, i)) {
      const double bytes = double(*r->row->hbm_bytes_measured);
      ncu_text[n] = "ncu " + format_bytes(bytes) + " (" + format_ratio(bytes / double(c.hbm.total())) + " the model)";
      text_width = std::max(text_width, ImGui::CalcTextSize(ncu_text[n].c_str()).x * 0.85f);
    }
  }
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float width =
      std::max(ImGui::GetFontSize() * 2, ImGui::GetContentRegionAvail().x - bar_label_width() - gap - text_width);
  const auto [thick, thin] = bar_pair_heights(height_to_fill);
  for (Implementation i : all_implementations) {
    const ImplementationCost& c = model.costs[i];
    const int n = static_cast<int>(i);
    const float w = width * float(double(c.hbm.total()) / double(most));
    bar_row(implementation_name(i), thick, width + gap, model_text[n], 1,
            [&](ImDrawList* draw, ImVec2 at) { draw->AddRectFilled(at, ImVec2(at.x + w, at.y + thick), model_bar); });
    if (const Run* r = bytes_run(runs, i)) {
      const float m = width * float(double(*r->row->hbm_bytes_measured) / double(most));
      bar_row("", thin, m + gap, ncu_text[n], 0.85f, [&](ImDrawList* draw, ImVec2 at) {
        draw->AddRectFilled(at, ImVec2(at.x + m, at.y + thin), measured_bar);
      });
    }
  }
}

// Naive's model bytes as one bar cut by tensor: S and P written and read dwarf Q, K, V and O.
void show_naive_breakdown(const ImplementationCost& naive) {
  const HbmBytes& b = naive.hbm;
  const struct {
    const char* name;
    std::int64_t bytes;
    ImU32 color;
  } parts[] = {
      // greys, lighter for S and P: no cell kind's colour
      {"Q read", b.q_read, IM_COL32(120, 122, 132, 255)}, {"K read", b.k_read, IM_COL32(135, 137, 147, 255)},
      {"V read", b.v_read, IM_COL32(150, 152, 162, 255)}, {"S written", b.s_written, IM_COL32(225, 227, 235, 255)},
      {"S read", b.s_read, IM_COL32(205, 207, 217, 255)}, {"P written", b.p_written, IM_COL32(185, 187, 197, 255)},
      {"P read", b.p_read, IM_COL32(168, 170, 180, 255)}, {"O written", b.o_written, IM_COL32(105, 107, 117, 255)},
  };
  ImGui::Text("naive's %s (model), by tensor:", format_bytes(double(b.total())).c_str());
  const float width = ImGui::GetContentRegionAvail().x, height = ImGui::GetTextLineHeight() * 1.3f;
  ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (const auto& p : parts) {
    const float w = width * float(double(p.bytes) / double(std::max<std::int64_t>(1, b.total())));
    draw->AddRectFilled(at, ImVec2(at.x + w, at.y + height), p.color);
    draw->AddLine(ImVec2(at.x + w, at.y), ImVec2(at.x + w, at.y + height), IM_COL32(20, 20, 26, 255));  // between parts
    const std::string label = std::string(p.name) + " " + format_bytes(double(p.bytes));
    if (ImGui::CalcTextSize(label.c_str()).x + 6 < w)
      draw->AddText(ImVec2(at.x + 3, at.y + (height - ImGui::GetTextLineHeight()) / 2), IM_COL32(15, 15, 20, 255),
                    label.c_str());
    at.x += w;
  }
  ImGui::Dummy(ImVec2(width, height));
  // The parts too thin to hold their label, named below.
  std::string rest;
  for (const auto& p : parts)
    if (ImGui::CalcTextSize((std::string(p.name) + " " + format_bytes(double(p.bytes))).c_str()).x + 6 >=
        width * float(double(p.bytes) / double(std::max<std::int64_t>(1, b.total()))))
      rest += std::string(rest.empty() ? "" : ", ") + p.name + " " + format_bytes(double(p.bytes));
  if (!rest.empty()) wrapped_text("%s.", rest.c_str());
}

// Flash's measured bytes on varlen: the kernel shown's, else those of another kernel of ours that ncu
// measured, named, with the model at that kernel's own tile.
struct FlashBytes {
  const Run* run = nullptr;
  std::string kernel;  // empty: the kernel shown
  double model = 0;    // the model's bytes at the tile of the kernel measured
};

FlashBytes flash_bytes(const ScenarioModel& model, const OurRuns& runs, const std::vector<SourceRatios>& ratios) {
  if (const Run* r = bytes_run(runs, Implementation::varlen))
    return {r, "", double(model.costs[Implementation::varlen].hbm.total())};
  for (const SourceRatios& other : ratios)
    if (other.family->name == ours_family && other.tile())
      if (const MeasuredRun* v = other.run(Implementation::varlen); v && v->with_measured_bytes())
        return {v->with_measured_bytes(), other.kernel,
                double(model.costs_at(*other.tile())[Implementation::varlen].hbm.total())};
  return {};
}

// The IO story in words: naive against varlen's flash, model and measured, and why they differ.
void show_io_callout(const ScenarioModel& model, const OurRuns& runs, const std::vector<SourceRatios>& ratios) {
  const double naive = double(model.costs[Implementation::naive].hbm.total());
  const FlashBytes measured_flash = flash_bytes(model, runs, ratios);
  const double flash =
      measured_flash.kernel.empty() ? double(model.costs[Implementation::varlen].hbm.total()) : measured_flash.model;
  const std::string model_says =
      format_bytes(naive) + " against " + format_bytes(flash) + " (" + format_ratio(naive / flash) + ")";
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  const Run *naive_run = bytes_run(runs, Implementation::naive), *flash_run = measured_flash.run;
  if (naive_run && flash_run) {
    const double n = double(*naive_run->row->hbm_bytes_measured), f = double(*flash_run->row->hbm_bytes_measured);
    const std::string whose = measured_flash.kernel.empty() ? "" : ", " + measured_flash.kernel + " (ncu measured it)";
    wrapped_text(
        "IO: naive writes S and P to HBM and reads them back: it moved %s against %s for flash on varlen%s "
        "(%s; ncu, %s). The model says %s.",
        format_bytes(n).c_str(), format_bytes(f).c_str(), whose.c_str(), format_ratio(n / f).c_str(),
        file_name(*naive_run).c_str(), model_says.c_str());
  } else {
    wrapped_text(
        "IO: naive writes S and P to HBM and reads them back: the model says %s against flash on varlen; "
        "ncu measured %s here.",
        model_says.c_str(),
        flash_run   ? "no bytes of naive"
        : naive_run ? "no bytes of flash on varlen"
                    : "no bytes");
  }
  ImGui::PopStyleColor();
  if (flash_run && double(*flash_run->row->hbm_bytes_measured) < flash)
    wrapped_text(
        "Flash's model is above ncu's bytes because it counts every K and V tile a query tile loads as an "
        "HBM read; the query tiles of a row load the same K and V tiles, and the 50 MB L2 serves many of "
        "those re-reads.");
}

// The largest waste against varlen, in words: the 8x of the article's case, and what it cost on the GPU.
// `kernel`: the flash kernel of `runs`, named where several are loaded ("" otherwise).
Implementation show_callout(const ScenarioModel& model, const OurRuns& runs, const std::string& kernel) {
  const ImplementationCost* worst = &model.costs[largest_waste(model)];
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImGui::SetWindowFontScale(1.25f);
  std::string sentence = waste_sentence(model);
  sentence[0] = char(std::toupper(static_cast<unsigned char>(sentence[0])));
  wrapped_text("%s", sentence.c_str());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::PopStyleColor();
  const MeasuredRun* slow = run_of(runs, worst->implementation);
  const MeasuredRun* fast = run_of(runs, Implementation::varlen);
  if (slow && fast) {
    std::string spread;
    for (const MeasuredRun* m : {slow, fast})
      if (m->runs() > 1) spread += "; " + std::string(m->primary.row->implementation) + " " + spread_text(*m);
    wrapped_text("Measured on %s%s: %s took %s varlen's time (%s against %s; %s%s).", slow->primary.row->gpu.c_str(),
                 kernel.empty() ? "" : (", " + kernel).c_str(), implementation_name(worst->implementation),
                 format_ratio(*slow->primary.row->median_us / *fast->primary.row->median_us).c_str(),
                 format_us(*slow->primary.row->median_us).c_str(), format_us(*fast->primary.row->median_us).c_str(),
                 file_name(slow->primary).c_str(), spread.c_str());
  }
  const ImplementationCost& packed = model.costs[Implementation::packed];
  if (const std::string lost = useful_lost_sentence(model); !lost.empty()) wrapped_text("%s", lost.c_str());
  if (packed.scores[CellKind::bleed] > 0)
    wrapped_text(
        "In packed rows, %s scores are bleed: a token attending to earlier documents of its row, "
        "which changes its output.",
        format_count(double(packed.scores[CellKind::bleed])).c_str());
  return worst->implementation;
}

void show_cost_table(const ScenarioModel& model) {
  constexpr ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  // The kinds of waste some implementation has here (window_masked only under a sliding window).
  std::vector<CellKind> kinds;
  for (CellKind kind : computed_cell_kinds)
    if (kind == CellKind::useful || std::any_of(model.costs.costs.begin(), model.costs.costs.end(),
                                                [&](const ImplementationCost& c) { return c.scores[kind] > 0; }))
      kinds.push_back(kind);
  const float height = ImGui::GetTextLineHeightWithSpacing() * 5.6f + ImGui::GetStyle().ScrollbarSize;
  if (!ImGui::BeginTable("costs", 4 + int(kinds.size()), flags, ImVec2(0, height))) return;
  for (const char* title : {"", "tile"}) ImGui::TableSetupColumn(title);
  for (CellKind kind : kinds) ImGui::TableSetupColumn(cell_kind_name(kind));
  for (const char* title : {"FLOPs fwd", "extra memory"}) ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  for (const ImplementationCost& c : model.costs.costs) {
    ImGui::TableNextRow();
    text_cell(implementation_name(c.implementation));
    text_cell(tile_name(c.tile));
    for (CellKind kind : kinds) text_cell(format_count(double(c.scores[kind])));
    text_cell(format_count(double(c.flops_fwd)));
    text_cell(format_bytes(double(c.extra_memory_bytes)));
  }
  ImGui::EndTable();
  note_text(
      "Scores computed by cell kind, all heads. FLOPs: 4 x head dim per score computed (the backward's: "
      "choose it above). HBM bytes and extra memory: the cost model of core/cost/README.md; measured bytes: ncu's DRAM "
      "bytes in the results files.");
}

}  // namespace

void show_costs_view(AppState& state) {
  if (show_model_error(state)) return;
  const ScenarioModel& model = state.model();
  const Scenario& s = model.scenario;
  show_pass_choice(state);
  ImGui::SameLine();
  wrapped_text("%s: %d heads, head dim %d, %s, %s; flash tile %dx%d. All counts over every head, %s pass.",
               s.name.c_str(), s.heads, s.head_dim, dtype_name(s.dtype), s.causal ? "causal" : "not causal",
               model.tile.rows, model.tile.cols, state.pass == Pass::fwd ? "forward" : "backward");
  if (state.pass == Pass::bwd) {
    show_backward_costs(model);
    return;
  }
  // Measured numbers only of runs that computed this scenario's cells (gui/app/measured_scenario.hpp).
  OurRuns runs;
  std::vector<SourceRatios> ratios;
  std::string kernel;
  if (const std::optional<Configuration> measured = measured_configuration(state, model, Pass::fwd)) {
    ratios = state.results.ratios(
        *measured, model.costs[Implementation::padded].scores == model.costs[Implementation::varlen].scores);
    // One flash kernel's runs, never a mix of two: the kernel shown, whose tile the model is
    // at (our_kernel.hpp), so the computed scores and the time are of the same tiles.
    if (const SourceRatios* ours = ratios_of(ratios, ours_family, shown_kernel(state).name)) {
      runs = ours->runs;
      kernel = ours->kernel;
    }
  }
  const Implementation worst = show_callout(model, runs, kernel);
  ImGui::Spacing();
  // Hook: stages after FlashAttention-2's (a step's time, the article's 1.8%) are appended to `chain` here.
  std::vector<ChainStage> chain = ratio_chain(model, worst, ratios, shown_kernel(state).name);
  ImGui::BeginGroup();
  draw_ratio_chain((std::string("From the count to the clock: ") + implementation_name(worst) + " over varlen").c_str(),
                   chain);
  ImGui::EndGroup();
  frame_if_highlighted(state, Figure::ratio_chain);
  if (s.model)
    ImGui::TextDisabled(
        "The Training step tab carries the chain on, through this scenario's [model], to the step's "
        "time and the article's 1.8%%.");
  ImGui::Separator();
  // Two bands of two columns where the window is wide: scores | bytes, then the table |
  // the IO call-out. The first band takes the height the second leaves, its bars growing
  // to fill it; in a narrow window everything stacks and scrolls.
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float column = (ImGui::GetContentRegionAvail().x - spacing) / 2;
  if (column < ImGui::GetFontSize() * 30) {
    draw_cell_kind_legend();
    show_score_bars(model, 0);
    show_hbm_bars(model, runs, 0);
    show_io_callout(model, runs, ratios);
    show_naive_breakdown(model.costs[Implementation::naive]);
    show_cost_table(model);
    return;
  }
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float lower = line * 11.5f;
  const float upper = std::max(line * 11, ImGui::GetContentRegionAvail().y - lower - ImGui::GetStyle().ItemSpacing.y);
  ImGui::BeginChild("scores", ImVec2(column, upper));
  draw_cell_kind_legend();
  show_score_bars(model, upper - line * 2.2f);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("bytes", ImVec2(column, upper));
  show_hbm_bars(model, runs, upper - line * 1.2f);
  ImGui::EndChild();
  ImGui::BeginChild("table", ImVec2(column, 0));
  show_cost_table(model);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("io", ImVec2(column, 0));
  show_io_callout(model, runs, ratios);
  ImGui::Spacing();
  show_naive_breakdown(model.costs[Implementation::naive]);
  ImGui::EndChild();
}

}  // namespace attnlab::gui
