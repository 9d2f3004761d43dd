// The Masks view: each implementation's score matrix painted by cell kind
// (attention-gym's "draw the mask predicate"), with its tile grid, zoom, pan and
// a tooltip. Large pictures are painted in blocks of cells, each block in the
// most common kind of its cells, counted in closed form by MaskPicture.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/number_format.hpp"
#include "gui/mask_picture/cell_colors.hpp"
#include "gui/mask_picture/mask_painting.hpp"
#include "gui/mask_picture/mask_picture.hpp"
#include "gui/views/highlight.hpp"
#include "gui/views/layout_caption.hpp"
#include "gui/views/views.hpp"
#include "gui/widgets/note_text.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

constexpr double max_pixels_per_cell = 48;

// Wheel zooms about the mouse, dragging pans, a double click fits the picture again.
void handle_mouse(MaskViewport& vp, const MaskPlacement& p, const MaskPicture& picture) {
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    vp = {};
    return;
  }
  MaskViewport next{p.origin_q, p.origin_k, p.pixels_per_cell, 0};
  if (ImGui::IsItemHovered() && io.MouseWheel != 0) {
    const double fit = p.side / double(std::max<std::int64_t>({picture.query_extent(), picture.key_extent(), 1}));
    const double scale =
        std::clamp(p.pixels_per_cell * std::pow(1.25, io.MouseWheel), fit * 0.5, std::max(fit, max_pixels_per_cell));
    const double mouse_q = p.origin_q + (io.MousePos.y - p.y) / p.pixels_per_cell;
    const double mouse_k = p.origin_k + (io.MousePos.x - p.x) / p.pixels_per_cell;
    next = {mouse_q - (io.MousePos.y - p.y) / scale, mouse_k - (io.MousePos.x - p.x) / scale, scale};
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0)) {
    next.origin_q -= io.MouseDelta.y / next.pixels_per_cell;
    next.origin_k -= io.MouseDelta.x / next.pixels_per_cell;
  }
  if (next.origin_q != p.origin_q || next.origin_k != p.origin_k || next.pixels_per_cell != p.pixels_per_cell)
    vp = next;
}

// "token 700 of document 1 (position 188)" for position pos of row r.
std::string describe_position(const ScenarioModel& model, const Layout& layout, int r, int pos) {
  const LayoutView v = layout.view();
  const int buffer = v.row_start[r] + pos;
  std::string where = "row " + std::to_string(r) + " position " + std::to_string(pos);
  if (pos >= row_extent(v, r)) return where + ": tile overhang past the row's end";
  const int doc = doc_at(v, r, pos);
  if (doc < 0) return where + " (buffer " + std::to_string(buffer) + "): padding";
  const std::int64_t token = layout.token_source[buffer];
  return where + " (buffer " + std::to_string(buffer) + "): token " + std::to_string(token) + " = document " +
         std::to_string(doc) + " position " + std::to_string(token - model.doc_offsets[doc]);
}

void show_tooltip(const ScenarioModel& model, const MaskPicture& picture, const MaskPlacement& p) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const auto q = static_cast<std::int64_t>(std::floor(p.origin_q + (mouse.y - p.y) / p.pixels_per_cell));
  const auto k = static_cast<std::int64_t>(std::floor(p.origin_k + (mouse.x - p.x) / p.pixels_per_cell));
  ImGui::BeginTooltip();
  if (p.cells_per_bin == 1) {
    const PictureCell cell = picture.cell_at(q, k);
    if (cell.row < 0) {
      ImGui::TextUnformatted("between rows: no score matrix here");
    } else {
      ImGui::Text("query: %s", describe_position(model, picture.layout(), cell.row, cell.q).c_str());
      ImGui::Text("key:   %s", describe_position(model, picture.layout(), cell.row, cell.k).c_str());
      ImGui::Text("cell kind: %s", cell_kind_name(cell.kind));
      ImGui::Text("tile (%d, %d): %s", cell.q_tile, cell.k_tile, cell.visited ? "visited" : "skipped by the kernel");
    }
  } else {
    const std::int64_t n = p.cells_per_bin, q0 = q / n * n, k0 = k / n * n;
    const RegionCounts c = picture.count_region(q0, q0 + n, k0, k0 + n);
    ImGui::Text("block of %lld x %lld cells (zoom in for single cells)", static_cast<long long>(n),
                static_cast<long long>(n));
    ImGui::Text("queries %lld..%lld, keys %lld..%lld of the picture", static_cast<long long>(q0),
                static_cast<long long>(q0 + n - 1), static_cast<long long>(k0), static_cast<long long>(k0 + n - 1));
    for (CellKind kind : computed_cell_kinds)
      if (c.computed[kind] > 0)
        ImGui::Text("%-14s %s", cell_kind_name(kind), format_count(double(c.computed[kind])).c_str());
    for (PaintClass other : {PaintClass::not_visited, PaintClass::outside}) {
      const std::int64_t cells = other == PaintClass::not_visited ? c.not_visited : c.outside;
      if (cells > 0) ImGui::Text("%-14s %s", paint_class_label(other), format_count(double(cells)).c_str());
    }
  }
  ImGui::EndTooltip();
}

// The scores computed by kind (all heads), in the legend's colours.
// Fits the panel: the kind's name, its count and its share, the share left out where the panel is narrow.
void show_breakdown(const ImplementationCost& cost) {
  const float swatch = ImGui::GetTextLineHeight() * 0.8f, gap = ImGui::GetStyle().ItemSpacing.x;
  float name_width = 0;
  for (CellKind kind : computed_cell_kinds)
    name_width = std::max(name_width, ImGui::CalcTextSize(cell_kind_name(kind)).x);
  const float count_width = ImGui::CalcTextSize("000.0M").x;
  const float room = ImGui::GetContentRegionAvail().x;
  const bool shares = swatch + name_width + count_width + ImGui::CalcTextSize("100.0%").x + 4 * gap <= room;
  for (CellKind kind : computed_cell_kinds) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + swatch * 0.15f),
                                              ImVec2(at.x + swatch, at.y + swatch * 1.15f), cell_kind_color(kind));
    ImGui::Dummy(ImVec2(swatch, swatch));
    ImGui::SameLine();
    ImGui::TextUnformatted(cell_kind_name(kind));
    const std::string count = format_count(double(cost.scores[kind]));
    ImGui::SameLine(swatch + name_width + count_width + 2 * gap - ImGui::CalcTextSize(count.c_str()).x);
    ImGui::TextUnformatted(count.c_str());
    if (shares) {
      ImGui::SameLine();
      ImGui::Text("%5.1f%%",
                  100.0 * double(cost.scores[kind]) / double(std::max<std::int64_t>(1, cost.scores_computed())));
    }
  }
  wrapped_text("%s tiles visited (all heads)", format_count(double(cost.tiles_visited)).c_str());
}

std::string scores_caption(const ImplementationCost& c) {
  return format_count(double(c.scores_computed())) + " scores computed, " + format_ratio(c.computed_vs_varlen) +
         " varlen's";
}

// The height of the tallest panel header, so the four pictures line up however their captions wrap.
float header_height(const ScenarioModel& model, float width) {
  float tallest = 0;
  for (Implementation i : all_implementations) {
    const std::string caption = std::string(implementation_name(i)) + ": " + layout_caption(i, model.scenario);
    tallest =
        std::max(tallest, ImGui::CalcTextSize(caption.c_str(), nullptr, false, width).y +
                              ImGui::CalcTextSize(scores_caption(model.costs[i]).c_str(), nullptr, false, width).y);
  }
  return tallest + ImGui::GetStyle().ItemSpacing.y * 2;
}

}  // namespace

void show_mask_panel(AppState& state, Implementation impl) {
  const ScenarioModel& model = state.model();
  const int index = static_cast<int>(impl);
  const MaskPicture picture(model.layout_of(impl), model.tile_of(impl));
  const ImplementationCost& cost = model.costs[impl];
  ImGui::BeginGroup();
  const float top = ImGui::GetCursorPosY();
  const float header = header_height(model, ImGui::GetContentRegionAvail().x);
  wrapped_text("%s: %s", implementation_name(impl), layout_caption(impl, model.scenario).c_str());
  wrapped_text("%s", scores_caption(cost).c_str());
  ImGui::SetCursorPosY(std::max(ImGui::GetCursorPosY(), top + header));
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 room = ImGui::GetContentRegionAvail();
  const float breakdown_height = ImGui::GetTextLineHeightWithSpacing() * (computed_kind_count + 1.5f);
  const bool breakdown = std::min(room.x, room.y - breakdown_height) >= 0.8f * std::min(room.x, room.y);
  const float side = std::floor(std::max(16.0f, std::min(room.x, room.y - (breakdown ? breakdown_height : 0))));
  ImGui::PushID(index);
  ImGui::InvisibleButton("picture", ImVec2(side, side));
  ImGui::PopID();
  MaskPlacement placement = resolve_placement(state.mask_viewports[index], picture, at, side);
  handle_mouse(state.mask_viewports[index], placement, picture);
  if (state.masks_linked) state.mask_viewports.fill(state.mask_viewports[index]);
  placement = resolve_placement(state.mask_viewports[index], picture, at, side);
  state.mask_placements[index] = placement;

  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 end(at.x + side, at.y + side);
  draw->PushClipRect(at, end, true);
  draw->AddRectFilled(at, end, paint_color(PaintClass::outside));
  paint_cells(draw, picture, placement);
  const TileShape t = picture.tile();
  if (std::min(t.rows, t.cols) * placement.pixels_per_cell >= tile_grid_pixels)
    draw_tile_grid(draw, picture, placement);
  draw->PopClipRect();
  draw->AddRect(at, end, IM_COL32(140, 140, 150, 255));
  if (ImGui::IsItemHovered() && !ImGui::IsItemActive()) show_tooltip(model, picture, placement);
  if (breakdown) show_breakdown(cost);
  ImGui::EndGroup();
  if (impl == Implementation::packed) frame_if_highlighted(state, Figure::packed_mask);
}

void show_mask_view(AppState& state) {
  if (show_model_error(state)) return;
  draw_cell_kind_legend();
  note_text(
      "Rows sit on the diagonal, each as wide as its tiles; dark = between rows. "
      "Wheel: zoom, drag: pan, double-click: fit. Tiles outlined once %g px wide.",
      tile_grid_pixels);
  ImGui::Checkbox("zoom and pan together", &state.masks_linked);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  int focus = state.mask_focus + 1;
  if (ImGui::Combo("show", &focus, "all four\0naive\0padded\0packed\0varlen\0")) state.mask_focus = focus - 1;
  ImGui::SameLine();
  if (ImGui::Button("fit all")) state.mask_viewports = {};
  const std::vector<Implementation> shown =
      state.mask_focus < 0 ? std::vector<Implementation>(all_implementations.begin(), all_implementations.end())
                           : std::vector<Implementation>{all_implementations[state.mask_focus]};
  // One, two or four columns: whichever leaves the largest square pictures.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 spacing = ImGui::GetStyle().ItemSpacing;
  const float header = ImGui::GetTextLineHeightWithSpacing() * 3;
  const int count = static_cast<int>(shown.size());
  int columns = 1;
  float best = 0;
  for (int c = 1; c <= count; c *= 2) {
    const int rows = (count + c - 1) / c;
    const float side =
        std::min((avail.x - (c - 1) * spacing.x) / c, (avail.y - (rows - 1) * spacing.y) / rows - header);
    if (side > best) best = side, columns = c;
  }
  const int rows = (count + columns - 1) / columns;
  const ImVec2 panel((avail.x - (columns - 1) * spacing.x) / columns, (avail.y - (rows - 1) * spacing.y) / rows);
  for (int n = 0; n < count; ++n) {
    if (n % columns != 0) ImGui::SameLine();
    ImGui::BeginChild(implementation_name(shown[n]), panel, false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    show_mask_panel(state, shown[n]);
    ImGui::EndChild();
  }
}

}  // namespace attnlab::gui
