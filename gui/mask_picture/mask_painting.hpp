#pragma once
// Painting a mask picture into a Dear ImGui draw list: the cells by kind (in blocks of
// about block_pixels when cells are smaller, each block in the most common kind of its
// cells) and the tile grid. The Masks view and the flash walkthrough both draw with it.
#include <imgui.h>

#include <functional>
#include <optional>

#include "gui/app/app_state.hpp"
#include "gui/mask_picture/mask_picture.hpp"

namespace attnlab::gui {

inline constexpr float block_pixels = 3;      // aggregate to blocks of about this many pixels when cells are smaller
inline constexpr float tile_grid_pixels = 8;  // draw the tile grid once tiles are at least this large on screen

// The zoom and pan actually drawn: "fit" resolved to a square panel `side` wide at `at`.
MaskPlacement resolve_placement(const MaskViewport& vp, const MaskPicture& picture, ImVec2 at, float side);

float screen_x(const MaskPlacement& p, std::int64_t k);
float screen_y(const MaskPlacement& p, std::int64_t q);

// The colour of one block: what it holds and its first query and key cell of the picture;
// empty where nothing is painted.
using BlockColor = std::function<std::optional<ImU32>(const RegionCounts&, std::int64_t q, std::int64_t k)>;

// The cells of the picture that fall in the placement's square, by kind (block_class's colour).
void paint_cells(ImDrawList* draw, const MaskPicture& picture, const MaskPlacement& p);
// The same blocks, each in `color`'s colour: the context-parallel view paints each query's rank.
void paint_blocks(ImDrawList* draw, const MaskPicture& picture, const MaskPlacement& p, const BlockColor& color);
// Every tile of the rows in view: visited ones outlined bright, skipped ones faint.
void draw_tile_grid(ImDrawList* draw, const MaskPicture& picture, const MaskPlacement& p);

}  // namespace attnlab::gui
