#include "gui/views/counting_picture.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/number_format.hpp"
#include "core/cost/training_step.hpp"
#include "gui/mask_picture/cell_colors.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

// One row of `extent` tokens as a box `side` px wide, its counted cells filled: the whole row
// (row_shape) or each document's block on the diagonal (doc_shape), squares or lower triangles.
void draw_row(ImDrawList* draw, ImVec2 at, float side, int extent, const std::vector<std::pair<int, int>>& docs,
              bool whole_row, CountShape shape, ImU32 fill) {
  const ImU32 frame = IM_COL32(120, 120, 140, 255);
  draw->AddRect(at, ImVec2(at.x + side, at.y + side), frame);
  const auto block = [&](float a, float b) {  // [a, b) of the row, as fractions
    const ImVec2 p0(at.x + side * a, at.y + side * a), p1(at.x + side * b, at.y + side * b);
    if (shape == CountShape::square)
      draw->AddRectFilled(p0, p1, fill);
    else
      draw->AddTriangleFilled(p0, p1, ImVec2(p0.x, p1.y), fill);  // clockwise: anti-aliased inside the edges
  };
  if (whole_row) {
    block(0, 1);
    return;
  }
  for (const auto& [start, length] : docs) block(float(start) / float(extent), float(start + length) / float(extent));
}

}  // namespace

std::array<CountingWay, 3> counting_ways(const ScenarioModel& m) {
  const Scenario& s = m.scenario;
  const ArticleCounts c = article_counts(s.doc_lengths, s.row_len);
  const ImplementationCost &pk = m.costs[Implementation::packed], &vl = m.costs[Implementation::varlen];
  const double heads = double(s.heads);
  return {{
      {"the article's: rows full, documents half", CountShape::square, CountShape::triangle,
       double(c.rows_full_squares), double(c.docs_full_squares) / 2},
      {"full squares on both sides", CountShape::square, CountShape::square, double(c.rows_full_squares),
       double(c.docs_full_squares)},
      {"triangles on both sides (causal, cell by cell)", CountShape::triangle, CountShape::triangle,
       double(pk.scores_attended()) / heads, double(vl.scores_attended()) / heads},
  }};
}

std::string counting_caption(const CountingWay& way) {
  return "packed rows " + format_count(way.row_cells) + ", documents " + format_count(way.doc_cells) +
         " scores per head: " + format_ratio(way.row_cells / way.doc_cells);
}

void show_counting_picture(AppState& state) {
  const ScenarioModel& m = state.model();
  if (!m.ok()) return;
  const LayoutView packed = m.layouts->packed.view();
  // The first packed row's documents: where each starts in the row and how long it is there.
  std::vector<std::pair<int, int>> docs;
  for (int p = packed.row_piece[0]; p < packed.row_piece[1]; ++p) {
    const int end = p + 1 < packed.row_piece[1] ? packed.piece_start[p + 1] : packed.row_valid[0];
    docs.emplace_back(packed.piece_start[p], end - packed.piece_start[p]);
  }
  const std::array<CountingWay, 3> ways = counting_ways(m);
  const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
  const float column = (ImGui::GetContentRegionAvail().x - 2 * gap) / 3;
  const float side = std::min(ImGui::GetTextLineHeight() * 4, (column - gap) / 2);
  const ImU32 fill = cell_kind_color(CellKind::useful);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (const CountingWay& w : ways) {
    if (&w != ways.data()) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + column);
    ImGui::TextUnformatted(w.title);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_row(draw, at, side, packed.row_valid[0], docs, true, w.row, fill);
    draw_row(draw, ImVec2(at.x + side + gap, at.y), side, packed.row_valid[0], docs, false, w.document, fill);
    ImGui::Dummy(ImVec2(side * 2 + gap, side));
    // Wrapped at spaces: Dear ImGui's own wrap breaks after a point, "8." then "00x".
    wrapped_text_colored(ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), "%s", counting_caption(w).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
  }
}

}  // namespace attnlab::gui
