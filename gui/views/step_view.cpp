// The Training step view: the chain from the article's 8x fewer scores to its 1.8%
// shorter run, each link with our number, for the scenario's documents and [model]
// (analysis/step_chain.hpp, the same links `attnlab step` prints), closing on the measured
// steps where step rows of these documents are loaded, with their parts side by side.
// Editing the lengths in the Scenario view, or the model and its windows here, moves every link.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "analysis/ceilings.hpp"
#include "analysis/number_format.hpp"
#include "analysis/source_ratios.hpp"
#include "analysis/step_chain.hpp"
#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/app/measured_scenario.hpp"
#include "gui/app/scenario_edits.hpp"
#include "gui/views/attention_shares.hpp"
#include "gui/views/chain_figure.hpp"
#include "gui/views/highlight.hpp"
#include "gui/views/step_figures.hpp"
#include "gui/views/views.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

// Everything the view shows, derived from the state; rebuilt when the scenario, the
// tile or the loaded results change (the cost model runs once per layer kind).
struct StepPicture {
  std::uint64_t version = 0;  // the scenario and tile it was built from (AppState::scenario_version)
  std::string kernel;
  std::uint64_t results_version = 0;
  StepFigures figures;
  std::optional<Ceilings> ceiling;
  std::vector<ChainLink> chain;
  std::vector<ChainBar> bars, detail_bars;  // the chain's links as bars (they point into `chain`); with the details
  std::vector<std::string> explanation;
};

const StepPicture& step_picture(const AppState& state) {
  static std::unique_ptr<StepPicture> picture;
  const std::uint64_t results = state.results.version();
  if (picture && picture->version == state.scenario_version && picture->kernel == state.our_kernel &&
      picture->results_version == results)
    return *picture;
  auto p = std::make_unique<StepPicture>();
  p->version = state.scenario_version;
  p->kernel = state.our_kernel;
  p->results_version = results;
  p->figures = step_figures(state);
  p->ceiling = state.results.loaded().ceilings;
  p->chain = step_chain(state.scenario, p->figures.step, p->figures.times, p->figures.measured);
  p->bars = chain_bars(p->chain, false);
  p->detail_bars = chain_bars(p->chain, true);
  p->explanation = step_explanation(state.scenario, p->figures.times, p->figures.measured);
  picture = std::move(p);
  return *picture;
}

// One edit of the model, checked as a scenario file's [model] would be.
void edit_model(AppState& state, const std::function<void(ModelShape&)>& change) {
  apply_edit(state, [&](Scenario& s) {
    change(*s.model);
    check_model_shape(*s.model, s.name);
  });
}

void show_model_controls(AppState& state) {
  const ModelShape& m = *state.scenario.model;
  const float width = ImGui::GetFontSize() * 12;
  int layers = m.layers, model_width = m.width, short_window = m.short_window;
  ImGui::SetNextItemWidth(width);
  if (ImGui::SliderInt("layers", &layers, 1, 64)) edit_model(state, [&](ModelShape& s) { s.layers = layers; });
  ImGui::SameLine();
  ImGui::SetNextItemWidth(width);
  if (ImGui::SliderInt("width", &model_width, 64, 8192, "%d", ImGuiSliderFlags_Logarithmic))
    edit_model(state, [&](ModelShape& s) { s.width = model_width; });
  // A pattern of long layers alone has no short window to set.
  ImGui::BeginDisabled(m.window_pattern.find('S') == std::string::npos);
  ImGui::SetNextItemWidth(width);
  if (ImGui::SliderInt("short window", &short_window, 16, 16384, "%d", ImGuiSliderFlags_Logarithmic))
    edit_model(state, [&](ModelShape& s) { s.short_window = short_window; });
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(width);
  if (ImGui::BeginCombo("window pattern", m.window_pattern.c_str())) {
    for (const char* pattern : {"L", "SL", "SSL", "SSSL", "SSSSSSSL"})
      if (ImGui::Selectable(pattern, m.window_pattern == pattern))
        edit_model(state, [&](ModelShape& s) { s.window_pattern = pattern; });
    ImGui::EndCombo();
  }
  note_text("%d heads (%d KV) of %d, MLP %dx, vocabulary %d, sequence %d; the last layer is always long", m.heads,
            m.kv_heads, m.head_dim, m.mlp_ratio, m.vocab, m.seq_len);
  if (!state.scenario_error.empty()) wrapped_text_colored(ImVec4(1, 0.4f, 0.4f, 1), "%s", state.scenario_error.c_str());
}

// The bars the Story's step is about: the measured step's (step 9), or the predictions and the
// article's figure (step 10); chosen by what a link is, not by its name.
bool bar_framed(const AppState& state, const ChainBar& b) {
  const LinkEvidence e = b.link->evidence;
  if (is_highlighted(state, Figure::step_measured)) return e == LinkEvidence::measured && b.unit == LinkUnit::percent;
  if (is_highlighted(state, Figure::step_saving))
    return b.unit == LinkUnit::percent && (e == LinkEvidence::reported || e == LinkEvidence::predicted);
  return false;
}

// The chain as a table, each link with how it is computed: the label and the value never cut,
// the explanation wrapped; the table scrolls sideways where the window is narrow.
void show_chain_table(const StepPicture& p) {
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX;
  const float font = ImGui::GetFontSize();
  float label = 0;
  for (const ChainLink& link : p.chain) label = std::max(label, ImGui::CalcTextSize(link.label.c_str()).x);
  label = std::min(label, font * 24);
  const float value = ImGui::CalcTextSize("-000,000 \xC2\xB5s").x;
  const float how = std::max(font * 22, ImGui::GetContentRegionAvail().x - label - value - font * 2);
  const float height = ImGui::GetTextLineHeightWithSpacing() * 16;
  if (!ImGui::BeginTable("chain", 3, flags | ImGuiTableFlags_ScrollY, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("link", ImGuiTableColumnFlags_WidthFixed, label);
  ImGui::TableSetupColumn("ours", ImGuiTableColumnFlags_WidthFixed, value);
  ImGui::TableSetupColumn("how", ImGuiTableColumnFlags_WidthFixed, how);
  ImGui::TableHeadersRow();
  for (const ChainLink& link : p.chain) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    wrapped_text("%s", link.label.c_str());
    ImGui::TableNextColumn();
    if (link.value == "not measured")
      ImGui::TextDisabled("not measured");
    else
      ImGui::TextUnformatted(link.value.c_str());
    ImGui::TableNextColumn();
    wrapped_text("%s", link.how.c_str());
  }
  ImGui::EndTable();
}

// Packed and varlen per token, as stacked bars: matrix products, then attention (computed).
void show_step_bars(const StepPicture& p) {
  const TrainingStep& step = p.figures.step;
  const StepCost& packed = step[Implementation::packed];
  const double most = std::max(packed.step_computed(), step[Implementation::varlen].step_computed());
  wrapped_text("FLOPs per token of one step (forward + backward): matrix products, then attention as computed");
  const float label = ImGui::CalcTextSize("packed  ").x;
  const float width = ImGui::GetContentRegionAvail().x - label - ImGui::CalcTextSize("  0.00G (attention 00.0%)  ").x;
  const float height = ImGui::GetTextLineHeight() * 1.4f;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (Implementation impl : {Implementation::packed, Implementation::varlen}) {
    const StepCost& c = step[impl];
    ImGui::TextUnformatted(implementation_name(impl));
    ImGui::SameLine(label);
    ImVec2 at = ImGui::GetCursorScreenPos();
    const float matrix = width * float(c.matrix.step() / most),
                attention = width * float(c.attention_computed.step() / most);
    draw->AddRectFilled(at, ImVec2(at.x + matrix, at.y + height), IM_COL32(110, 120, 150, 255));
    draw->AddRectFilled(ImVec2(at.x + matrix, at.y), ImVec2(at.x + matrix + attention, at.y + height),
                        IM_COL32(230, 160, 60, 255));
    ImGui::Dummy(ImVec2(width, height));
    ImGui::SameLine();
    ImGui::Text("%s (attention %.1f%%)", format_count(c.step_computed()).c_str(), 100.0 * c.attention_share_computed());
  }
}

// Each measured backend's step part by part, packed against varlen, µs per step; a kernel family
// predicted above whose step no row of these documents measured says so.
void show_measured_parts(const StepPicture& p) {
  for (const std::string& family : unmeasured_steps(p.figures))
    note_text(
        "The measured step, %s, 1 GPU: not measured (no step row of both layouts for these documents under this "
        "[model])",
        family.c_str());
  for (const MeasuredStepPair& pair : p.figures.measured) {
    if (!pair.has_parts()) continue;
    wrapped_text("The measured step, %s (%s, %s)", pair.setting().c_str(), pair.packed->file.c_str(),
                 printable(pair.packed->row.gpu, 64).c_str());
    constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable(("parts " + pair.setting()).c_str(), 4, flags)) continue;
    for (const char* column : {"\xC2\xB5s per step", "packed", "varlen", "packed - varlen"})
      ImGui::TableSetupColumn(column);
    ImGui::TableHeadersRow();
    for (const StepTableLine& line : step_table_lines(pair)) {
      if (!line.packed || !line.varlen) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(line.label.c_str());
      for (const double us : {*line.packed, *line.varlen, *line.packed - *line.varlen}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_us(us).c_str());
      }
    }
    ImGui::EndTable();
  }
}

}  // namespace

void show_step_view(AppState& state) {
  if (!state.scenario.model) {
    wrapped_text(
        "This scenario has no [model] table, so there is no training step to follow. The chain needs "
        "a transformer: nanochat-d24 ships one.");
    if (ImGui::Button("add nanochat's d24 model")) apply_edit(state, [](Scenario& s) { s.model = ModelShape{}; });
    return;
  }
  show_model_controls(state);
  if (!state.scenario.model) return;
  const StepPicture& p = step_picture(state);
  ImGui::Separator();
  wrapped_text("%s, %s; packed rows of %d against varlen documents; %s matrix parameters",
               count_of(std::ssize(state.scenario.doc_lengths), "document").c_str(),
               count_of(p.figures.step.tokens, "token").c_str(), state.scenario.row_len,
               format_count(double(p.figures.step.matrix_params)).c_str());
  show_step_bars(p);
  ImGui::Spacing();
  wrapped_text("The chain, from the article's 8x fewer scores to its 1.8%% shorter run:");
  // The Story's measured step opens on its first framed bar; its 1.8% step ends on the article's, the last.
  const ScrollTo scroll = state.story_scroll_frames == 0               ? ScrollTo::none
                          : is_highlighted(state, Figure::step_saving) ? ScrollTo::last_framed
                                                                       : ScrollTo::first_framed;
  draw_chain_figure(
      p.bars, [&](const ChainBar& b) { return bar_framed(state, b); }, scroll);
  if (ImGui::CollapsingHeader("The chain as a table: how each link is computed")) show_chain_table(p);
  ImGui::BeginGroup();
  show_attention_shares(attention_shares(p.figures));
  ImGui::EndGroup();
  frame_if_highlighted(state, Figure::step_shares);
  for (const std::string& paragraph : p.explanation) note_text("%s", paragraph.c_str());
  show_measured_parts(p);
  const StepTimePrediction& any = p.figures.times.front();  // every family prices its GEMMs alike
  if (any.gemms)
    note_text("%s (scenario %s)", any.gemm_pricing().c_str(), any.gemms->scenario.c_str());
  else if (p.ceiling)
    note_text("%s: %s, %s, %s", any.gemm_pricing().c_str(), p.ceiling->gemm.what.c_str(), p.ceiling->gemm.gpu.c_str(),
              p.ceiling->gemm.date.c_str());
  if (ImGui::Button("remove the model")) apply_edit(state, [](Scenario& s) { s.model.reset(); });
}

}  // namespace attnlab::gui
