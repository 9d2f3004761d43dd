#pragma once
// Which flash kernel of ours the views mean by "ours" (the loaded results may hold the teaching
// mma-sm80 and the Hopper wgmma-sm90), and its tile: the model is drawn at that kernel's tile,
// so the scores computed and the measured time beside them are of the same tiles. Every view
// names the kernel shown and sets the other beside it.
#include <optional>
#include <string>
#include <vector>

#include "gui/app/app_state.hpp"

namespace attnlab::gui {

struct OurKernel {
  std::string name;               // "wgmma-sm90"; empty where no flash row of ours is loaded
  std::optional<TileShape> tile;  // its rows' tile; empty where they name none
};

// The loaded kernels of ours with their tiles, in our_flash_kernels' order (the default first).
std::vector<OurKernel> our_kernels(AppState& state);
// The kernel the views show: state.our_kernel where it is loaded, else the first loaded.
OurKernel shown_kernel(AppState& state);
// The other loaded kernels, to show beside it.
std::vector<OurKernel> other_kernels(AppState& state);

// Shows `name` as ours everywhere and moves the model to its tile.
void choose_kernel(AppState& state, const std::string& name);
// The tile of the kernel shown, or the cost model's default where it names none.
TileShape kernel_tile_or_default(AppState& state);
// After a tile is picked by hand: the kernel of that tile, where one is loaded, becomes ours.
void follow_tile(AppState& state);

}  // namespace attnlab::gui
