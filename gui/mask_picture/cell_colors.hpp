#pragma once
// The one colour legend for cell kinds, used by every view and by the tests.
#include <array>
#include <cstdint>

#include <imgui.h>

#include "gui/mask_picture/mask_picture.hpp"

namespace attnlab::gui {

using Rgb = std::array<std::uint8_t, 3>;

Rgb paint_rgb(PaintClass c);
inline Rgb cell_kind_rgb(CellKind k) { return paint_rgb(paint_class_of(k)); }
ImU32 paint_color(PaintClass c, std::uint8_t alpha = 255);
inline ImU32 cell_kind_color(CellKind k) { return paint_color(paint_class_of(k)); }
const char* paint_class_label(PaintClass c);  // the cell kind's name, or "outside" for the gap between rows

// A row of swatches with labels: useful, causal_masked, padding, bleed, not_visited.
void draw_cell_kind_legend();

}  // namespace attnlab::gui
