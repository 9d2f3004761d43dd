// The flash walkthrough: one query tile of one row stepped through the CPU
// reference's online softmax (reference/flash_walkthrough.hpp), one K/V tile at
// a time, with the running max and sum per query and the bytes moved so far.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gui/cell_colors.hpp"
#include "gui/mask_picture.hpp"
#include "gui/number_format.hpp"
#include "gui/single_row_layout.hpp"
#include "gui/views.hpp"
#include "reference/flash_walkthrough.hpp"
#include "reference/reference_attention.hpp"

namespace attnlab::gui {

// What the walkthrough was built for, and the stepper over that row's copy;
// rebuilt whenever any of the keys moves.
struct WalkthroughRun {
  std::uint64_t model_version = ~std::uint64_t{0};
  Implementation implementation = Implementation::packed;
  int row = -1, query_tile = -1;
  std::optional<FlashWalkthrough> stepper;
  std::string error;
};

namespace {

constexpr std::uint64_t input_seed = 1;

// Keeps the chosen row and query tile inside the layout: another layout, an edit
// or a typed-in slider value can leave them past its end.
void clamp_choice(WalkthroughState& w, const ScenarioModel& model) {
  const Layout& layout = model.layout_of(w.implementation);
  w.row = std::clamp(w.row, 0, std::max(0, layout.num_rows() - 1));
  if (layout.num_rows() > 0)
    w.query_tile = std::clamp(w.query_tile, 0, query_tiles(layout.view(), model.tile, w.row) - 1);
}

WalkthroughRun& current_run(AppState& state) {
  const ScenarioModel& model = state.model();
  WalkthroughState& w = state.walkthrough;
  clamp_choice(w, model);
  const Layout& layout = model.layout_of(w.implementation);
  std::shared_ptr<WalkthroughRun>& run = w.run;
  if (!run || run->model_version != model.version || run->implementation != w.implementation ||
      run->row != w.row || run->query_tile != w.query_tile) {
    run = std::make_shared<WalkthroughRun>();
    run->model_version = model.version;
    run->implementation = w.implementation;
    run->row = w.row;
    run->query_tile = w.query_tile;
    try {
      const Layout row = single_row_layout(layout, w.row);
      const Scenario& s = model.scenario;
      const AttentionInputs inputs = make_random_inputs(row.row_valid[0], 1, 1, s.head_dim, s.dtype, input_seed);
      run->stepper.emplace(row, inputs, default_scale(s.head_dim), model.tile, 0, w.query_tile);
    } catch (const std::exception& e) {
      run->error = e.what();
    }
  }
  if (FlashWalkthrough* f = run->stepper ? &*run->stepper : nullptr) {
    w.steps = std::clamp(w.steps, 0, f->key_tiles_total());
    if (f->steps_done() > w.steps) f->restart();
    while (f->steps_done() < w.steps) f->step();
  }
  return *run;
}

void show_controls(AppState& state, const ScenarioModel& model) {
  WalkthroughState& w = state.walkthrough;
  int layout = static_cast<int>(w.implementation) - 1;  // padded, packed, varlen: the flash implementations
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::Combo("layout", &layout, "padded\0packed\0varlen\0")) w.implementation = all_implementations[layout + 1];
  clamp_choice(w, model);
  const Layout& l = model.layout_of(w.implementation);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  ImGui::SliderInt("row", &w.row, 0, std::max(0, l.num_rows() - 1));
  clamp_choice(w, model);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  ImGui::SliderInt("query tile", &w.query_tile, 0, std::max(0, query_tiles(l.view(), model.tile, w.row) - 1));
  if (ImGui::Button("restart")) w.steps = 0;
  ImGui::SameLine();
  if (ImGui::Button("step")) ++w.steps;
  ImGui::SameLine();
  if (ImGui::Button(w.playing ? "pause" : "play")) {
    w.playing = !w.playing;
    w.last_step_time = ImGui::GetTime();
  }
  ImGui::SameLine();
  if (ImGui::Button("to the end")) w.steps = 1 << 30;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  float speed = float(w.seconds_per_step);
  if (ImGui::SliderFloat("seconds per step", &speed, 0.05f, 2.0f, "%.2f")) w.seconds_per_step = speed;
  if (w.playing && ImGui::GetTime() - w.last_step_time >= w.seconds_per_step) {
    ++w.steps;
    w.last_step_time = ImGui::GetTime();
  }
}

// The row's tiles, each in the majority kind of its cells; the query tile's row
// of tiles framed, the key tiles loaded so far outlined, the last one in yellow.
void show_tile_map(const FlashWalkthrough& f, float side) {
  const MaskPicture picture(f.layout(), f.tile());
  const int r = f.row();
  const TileShape t = f.tile();
  const int q_tiles = picture.row_query_span(r) / t.rows, k_tiles = picture.row_key_span(r) / t.cols;
  const float cell = side / float(std::max(q_tiles, k_tiles));
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(side, side));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(at, ImVec2(at.x + side, at.y + side), paint_color(PaintClass::outside));
  const std::int64_t q_at = picture.row_query_offset(r), k_at = picture.row_key_offset(r);
  const auto tile_rect = [&](int qt, int kt) {
    return std::pair{ImVec2(std::floor(at.x + kt * cell), std::floor(at.y + qt * cell)),
                     ImVec2(std::floor(at.x + (kt + 1) * cell), std::floor(at.y + (qt + 1) * cell))};
  };
  for (int qt = 0; qt < q_tiles; ++qt)
    for (int kt = 0; kt < k_tiles; ++kt) {
      const RegionCounts c = picture.count_region(q_at + std::int64_t(qt) * t.rows, q_at + std::int64_t(qt + 1) * t.rows,
                                                  k_at + std::int64_t(kt) * t.cols, k_at + std::int64_t(kt + 1) * t.cols);
      const auto [a, b] = tile_rect(qt, kt);
      draw->AddRectFilled(a, b, paint_color(majority_class(c), qt == f.query_tile() ? 255 : 110));
    }
  for (int kt = 0; kt < f.steps_done(); ++kt) {
    const auto [a, b] = tile_rect(f.query_tile(), kt);
    draw->AddRect(a, b, kt == f.loaded_key_tile() ? IM_COL32(255, 230, 60, 255) : IM_COL32(255, 255, 255, 200), 0, 0,
                  kt == f.loaded_key_tile() ? 3.0f : 1.0f);
  }
  const auto [a, b] = tile_rect(f.query_tile(), 0);
  draw->AddRect(a, ImVec2(at.x + side, b.y), IM_COL32(255, 255, 255, 120));
}

void plot(const char* label, const std::vector<double>& values, float width) {
  std::vector<float> shown;
  for (double v : values) shown.push_back(std::isfinite(v) ? float(v) : NAN);
  ImGui::PlotLines(label, shown.data(), int(shown.size()), 0, nullptr, FLT_MAX, FLT_MAX,
                   ImVec2(width, ImGui::GetTextLineHeight() * 3.5f));
}

void show_state(const FlashWalkthrough& f, int layout_row) {
  const QueryTileState& s = f.state();
  const LayoutView v = f.layout().view();
  ImGui::Text("Query tile %d of row %d: queries %d..%d; it visits %d key tiles.", f.query_tile(), layout_row, s.first_query,
              s.first_query + s.queries - 1, f.key_tiles_total());
  if (f.loaded_key_tile() < 0) {
    ImGui::TextWrapped("Before the first step: Q tile loaded, m = -inf, l = 0, accumulator = 0.");
  } else {
    const CellCounts c = count_tile(v, f.row(), s.first_query, f.loaded_key_first(), f.tile());
    std::string kinds;
    for (CellKind kind : computed_cell_kinds)
      if (c[kind] > 0) kinds += (kinds.empty() ? "" : ", ") + std::to_string(c[kind]) + " " + cell_kind_name(kind);
    ImGui::TextWrapped("Step %d of %d: loaded K and V tile %d (keys %d..%d): %s scores. Each query's max m rose where "
                       "a larger score arrived; l and the accumulator were rescaled by exp(m_old - m_new).",
                       f.steps_done(), f.key_tiles_total(), f.loaded_key_tile(), f.loaded_key_first(), f.loaded_key_end() - 1,
                       kinds.c_str());
  }
  // Bytes moved so far against the naive algorithm's total for the same queries.
  const double flash = double(f.flash_bytes()), naive = double(f.naive_bytes());
  const float width = ImGui::GetContentRegionAvail().x * 0.6f;
  ImGui::Text("HBM bytes: flash so far %s, naive for these queries %s", format_bytes(flash).c_str(), format_bytes(naive).c_str());
  ImGui::ProgressBar(float(flash / std::max(flash, naive)), ImVec2(width, 0), ("flash " + format_bytes(flash)).c_str());
  ImGui::ProgressBar(float(naive / std::max(flash, naive)), ImVec2(width, 0), ("naive " + format_bytes(naive)).c_str());
  ImGui::Spacing();
  const float plot_width = ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("running sum l").x - 16;
  plot("running max m", s.running_max, plot_width);
  plot("running sum l", s.running_sum, plot_width);
  plot("last rescale", s.last_rescale, plot_width);
  if (ImGui::BeginTable("queries", 6, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* title : {"query", "document", "m", "l", "rescale", "LSE"}) ImGui::TableSetupColumn(title);
    ImGui::TableHeadersRow();
    for (int i = 0; i < s.queries; ++i) {
      const int doc = doc_at(v, f.row(), s.first_query + i);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", s.first_query + i);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(doc < 0 ? "padding" : std::to_string(doc).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", s.running_max[i]);
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", s.running_sum[i]);
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", s.last_rescale[i]);
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", f.lse(i));
    }
    ImGui::EndTable();
  }
}

}  // namespace

void show_walkthrough_view(AppState& state) {
  if (show_model_error(state)) return;
  const ScenarioModel& model = state.model();
  show_controls(state, model);
  const WalkthroughRun& run = current_run(state);
  if (!run.stepper) {
    ImGui::TextWrapped("No walkthrough for this choice: %s", run.error.c_str());
    return;
  }
  if (run.stepper->finished()) state.walkthrough.playing = false;
  const float side = std::min(ImGui::GetContentRegionAvail().x * 0.4f, ImGui::GetContentRegionAvail().y);
  ImGui::BeginGroup();
  show_tile_map(*run.stepper, side);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginChild("state");
  show_state(*run.stepper, run.row);
  ImGui::EndChild();
}

}  // namespace attnlab::gui
