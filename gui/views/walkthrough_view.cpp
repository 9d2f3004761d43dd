// The flash walkthrough: one query tile of one row stepped through the CPU
// reference's online softmax (reference/flash_walkthrough.hpp), one K/V tile at
// a time, with the running max and sum per query and the bytes moved so far. The
// row is painted cell by cell (never a tile in one colour: a diagonal tile is half
// masked), with a close-up of the tiles around the step.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "analysis/number_format.hpp"
#include "gui/mask_picture/cell_colors.hpp"
#include "gui/mask_picture/mask_painting.hpp"
#include "gui/mask_picture/mask_picture.hpp"
#include "gui/views/single_row_layout.hpp"
#include "gui/views/views.hpp"
#include "gui/widgets/plots.hpp"
#include "gui/widgets/wrapped_text.hpp"
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
  if (!run || run->model_version != model.version || run->implementation != w.implementation || run->row != w.row ||
      run->query_tile != w.query_tile) {
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

const ImU32 loaded_now = IM_COL32(255, 230, 60, 255);  // the K/V tile of this step
const ImU32 loaded_before = IM_COL32(255, 255, 255, 200);

// Outlines the key tiles loaded so far for the query tile, from the first it visits (under a
// window, not tile 0): the last one yellow.
void outline_loaded(ImDrawList* draw, const FlashWalkthrough& f, const MaskPlacement& p, std::int64_t q_at,
                    std::int64_t k_at) {
  const TileShape t = f.tile();
  const int first = f.state().key_tiles.first;
  for (int kt = first; kt < first + f.steps_done(); ++kt) {
    const ImVec2 a(screen_x(p, k_at + std::int64_t(kt) * t.cols),
                   screen_y(p, q_at + std::int64_t(f.query_tile()) * t.rows));
    const ImVec2 b(screen_x(p, k_at + std::int64_t(kt + 1) * t.cols),
                   screen_y(p, q_at + std::int64_t(f.query_tile() + 1) * t.rows));
    const bool now = kt == f.loaded_key_tile();
    draw->AddRect(a, b, now ? loaded_now : loaded_before, 0, 0, now ? 3.0f : 1.0f);
  }
}

// The whole row's score matrix painted by cell kind as the Masks view paints it, the
// query tile's row of tiles framed and the key tiles loaded so far outlined.
void show_row_picture(const FlashWalkthrough& f, float side) {
  const MaskPicture picture(f.layout(), f.tile());
  const int r = f.row();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(side, side));
  const MaskPlacement p = resolve_placement({}, picture, at, side);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->PushClipRect(at, ImVec2(at.x + side, at.y + side), true);
  draw->AddRectFilled(at, ImVec2(at.x + side, at.y + side), paint_color(PaintClass::outside));
  paint_cells(draw, picture, p);
  const TileShape t = f.tile();
  if (std::min(t.rows, t.cols) * p.pixels_per_cell >= tile_grid_pixels) draw_tile_grid(draw, picture, p);
  const std::int64_t q_at = picture.row_query_offset(r), k_at = picture.row_key_offset(r);
  const float y0 = screen_y(p, q_at + std::int64_t(f.query_tile()) * t.rows);
  const float y1 = screen_y(p, q_at + std::int64_t(f.query_tile() + 1) * t.rows);
  draw->AddRect(ImVec2(at.x, y0 - 1), ImVec2(at.x + side, std::max(y1, y0 + 2) + 1), IM_COL32(255, 255, 255, 120));
  outline_loaded(draw, f, p, q_at, k_at);
  draw->PopClipRect();
}

// The query tile against the key tiles around this step's, cell by cell: where a tile
// is half masked (the diagonal, a document's end) every cell shows its own kind.
void show_close_up(const FlashWalkthrough& f, float width) {
  const MaskPicture picture(f.layout(), f.tile());
  const TileShape t = f.tile();
  const int r = f.row();
  const int key_tiles = picture.row_key_span(r) / t.cols;
  const int shown = std::min(3, key_tiles);
  const int centre = std::max(0, f.loaded_key_tile());
  const int first = std::clamp(centre - 1, 0, std::max(0, key_tiles - shown));
  const double ppc = std::max(1.0, std::floor(width / double(shown * t.cols)));
  const std::int64_t q_at = picture.row_query_offset(r), k_at = picture.row_key_offset(r);
  const std::int64_t q0 = q_at + std::int64_t(f.query_tile()) * t.rows, k0 = k_at + std::int64_t(first) * t.cols;
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  wrapped_text("Close-up, cell by cell: query tile %d against key tiles %d..%d", f.query_tile(), first,
               first + shown - 1);
  ImGui::PopTextWrapPos();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 size(float(ppc * shown * t.cols), float(ppc * t.rows));
  ImGui::Dummy(size);
  const MaskPlacement p{at.x, at.y, std::max(size.x, size.y), ppc, double(q0), double(k0), 1};
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->PushClipRect(at, ImVec2(at.x + size.x, at.y + size.y), true);
  draw->AddRectFilled(at, ImVec2(at.x + size.x, at.y + size.y), paint_color(PaintClass::outside));
  paint_cells(draw, picture, p);
  draw_tile_grid(draw, picture, p);
  outline_loaded(draw, f, p, q_at, k_at);
  draw->PopClipRect();
}

void show_legend() {
  draw_cell_kind_legend();
  const float side = ImGui::GetTextLineHeight();
  for (const auto& [color, text] :
       {std::pair{loaded_now, "K/V tile loaded at this step"}, std::pair{loaded_before, "loaded before"}}) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRect(at, ImVec2(at.x + side, at.y + side), color, 0, 0, 2);
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine();
    ImGui::TextUnformatted(text);
    ImGui::SameLine(0, side * 1.5f);
  }
  ImGui::NewLine();
}

void show_state(const FlashWalkthrough& f, int layout_row) {
  const QueryTileState& s = f.state();
  const LayoutView v = f.layout().view();
  wrapped_text("Query tile %d of row %d: queries %d..%d; it visits %d key tiles.", f.query_tile(), layout_row,
               s.first_query, s.first_query + s.queries - 1, f.key_tiles_total());
  if (f.loaded_key_tile() < 0) {
    wrapped_text("Before the first step: Q tile loaded, m = -inf, l = 0, accumulator = 0.");
  } else {
    const CellCounts c = count_tile(v, f.row(), s.first_query, f.loaded_key_first(), f.tile());
    std::string kinds;
    for (CellKind kind : computed_cell_kinds)
      if (c[kind] > 0) kinds += (kinds.empty() ? "" : ", ") + std::to_string(c[kind]) + " " + cell_kind_name(kind);
    wrapped_text(
        "Step %d of %d: loaded K and V tile %d (keys %d..%d): %s scores. Each query's max m rose where "
        "a larger score arrived; l and the accumulator were rescaled by exp(m_old - m_new).",
        f.steps_done(), f.key_tiles_total(), f.loaded_key_tile(), f.loaded_key_first(), f.loaded_key_end() - 1,
        kinds.c_str());
  }
  // Bytes moved so far against the naive algorithm's total for the same queries.
  const double flash = double(f.flash_bytes()), naive = double(f.naive_bytes());
  const float width = ImGui::GetContentRegionAvail().x * 0.6f;
  wrapped_text("HBM bytes: flash so far %s, naive for these queries %s", format_bytes(flash).c_str(),
               format_bytes(naive).c_str());
  ImGui::ProgressBar(float(flash / std::max(flash, naive)), ImVec2(width, 0), ("flash " + format_bytes(flash)).c_str());
  ImGui::ProgressBar(float(naive / std::max(flash, naive)), ImVec2(width, 0), ("naive " + format_bytes(naive)).c_str());
  ImGui::Spacing();
  const ImVec2 plot_size(ImGui::GetContentRegionAvail().x, ImGui::GetTextLineHeight() * 4.5f);
  const std::string x = "query (of this tile)";
  draw_plot({"running max m, per query (the largest score seen so far)", x, double(s.first_query)}, s.running_max,
            plot_size);
  draw_plot({"running sum l, per query (of exp(score - m) so far)", x, double(s.first_query)}, s.running_sum,
            plot_size);
  draw_plot({"last rescale exp(m_old - m_new), per query (1: m did not move)", x, double(s.first_query)},
            s.last_rescale, plot_size);
  if (ImGui::BeginTable("queries", 6,
                        ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY)) {
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
    wrapped_text("No walkthrough for this choice: %s", run.error.c_str());
    return;
  }
  if (run.stepper->finished()) state.walkthrough.playing = false;
  show_legend();
  const float left = ImGui::GetContentRegionAvail().x * 0.4f;
  const float close_up = ImGui::GetTextLineHeightWithSpacing() +
                         std::floor(left / float(3 * run.stepper->tile().cols)) * float(run.stepper->tile().rows);
  const float side = std::max(ImGui::GetFontSize() * 8, std::min(left, ImGui::GetContentRegionAvail().y - close_up -
                                                                           ImGui::GetStyle().ItemSpacing.y * 2));
  ImGui::BeginGroup();
  show_row_picture(*run.stepper, side);
  show_close_up(*run.stepper, left);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginChild("state");
  show_state(*run.stepper, run.row);
  ImGui::EndChild();
}

}  // namespace attnlab::gui
