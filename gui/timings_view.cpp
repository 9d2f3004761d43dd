// The Timings view: measured results (ours and peers' from the same runs) side by
// side, one primary run per configuration (primary_runs.hpp) with its file and the
// spread of the other runs; each source's own ratios beside the model's; and a
// roofline under the H100's measured ceilings (roofline.hpp says where each point
// goes). Files that cannot be read are listed and skipped. Under the backward choice,
// the backward rows by the same rules, and forward + backward per implementation
// where one file measured both (pass_pairs.hpp). Where the files hold several flash
// kernels of ours (mma-sm80, wgmma-sm90), each implementation's rows of each kernel
// stand side by side, named and ringed apart (kernel_rings), each ratio within one kernel.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gui/implementation_colors.hpp"
#include "gui/note_text.hpp"
#include "gui/number_format.hpp"
#include "gui/pass_pairs.hpp"
#include "gui/roofline.hpp"
#include "gui/source_ratios.hpp"
#include "gui/views.hpp"

namespace attnlab::gui {

namespace {

// One of ours, by the name a results row gives it; none for a peer's kernel name.
std::optional<Implementation> implementation_of(std::string_view name) {
  for (Implementation i : all_implementations)
    if (name == implementation_name(i)) return i;
  return std::nullopt;
}

// Our flash kernels as the view tells them apart (several loaded: named, and ringed on the plot).
struct Kernels {
  std::vector<std::string> ours;  // our_flash_kernels
  bool named() const { return ours.size() > 1; }
};

// A run's implementation (and kernel, where named) in its plots' colour, after its
// roofline marker where kernels are named (a peer's kernel name as it is).
void show_implementation_name(const ResultRow& r, const Kernels& kernels) {
  const std::string label = run_label(r, kernels.named());
  const auto impl = implementation_of(r.implementation);
  if (!impl) {
    ImGui::TextUnformatted(label.c_str());
    return;
  }
  const ImU32 color = implementation_color(*impl);
  if (kernels.named()) {
    const float side = ImGui::GetTextLineHeight();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float radius = side / 2 * marker_reach(0) / marker_reach(int(kernels.ours.size()) - 1);  // the same for every kernel
    draw_marker(ImGui::GetWindowDrawList(), ImVec2(at.x + side / 2, at.y + side / 2), radius, MarkerShape::circle, color, true,
                kernel_rings(kernels.ours, r));
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine(0, 4);
  }
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color), "%s", label.c_str());
}

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
    note_text("Live runs need a CUDA GPU here and the attnlab CLI beside this GUI; elsewhere, run "
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

// Our varlen run of `kernel` in the configuration of `like`.
const MeasuredRun* our_varlen(const std::vector<MeasuredRun>& runs, const ResultRow& like, const std::string& kernel) {
  for (const MeasuredRun& m : runs)
    if (m.primary.row->source == "attnlab" && m.primary.row->implementation == "varlen" && m.primary.row->kernel == kernel &&
        configuration_of(*m.primary.row) == configuration_of(like))
      return &m;
  return nullptr;
}

// A row's time over our varlen's of `kernel`: a peer's against either kernel, ours
// only against its own kernel's (naive's cuBLAS against each).
std::optional<double> vs_our_varlen(const std::vector<MeasuredRun>& runs, const ResultRow& r, const std::string& kernel) {
  if (ours_of_a_flash_kernel(r) && r.kernel != kernel) return std::nullopt;
  const MeasuredRun* varlen = our_varlen(runs, r, kernel);
  if (!varlen) return std::nullopt;
  return *r.median_us / *varlen->primary.row->median_us;
}

// `ratios`: each source's own ratios in the one shape shown (empty when every scenario is).
// Where kernels are named, "time / our varlen" is one column per kernel of ours.
void show_table(const std::vector<MeasuredRun>& runs, const std::vector<SourceRatios>& ratios, const Kernels& kernels,
                bool show_scenario, float height) {
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                    ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
  // One "time / our varlen" column per kernel named, else one of the only kernel (any, in an old file).
  const std::vector<std::string> versus = kernels.named() ? kernels.ours : std::vector<std::string>{kernels.ours.empty() ? "" : kernels.ours[0]};
  if (!ImGui::BeginTable("results", (show_scenario ? 9 : 8) + int(versus.size()), flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  if (show_scenario) ImGui::TableSetupColumn("scenario and shape");
  for (const char* title : {"implementation", "source", "median", "min..max", "useful TFLOP/s"}) ImGui::TableSetupColumn(title);
  for (const std::string& k : versus)
    ImGui::TableSetupColumn(kernels.named() ? ("time / varlen \xC2\xB7 " + k).c_str() : "time / our varlen");
  for (const char* title : {"time / its own varlen", "file", "other runs"}) ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  for (const MeasuredRun& m : runs) {
    const ResultRow& r = *m.primary.row;
    ImGui::TableNextRow();
    if (show_scenario) {
      ImGui::TableNextColumn();
      ImGui::Text("%s %s d%d", r.scenario.c_str(), dtype_name(r.dtype), r.head_dim);
    }
    ImGui::TableNextColumn();
    const auto impl = implementation_of(r.implementation);
    show_implementation_name(r, kernels);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.source.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_us(*r.median_us).c_str());
    ImGui::TableNextColumn();
    if (r.min_us && r.max_us)
      ImGui::Text("%s..%s", format_us(*r.min_us).c_str(), format_us(*r.max_us).c_str());
    else
      ImGui::TextUnformatted("-");
    ImGui::TableNextColumn();
    if (r.useful_tflops) {  // a bar against the GEMM ceiling: how much of the machine did useful work
      char text[32];
      std::snprintf(text, sizeof text, "%.1f", *r.useful_tflops);
      ImGui::ProgressBar(float(*r.useful_tflops / h100_ceilings.tflops), ImVec2(ImGui::GetFontSize() * 7, 0), text);
    } else {
      ImGui::TextUnformatted("-");
    }
    for (const std::string& k : versus) {
      ImGui::TableNextColumn();
      const std::optional<double> ratio = vs_our_varlen(runs, r, k);
      ImGui::TextUnformatted(ratio ? format_ratio(*ratio).c_str() : "-");
    }
    ImGui::TableNextColumn();
    // Its own family's varlen: for a flash kernel of ours, that kernel's (naive's cuBLAS: the first kernel's).
    const SourceFamily* family = family_of(r.source);
    const SourceRatios* own = family ? ratios_of(ratios, family->name,
                                                 ours_of_a_flash_kernel(r) ? std::optional<std::string_view>(r.kernel) : std::nullopt)
                                     : nullptr;
    const std::optional<double> own_ratio = own && impl && !(own->padded_stands_for_varlen && *impl == Implementation::padded)
                                                ? own->vs_varlen(*impl)
                                                : std::nullopt;
    ImGui::TextUnformatted(own_ratio ? format_ratio(*own_ratio).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(file_name(m.primary).c_str());
    ImGui::TableNextColumn();
    if (m.others.empty()) {
      ImGui::TextDisabled("none");
    } else {
      ImGui::TextUnformatted(spread_text(m).c_str());
      if (ImGui::IsItemHovered()) {
        std::string files;
        for (const Run& o : m.others) files += "\n" + file_name(o) + ": " + format_us(*o.row->median_us);
        ImGui::SetTooltip("primary: %s: %s (the first file in name order, as the README's table)%s",
                          file_name(m.primary).c_str(), format_us(*r.median_us).c_str(), files.c_str());
      }
    }
  }
  ImGui::EndTable();
}

// Forward, backward and their sum per source and implementation (pass_pairs.hpp): the
// sum only where one file holds both passes, and a missing pass said in words.
void show_pass_pairs(const std::vector<PassPair>& pairs, const Kernels& kernels, float height) {
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                    ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
  ImGui::TextUnformatted("Forward + backward, where one file measured both passes (a training step pays both)");
  if (!ImGui::BeginTable("pass pairs", 7, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* title : {"implementation", "source", "forward", "backward", "forward + backward", "bwd / fwd", "from"})
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
      ImGui::TextDisabled("%s", p.fwd && p.bwd ? "not summed" : "-");
    ImGui::TableNextColumn();
    if (p.one_file)
      ImGui::TextUnformatted(format_ratio(*p.bwd->row->median_us / *p.fwd->row->median_us).c_str());
    else
      ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    if (p.one_file)
      ImGui::Text("%s, both passes", p.one_file->filename().string().c_str());
    else if (p.fwd && p.bwd)
      ImGui::TextDisabled("not one file: fwd %s, bwd %s", file_name(*p.fwd).c_str(), file_name(*p.bwd).c_str());
    else
      ImGui::TextDisabled("%s; no %s measured", file_name(p.fwd ? *p.fwd : *p.bwd).c_str(), p.fwd ? "backward" : "forward");
  }
  ImGui::EndTable();
}

void ratio_cell(const std::optional<double>& r, const char* note = "") {
  ImGui::TableNextColumn();
  if (r)
    ImGui::Text("%s%s", format_ratio(*r).c_str(), note);
  else
    ImGui::TextDisabled("-");
}

// Each family's own ratios, beside the model's (scores computed, and cells attended).
void show_source_ratios(const std::vector<SourceRatios>& ratios, const ScenarioModel* model) {
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  ImGui::TextWrapped("Each source's own ratios: its padded and packed time over its own varlen time");
  if (!ImGui::BeginTable("source ratios", 4, flags)) return;
  for (const char* title : {"source", "varlen", "padded/varlen", "packed/varlen"}) ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  if (model) {
    const auto model_row = [&](const char* label, const std::string& varlen, double padded, double packed) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(label);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(varlen.c_str());
      ratio_cell(padded);
      ratio_cell(packed);
    };
    const auto& c = model->costs;
    model_row("model: scores computed", format_count(double(c[Implementation::varlen].scores_computed())) + " scores",
              c[Implementation::padded].computed_vs_varlen, c[Implementation::packed].computed_vs_varlen);
    model_row("model: cells attended", format_count(double(c[Implementation::varlen].scores_attended())) + " cells",
              c[Implementation::padded].attended_vs_varlen, c[Implementation::packed].attended_vs_varlen);
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

// The legend of the roofline: implementation colours, family shapes, our kernels' rings
// (where several are loaded), what filled, hollow and the arrow mean.
void show_roofline_legend(const std::vector<const SourceFamily*>& families, const Kernels& kernels) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float r = ImGui::GetFontSize() * 0.32f, side = ImGui::GetFontSize();
  bool first = true;
  // One swatch and its name, on this line where it fits, else on the next.
  const auto item = [&](MarkerShape shape, ImU32 color, bool filled, const std::string& name, int rings = 0) {
    if (!first) {
      ImGui::SameLine(0, side);
      if (ImGui::GetContentRegionAvail().x < side + 2 + ImGui::CalcTextSize(name.c_str()).x) ImGui::NewLine();
    }
    first = false;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_marker(draw, ImVec2(at.x + side / 2, at.y + ImGui::GetTextLineHeight() / 2), r, shape, color, filled, rings);
    ImGui::Dummy(ImVec2(side, ImGui::GetTextLineHeight()));
    ImGui::SameLine(0, 2);
    ImGui::TextUnformatted(name.c_str());
  };
  for (Implementation i : all_implementations) item(MarkerShape::circle, implementation_color(i), true, implementation_name(i));
  for (const SourceFamily* f : families) item(family_marker(f), IM_COL32(220, 220, 220, 255), false, std::string(f->short_name));
  if (kernels.named())
    for (std::size_t k = 0; k < kernels.ours.size(); ++k)
      item(MarkerShape::circle, IM_COL32(220, 220, 220, 255), true, "ours " + kernels.ours[k], int(k));
  note_text("Filled: FLOPs computed (our rows); hollow: useful FLOPs, joined to the filled one. Bytes: ncu's; "
            "\"<\": none measured, so placed at the least bytes a kernel must move (Q, K, V, O once): the true "
            "point is at or left of it.");
}

// `min_height`: the plot's least height, in lines (it fills what is left below when that is more).
void show_roofline(const std::vector<MeasuredRun>& runs, const Kernels& kernels, bool labelled, float min_height) {
  struct Placed {
    RooflinePoint point;
    ImVec2 at;
  };
  std::vector<RooflinePoint> points;
  std::vector<const SourceFamily*> families;
  int unplaced = 0;
  for (const MeasuredRun& m : runs) {
    const std::vector<RooflinePoint> p = roofline_points(m);
    if (p.empty()) ++unplaced;
    points.insert(points.end(), p.begin(), p.end());
    const SourceFamily* f = family_of(m.primary.row->source);
    if (!p.empty() && f && std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
  }
  ImGui::TextWrapped("Roofline: %.0f TFLOP/s (bf16 GEMM) and %.1f TB/s (device copy), both measured on an H100.",
              h100_ceilings.tflops, h100_ceilings.tbps);
  if (unplaced > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("(%s without FLOP/s or byte counts: not plotted)", count_of(unplaced, "run").c_str());
  }
  show_roofline_legend(families, kernels);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 box(ImGui::GetContentRegionAvail().x, std::max(ImGui::GetContentRegionAvail().y, ImGui::GetFontSize() * min_height));
  ImGui::InvisibleButton("roofline", box);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 axis_text = IM_COL32(200, 200, 200, 255);
  const float margin_left = ImGui::CalcTextSize("1000 TFLOP/s ").x, margin_bottom = ImGui::GetFontSize() * 2.4f;
  const ImVec2 p0(at.x + margin_left, at.y + 4), p1(at.x + box.x - 8, at.y + box.y - margin_bottom);
  const Ceilings& c = h100_ceilings;
  // log10 ranges: at least 1..10^4 FLOPs per byte and 1..2000 TFLOP/s, wider where a point needs it.
  double x_lo = 0, x_hi = 4, y_lo = 0;
  for (const RooflinePoint& p : points) {
    x_lo = std::min(x_lo, std::floor(std::log10(p.flops_per_byte)));
    x_hi = std::max(x_hi, std::ceil(std::log10(p.flops_per_byte)));
    y_lo = std::min(y_lo, std::floor(std::log10(p.tflops)));
  }
  const double y_hi = std::log10(2 * c.tflops);
  const auto sx = [&](double v) { return p0.x + float((std::log10(v) - x_lo) / (x_hi - x_lo)) * (p1.x - p0.x); };
  const auto sy = [&](double v) { return p1.y - float((std::log10(v) - y_lo) / (y_hi - y_lo)) * (p1.y - p0.y); };
  draw->AddRectFilled(p0, p1, IM_COL32(28, 28, 34, 255));
  for (int e = int(x_lo); e <= int(x_hi); ++e) {
    const float x = sx(std::pow(10.0, e));
    draw->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), IM_COL32(255, 255, 255, 30));
    char label[16];
    std::snprintf(label, sizeof label, "%g", std::pow(10.0, e));
    const float w = ImGui::CalcTextSize(label).x;
    draw->AddText(ImVec2(std::clamp(x - w / 2, p0.x, p1.x - w), p1.y + 2), axis_text, label);
  }
  for (int e = int(y_lo); e <= int(y_hi); ++e) {
    const float y = sy(std::pow(10.0, e));
    draw->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), IM_COL32(255, 255, 255, 30));
    char label[32];
    std::snprintf(label, sizeof label, "%g", std::pow(10.0, e));
    draw->AddText(ImVec2(p0.x - ImGui::CalcTextSize(label).x - 6, y - ImGui::GetFontSize() / 2), axis_text, label);
  }
  const char* x_title = "FLOPs per HBM byte (log)";
  draw->AddText(ImVec2((p0.x + p1.x - ImGui::CalcTextSize(x_title).x) / 2, p1.y + ImGui::GetFontSize() * 1.15f), axis_text, x_title);
  draw->AddText(ImVec2(at.x, p0.y), axis_text, "TFLOP/s");
  // The roof: bandwidth-bound up to the ridge, compute-bound after it.
  const ImU32 roof = IM_COL32(255, 220, 120, 220);
  draw->PushClipRect(p0, p1, true);
  const double x_first = std::pow(10.0, x_lo);
  draw->AddLine(ImVec2(sx(x_first), sy(c.roof_tflops(x_first))), ImVec2(sx(c.ridge()), sy(c.tflops)), roof, 2);
  draw->AddLine(ImVec2(sx(c.ridge()), sy(c.tflops)), ImVec2(sx(std::pow(10.0, x_hi)), sy(c.tflops)), roof, 2);
  std::vector<Box> texts_drawn;  // the roof's labels: point labels keep off them
  const auto roof_text = [&](ImVec2 where, const std::string& text) {
    draw->AddText(where, roof, text.c_str());
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    texts_drawn.push_back({where.x, where.y, where.x + size.x, where.y + size.y});
  };
  char roof_label[64];
  std::snprintf(roof_label, sizeof roof_label, "%.0f TFLOP/s", c.tflops);
  roof_text(ImVec2(sx(c.ridge()) + 6, sy(c.tflops) + 2), roof_label);
  std::snprintf(roof_label, sizeof roof_label, "%.1f TB/s", c.tbps);
  roof_text(ImVec2(sx(2), sy(c.roof_tflops(2)) - ImGui::GetFontSize() * 1.4f), roof_label);

  const float radius = ImGui::GetFontSize() * 0.32f;
  std::vector<Placed> placed;
  for (const RooflinePoint& p : points) placed.push_back({p, ImVec2(sx(p.flops_per_byte), sy(p.tflops))});
  // Useful joined to computed, for each run that has both.
  for (std::size_t i = 0; i + 1 < placed.size(); ++i)
    if (placed[i].point.run == placed[i + 1].point.run) {
      const auto impl = implementation_of(placed[i].point.run->primary.row->implementation);
      draw->AddLine(placed[i].at, placed[i + 1].at, impl ? implementation_color(*impl) : IM_COL32(200, 200, 200, 255), 1);
    }
  std::vector<Box> markers;
  for (const Placed& p : placed) {
    const ResultRow& r = *p.point.run->primary.row;
    const auto impl = implementation_of(r.implementation);
    const ImU32 color = impl ? implementation_color(*impl) : IM_COL32(200, 200, 200, 255);
    const int rings = kernel_rings(kernels.ours, r);
    draw_marker(draw, p.at, radius, family_marker(family_of(r.source)), color, p.point.flops == FlopsBasis::computed, rings);
    const float reach = radius * marker_reach(rings);
    float left = p.at.x - reach;
    if (p.point.bytes == BytesBasis::lower_bound) {
      const float y = p.at.y, x = p.at.x - radius * 1.6f - (reach - radius * marker_reach(0));  // outside the rings
      draw->AddTriangleFilled(ImVec2(x - radius, y), ImVec2(x, y - radius * 0.6f), ImVec2(x, y + radius * 0.6f), color);
      left = std::min(left, x - radius);
    }
    markers.push_back({left, p.at.y - reach, p.at.x + reach, p.at.y + reach});
  }
  // Labels beside the computed marker of each run (the useful one where there is none), never over another.
  if (labelled) {
    std::vector<std::string> texts;
    std::vector<std::pair<float, float>> sizes;
    for (std::size_t i = 0; i < placed.size(); ++i) {
      const bool first_of_run = i == 0 || placed[i - 1].point.run != placed[i].point.run;
      const ResultRow& r = *placed[i].point.run->primary.row;
      const SourceFamily* f = family_of(r.source);
      texts.push_back(first_of_run ? (f ? std::string(f->short_name) : r.source) + " " + run_label(r, kernels.named()) : "");
      const ImVec2 s = ImGui::CalcTextSize(texts.back().c_str());
      sizes.push_back(texts.back().empty() ? std::pair{0.0f, 0.0f} : std::pair{s.x, s.y});
    }
    const std::vector<std::optional<Box>> labels = place_labels(markers, sizes, texts_drawn, {p0.x, p0.y, p1.x, p1.y}, 2);
    for (std::size_t i = 0; i < labels.size(); ++i)
      if (labels[i]) draw->AddText(ImVec2(labels[i]->x0, labels[i]->y0), IM_COL32(235, 235, 235, 255), texts[i].c_str());
  }
  draw->PopClipRect();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const Placed* hovered = nullptr;
  for (const Placed& p : placed)
    if (std::abs(mouse.x - p.at.x) < radius * 2 && std::abs(mouse.y - p.at.y) < radius * 2) hovered = &p;
  if (hovered && ImGui::IsItemHovered()) {
    const RooflinePoint& p = hovered->point;
    const ResultRow& r = *p.run->primary.row;
    ImGui::SetTooltip("%s / %s (%s, %s d%d), %s\n%s median, %.1f TFLOP/s %s\n%.1f FLOPs per byte: %s\nroof there: %.0f TFLOP/s",
                      r.scenario.c_str(), run_label(r, kernels.named()).c_str(), r.source.c_str(), dtype_name(r.dtype), r.head_dim,
                      file_name(p.run->primary).c_str(), format_us(*r.median_us).c_str(), p.tflops,
                      p.flops == FlopsBasis::computed ? "computed" : "useful", p.flops_per_byte,
                      p.bytes_from ? ("ncu's bytes from " + file_name(*p.bytes_from)).c_str()
                                   : "no measured bytes: the least any kernel must move",
                      c.roof_tflops(p.flops_per_byte));
  }
}

}  // namespace

void show_timings_view(AppState& state) {
  show_sources(state);
  ResultsState& results = state.results;
  const Scenario& scenario = state.model().scenario;
  const Pass pass = state.pass;
  const Configuration own = own_configuration(scenario, pass);
  std::vector<MeasuredRun> of_scenario =
      primary_runs(results, [&](const ResultRow& r) { return r.pass == pass && r.scenario == scenario.name; });
  const std::vector<Configuration> configurations = measured_configurations(of_scenario, own);
  const auto shape_of = [](const Configuration& c) {
    return std::string(dtype_name(c.dtype)) + " d" + std::to_string(c.head_dim) + " h" + std::to_string(c.heads);
  };
  const auto chosen_at = std::find_if(configurations.begin(), configurations.end(),
                                      [&](const Configuration& c) { return shape_of(c) == results.shape; });
  const int chosen_index = chosen_at == configurations.end() ? 0 : int(chosen_at - configurations.begin());
  const bool every = results.all_scenarios || configurations.empty();
  ImGui::Checkbox("every scenario", &results.all_scenarios);
  ImGui::SameLine();
  if (!every) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 19);
    const std::string current = configuration_label(configurations[chosen_index], own);
    if (ImGui::BeginCombo("shape", current.c_str())) {
      for (int i = 0; i < int(configurations.size()); ++i)
        if (ImGui::Selectable(configuration_label(configurations[i], own).c_str(), i == chosen_index))
          results.shape = shape_of(configurations[i]);
      ImGui::EndCombo();
    }
    if (state.scenario_edited) {
      ImGui::SameLine();
      ImGui::TextDisabled("(rows of the shipped %s, not of your edit)", scenario.name.c_str());
    }
  } else if (configurations.empty() && !results.all_scenarios) {
    ImGui::TextDisabled("(no %s rows for %s: showing every scenario)", pass_name(pass), scenario.name.c_str());
  } else {
    ImGui::NewLine();
  }
  std::vector<MeasuredRun> runs;
  if (every) {
    runs = primary_runs(results, [&](const ResultRow& r) { return r.pass == pass; });
  } else {
    const Configuration& chosen = configurations[chosen_index];
    for (MeasuredRun& m : of_scenario)
      if (configuration_of(*m.primary.row) == chosen) runs.push_back(std::move(m));
  }
  if (runs.empty()) {
    ImGui::TextWrapped("No %s results to show yet. The shipped H100 results live in results/h100/*.csv; load a file or a "
                       "folder above, or make one with `attnlab run` on a GPU machine.", pass_name(pass));
    return;
  }
  // Scenario by scenario and shape by shape (in file order), ours first, fastest first within each;
  // ours by implementation, the fastest kernel's run first, its other kernels' right after it.
  std::vector<Configuration> order;
  for (const MeasuredRun& m : runs)
    if (std::find(order.begin(), order.end(), configuration_of(*m.primary.row)) == order.end())
      order.push_back(configuration_of(*m.primary.row));
  const auto rank = [&](const ResultRow& r) { return std::find(order.begin(), order.end(), configuration_of(r)) - order.begin(); };
  const auto fastest_of_implementation = [&](const ResultRow& r) {
    double best = *r.median_us;
    if (r.source == "attnlab")
      for (const MeasuredRun& m : runs)
        if (m.primary.row->source == "attnlab" && m.primary.row->implementation == r.implementation && rank(*m.primary.row) == rank(r))
          best = std::min(best, *m.primary.row->median_us);
    return best;
  };
  std::stable_sort(runs.begin(), runs.end(), [&](const MeasuredRun& x, const MeasuredRun& y) {
    const ResultRow &a = *x.primary.row, &b = *y.primary.row;
    if (a.scenario != b.scenario) return a.scenario < b.scenario;
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if ((a.source == "attnlab") != (b.source == "attnlab")) return a.source == "attnlab";
    const double fa = fastest_of_implementation(a), fb = fastest_of_implementation(b);
    if (fa != fb) return fa < fb;
    if (a.implementation != b.implementation) return a.implementation < b.implementation;
    return *a.median_us < *b.median_us;
  });
  const Kernels kernels{our_flash_kernels(results)};
  const ScenarioModel& model = state.model();
  const std::vector<SourceRatios> ratios =
      every ? std::vector<SourceRatios>{}
            : source_ratios(results, configurations[chosen_index],
                            model.ok() && model.costs[Implementation::padded].scores == model.costs[Implementation::varlen].scores);
  const float avail = ImGui::GetContentRegionAvail().y;
  const float row_height = ImGui::GetFrameHeight() + ImGui::GetStyle().CellPadding.y * 2;  // rows hold a bar
  show_table(runs, ratios, kernels, every, std::min(avail * 0.32f, row_height * float(runs.size() + 1) + 2));
  if (every) {
    show_roofline(runs, kernels, false, 18);
    return;
  }
  if (pass == Pass::bwd) {
    const std::vector<PassPair> pairs = pass_pairs(results, configurations[chosen_index]);
    const float line = ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().CellPadding.y * 2;
    show_pass_pairs(pairs, kernels, std::min(avail * 0.25f, line * float(pairs.size() + 1) + ImGui::GetStyle().ScrollbarSize));
  }
  const ScenarioModel* shown_model = model.ok() && !state.scenario_edited ? &model : nullptr;
  if (ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 62) {  // large text: one above the other, scrolling
    show_source_ratios(ratios, shown_model);
    show_roofline(runs, kernels, true, 18);
    return;
  }
  const float left = std::min(ImGui::GetContentRegionAvail().x * 0.42f, ImGui::GetFontSize() * 34);
  ImGui::BeginChild("ratios", ImVec2(left, 0));
  show_source_ratios(ratios, shown_model);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("roofline");
  show_roofline(runs, kernels, true, 8);
  ImGui::EndChild();
}

}  // namespace attnlab::gui
