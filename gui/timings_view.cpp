// The Timings view: measured results (ours and peers' from the same runs) side by
// side, with a roofline against the H100's measured ceilings. Files that cannot
// be read are listed and skipped.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gui/number_format.hpp"
#include "gui/views.hpp"

namespace attnlab::gui {

namespace {

// Measured on an H100 80GB HBM3 (the GPU machine's notes): an 8192^3 bf16 GEMM and a device-to-device copy.
constexpr double gemm_ceiling_tflops = 800.0;
constexpr double copy_ceiling_tbps = 3.0;

const ResultRow* our_varlen(const std::vector<const ResultRow*>& rows, const ResultRow& like) {
  for (const ResultRow* r : rows)
    if (r->source == "attnlab" && r->implementation == "varlen" && r->scenario == like.scenario && r->pass == like.pass &&
        r->dtype == like.dtype && r->head_dim == like.head_dim && r->heads == like.heads && r->causal == like.causal &&
        r->median_us)
      return r;
  return nullptr;
}

std::string number(const std::optional<double>& v, const char* format) {
  if (!v) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, *v);
  return text;
}

// A button that runs this scenario on the local GPU through the CLI, where there is one.
void show_live_run(AppState& state) {
  collect_live_run(state.live_run, state.results);
  const std::filesystem::path cli = attnlab_cli();
  if (!live_runs_possible(cli)) {
    ImGui::TextDisabled("Live runs need a CUDA GPU here and the attnlab CLI beside this GUI; elsewhere, run "
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
  ImGui::Text("%zu rows from %zu files", total_rows(results), results.files.size());
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
  ImGui::InputTextWithHint("##load", "a results CSV or a folder of them", &results.load_path);
  ImGui::SameLine();
  if (ImGui::Button("load") && !results.load_path.empty()) load_results(results, results.load_path);
  ImGui::SameLine();
  ImGui::RadioButton("forward", &results.pass_filter, 0);
  ImGui::SameLine();
  ImGui::RadioButton("backward", &results.pass_filter, 1);
  for (const std::string& problem : results.problems)
    ImGui::TextColored(ImVec4(1, 0.45f, 0.45f, 1), "skipped %s", problem.c_str());
  show_live_run(state);
}

void show_table(const std::vector<const ResultRow*>& rows) {
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                    ImGuiTableFlags_ScrollY;
  const float row_height = ImGui::GetFrameHeight() + ImGui::GetStyle().CellPadding.y * 2;  // rows hold a bar
  const float height = std::min(ImGui::GetContentRegionAvail().y * 0.45f, row_height * float(rows.size() + 1) + 2);
  if (!ImGui::BeginTable("results", 9, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* title : {"scenario", "implementation", "source", "dtype", "head dim", "median us", "min..max us",
                            "useful TFLOP/s", "vs our varlen"})
    ImGui::TableSetupColumn(title);
  ImGui::TableHeadersRow();
  for (const ResultRow* r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r->scenario.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r->implementation.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r->source.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(dtype_name(r->dtype));
    ImGui::TableNextColumn();
    ImGui::Text("%d", r->head_dim);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(number(r->median_us, "%.1f").c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%s..%s", number(r->min_us, "%.1f").c_str(), number(r->max_us, "%.1f").c_str());
    ImGui::TableNextColumn();
    if (r->useful_tflops)  // a bar against the GEMM ceiling: how much of the machine did useful work
      ImGui::ProgressBar(float(*r->useful_tflops / gemm_ceiling_tflops), ImVec2(ImGui::GetFontSize() * 8, 0),
                         number(r->useful_tflops, "%.1f").c_str());
    else
      ImGui::TextUnformatted("-");
    ImGui::TableNextColumn();
    const ResultRow* varlen = our_varlen(rows, *r);
    ImGui::TextUnformatted(varlen && r->median_us ? format_ratio(*r->median_us / *varlen->median_us).c_str() : "-");
  }
  ImGui::EndTable();
}

// A row placed on the roofline: arithmetic intensity (computed FLOPs per HBM byte) and achieved TFLOP/s.
struct RooflinePoint {
  const ResultRow* row;
  double intensity, tflops;
  bool measured_bytes;
};

std::optional<RooflinePoint> place(const ResultRow& r) {
  const std::optional<std::int64_t> bytes = r.hbm_bytes_measured ? r.hbm_bytes_measured : r.hbm_bytes_model;
  if (!r.median_us || !r.computed_tflops || !bytes || *bytes <= 0) return std::nullopt;
  const double flops = *r.computed_tflops * 1e12 * (*r.median_us * 1e-6);
  return RooflinePoint{&r, flops / double(*bytes), *r.computed_tflops, r.hbm_bytes_measured.has_value()};
}

ImU32 implementation_color(const std::string& name) {
  if (name == "naive") return IM_COL32(200, 120, 255, 255);
  if (name == "padded") return IM_COL32(226, 170, 40, 255);
  if (name == "packed") return IM_COL32(214, 52, 52, 255);
  if (name == "varlen") return IM_COL32(58, 170, 92, 255);
  return IM_COL32(170, 200, 230, 255);
}

void show_roofline(const std::vector<const ResultRow*>& rows) {
  std::vector<RooflinePoint> points;
  int unplaced = 0;
  for (const ResultRow* r : rows) {
    if (auto p = place(*r)) points.push_back(*p);
    else ++unplaced;
  }
  ImGui::TextWrapped("Roofline: computed FLOP/s against FLOPs per HBM byte (measured bytes where ncu ran, else the model's). "
              "Ceilings measured on an H100: %.0f TFLOP/s bf16 dense GEMM, %.1f TB/s device copy.",
              gemm_ceiling_tflops, copy_ceiling_tbps);
  ImGui::TextDisabled("Filled: computed TFLOP/s (circles attnlab, squares peers); hollow below: useful TFLOP/s.");
  if (unplaced > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("%d rows lack computed TFLOP/s or bytes and are not plotted.", unplaced);
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 size(avail.x, std::max(avail.y, ImGui::GetFontSize() * 10));
  ImGui::InvisibleButton("roofline", size);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float margin_left = ImGui::CalcTextSize("1000 TFLOP/s ").x, margin_bottom = ImGui::GetFontSize() * 1.6f;
  const ImVec2 p0(at.x + margin_left, at.y + 4), p1(at.x + size.x - 8, at.y + size.y - margin_bottom);
  constexpr double x_lo = 0, x_hi = 4, y_lo = -1, y_hi = 3.3;  // log10 ranges: 1..10^4 FLOP/B, 0.1..2000 TFLOP/s
  const auto sx = [&](double intensity) { return p0.x + float((std::log10(intensity) - x_lo) / (x_hi - x_lo)) * (p1.x - p0.x); };
  const auto sy = [&](double tflops) { return p1.y - float((std::log10(tflops) - y_lo) / (y_hi - y_lo)) * (p1.y - p0.y); };
  draw->AddRectFilled(p0, p1, IM_COL32(28, 28, 34, 255));
  for (int e = int(x_lo); e <= int(x_hi); ++e) {
    const float x = sx(std::pow(10.0, e));
    draw->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), IM_COL32(255, 255, 255, 30));
    const std::string label = "1e" + std::to_string(e);
    draw->AddText(ImVec2(std::min(x - 8, p1.x - ImGui::CalcTextSize(label.c_str()).x), p1.y + 2), IM_COL32(200, 200, 200, 255),
                  label.c_str());
  }
  for (int e = int(y_lo); e <= 3; ++e) {
    const float y = sy(std::pow(10.0, e));
    draw->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), IM_COL32(255, 255, 255, 30));
    char label[32];
    std::snprintf(label, sizeof label, "%g TF/s", std::pow(10.0, e));
    draw->AddText(ImVec2(at.x, y - ImGui::GetFontSize() / 2), IM_COL32(200, 200, 200, 255), label);
  }
  const char* x_title = "FLOPs per HBM byte";
  draw->AddText(ImVec2(p1.x - ImGui::CalcTextSize(x_title).x - 4, p1.y - ImGui::GetFontSize() - 4), IM_COL32(200, 200, 200, 255), x_title);
  // The roof: bandwidth-bound up to the ridge, compute-bound after it.
  const double ridge = gemm_ceiling_tflops / copy_ceiling_tbps;
  const ImU32 roof = IM_COL32(255, 220, 120, 220);
  draw->PushClipRect(p0, p1, true);
  draw->AddLine(ImVec2(sx(1), sy(copy_ceiling_tbps)), ImVec2(sx(ridge), sy(gemm_ceiling_tflops)), roof, 2);
  draw->AddLine(ImVec2(sx(ridge), sy(gemm_ceiling_tflops)), ImVec2(sx(1e4), sy(gemm_ceiling_tflops)), roof, 2);
  char roof_label[64];
  std::snprintf(roof_label, sizeof roof_label, "%.0f TFLOP/s bf16 GEMM (measured)", gemm_ceiling_tflops);
  draw->AddText(ImVec2(sx(ridge) + 6, sy(gemm_ceiling_tflops) + 2), roof, roof_label);
  std::snprintf(roof_label, sizeof roof_label, "%.1f TB/s copy (measured)", copy_ceiling_tbps);
  draw->AddText(ImVec2(sx(3), sy(3 * copy_ceiling_tbps) - ImGui::GetFontSize() * 1.6f), roof, roof_label);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const RooflinePoint* hovered = nullptr;
  const bool labelled = points.size() <= 12;  // more labels than that only hide each other; hover instead
  for (const RooflinePoint& p : points) {
    const ImVec2 c(sx(p.intensity), sy(p.tflops));
    const float radius = ImGui::GetFontSize() * 0.35f;
    // Hollow at the useful TFLOP/s below: the drop is the work thrown away.
    if (p.row->useful_tflops && *p.row->useful_tflops > 0) {
      const ImVec2 u(c.x, sy(*p.row->useful_tflops));
      draw->AddLine(c, u, implementation_color(p.row->implementation), 1);
      draw->AddCircle(u, radius, implementation_color(p.row->implementation), 0, 1.5f);
    }
    if (p.row->source == "attnlab")
      draw->AddCircleFilled(c, radius, implementation_color(p.row->implementation));
    else
      draw->AddRectFilled(ImVec2(c.x - radius, c.y - radius), ImVec2(c.x + radius, c.y + radius),
                          implementation_color(p.row->implementation));
    if (labelled)
      draw->AddText(ImVec2(c.x + radius + 2, c.y - radius), IM_COL32(230, 230, 230, 255), p.row->implementation.c_str());
    if (std::abs(mouse.x - c.x) < radius * 2 && std::abs(mouse.y - c.y) < radius * 2) hovered = &p;
  }
  draw->PopClipRect();
  if (hovered && ImGui::IsItemHovered()) {
    const ResultRow& r = *hovered->row;
    ImGui::SetTooltip("%s / %s (%s)\n%.1f us median, %.1f TFLOP/s computed\n%.1f FLOPs per byte (%s bytes)",
                      r.scenario.c_str(), r.implementation.c_str(), r.source.c_str(), *r.median_us, hovered->tflops,
                      hovered->intensity, hovered->measured_bytes ? "measured" : "model");
  }
}

}  // namespace

void show_timings_view(AppState& state) {
  show_sources(state);
  ResultsState& results = state.results;
  const std::string& current = state.model().scenario.name;
  const Pass pass = results.pass_filter == 0 ? Pass::fwd : Pass::bwd;
  const auto select = [&](bool all) {
    std::vector<const ResultRow*> chosen;
    for (const ResultsFile& f : results.files)
      for (const ResultRow& r : f.rows)
        if (r.pass == pass && (all || r.scenario == current)) chosen.push_back(&r);
    return chosen;
  };
  std::vector<const ResultRow*> rows = select(results.all_scenarios);
  const bool current_has_rows = results.all_scenarios || !rows.empty();
  if (!current_has_rows) rows = select(true);
  ImGui::Checkbox("every scenario", &results.all_scenarios);
  ImGui::SameLine();
  if (!current_has_rows)
    ImGui::TextDisabled("(no %s rows for %s: showing every scenario)", pass_name(pass), current.c_str());
  else if (!results.all_scenarios && state.scenario_edited)
    ImGui::TextDisabled("(rows of the shipped %s, not of your edit)", current.c_str());
  else
    ImGui::NewLine();
  if (rows.empty()) {
    ImGui::TextWrapped("No %s results to show yet. The shipped H100 results live in results/h100/*.csv; load a file or a "
                       "folder above, or make one with `attnlab run` on a GPU machine.", pass_name(pass));
    return;
  }
  // Scenario by scenario and shape by shape, ours first, fastest first within each.
  std::stable_sort(rows.begin(), rows.end(), [](const ResultRow* a, const ResultRow* b) {
    if (a->scenario != b->scenario) return a->scenario < b->scenario;
    if (a->dtype != b->dtype) return a->dtype < b->dtype;
    if (a->head_dim != b->head_dim) return a->head_dim < b->head_dim;
    if ((a->source == "attnlab") != (b->source == "attnlab")) return a->source == "attnlab";
    return a->median_us.value_or(1e300) < b->median_us.value_or(1e300);
  });
  show_table(rows);
  show_roofline(rows);
}

}  // namespace attnlab::gui
