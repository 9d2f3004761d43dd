#pragma once
// Colours and marker shapes of the Timings view's plots: one colour per
// implementation, one shape per source family. The colours stay clear of every cell
// kind's (cell_colors.hpp), so a red point never reads as bleed; the tests check the distance.
#include <imgui.h>

#include <string>
#include <vector>

#include "analysis/source_ratios.hpp"
#include "core/layout/implementation.hpp"
#include "gui/mask_picture/cell_colors.hpp"

namespace attnlab::gui {

Rgb implementation_rgb(Implementation i);
ImU32 implementation_color(Implementation i);

enum class MarkerShape { circle, diamond, square, triangle, triangle_down, cross };
MarkerShape family_marker(const SourceFamily* family);  // null (a source no family lists): cross

// Our flash kernels keep their implementation's colour and are told apart by rings
// around the marker: none for the first in `kernels` (our_flash_kernels' order), one
// for the second, and so on; none for naive's cuBLAS or a peer's row.
int kernel_rings(const std::vector<std::string>& kernels, const ResultRow& r);

// A marker of `radius` centred at `c`; filled, or its outline only; with `rings` outlines around it.
void draw_marker(ImDrawList* draw, ImVec2 c, float radius, MarkerShape shape, ImU32 color, bool filled, int rings = 0);
// How far the outermost ring of a marker with `rings` reaches, in radii.
float marker_reach(int rings);

}  // namespace attnlab::gui
