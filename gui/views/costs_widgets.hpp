#pragma once
// The Costs view's small drawing pieces, shared by its forward and backward halves:
// horizontal bars (one row per implementation: its name, the bar, its number), their
// colours, and a table cell of text.
#include <imgui.h>

#include <functional>
#include <string>

namespace attnlab::gui {

// The model's bars, and measured ones (ncu's bytes) beside them; no cell kind's colour.
inline constexpr ImU32 model_bar = IM_COL32(140, 153, 190, 255);
inline constexpr ImU32 measured_bar = IM_COL32(240, 240, 255, 255);
// The backward half: its bars beside the forward's (model_bar), and what it allocates
// beside what the forward kept for it.
inline constexpr ImU32 backward_bar = IM_COL32(200, 206, 226, 255);

// The width the implementation names take at the left of every bar.
float bar_label_width();

// One row of a bar chart, `height` tall: the label, then the bar painted by `paint` at
// its left end, then `text` at `text_x` from the bar's start; label and text centred on the bar.
void bar_row(const char* label, float height, float text_x, const std::string& text, float text_scale,
             const std::function<void(ImDrawList*, ImVec2)>& paint);

// A bar and the thinner one below it (one implementation's pair), as tall as four
// pairs filling `height_to_fill` allow (0: their natural height).
struct BarPairHeights {
  float thick, thin;
};
BarPairHeights bar_pair_heights(float height_to_fill);

// The next column of the current table, holding `text`.
void text_cell(const std::string& text);

}  // namespace attnlab::gui
