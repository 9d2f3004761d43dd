#include "gui/app/our_kernel.hpp"

#include "gui/app/scenario_edits.hpp"

namespace attnlab::gui {

std::vector<OurKernel> our_kernels(AppState& state) {
  const std::vector<std::string>& names = state.results.our_kernels();
  const std::vector<std::optional<TileShape>>& tiles = state.results.our_kernel_tiles();
  std::vector<OurKernel> out;
  for (std::size_t i = 0; i < names.size(); ++i) out.push_back({names[i], tiles[i]});
  return out;
}

OurKernel shown_kernel(AppState& state) {
  const std::vector<OurKernel> all = our_kernels(state);
  for (const OurKernel& k : all)
    if (k.name == state.our_kernel) return k;
  return all.empty() ? OurKernel{} : all.front();
}

std::vector<OurKernel> other_kernels(AppState& state) {
  const std::string shown = shown_kernel(state).name;
  std::vector<OurKernel> out;
  for (const OurKernel& k : our_kernels(state))
    if (k.name != shown) out.push_back(k);
  return out;
}

TileShape kernel_tile_or_default(AppState& state) { return shown_kernel(state).tile.value_or(default_flash_tile); }

void choose_kernel(AppState& state, const std::string& name) {
  state.our_kernel = name;
  const TileShape tile = kernel_tile_or_default(state);
  if (tile != state.tile) set_tile(state, tile);
}

void follow_tile(AppState& state) {
  for (const OurKernel& k : our_kernels(state))
    if (k.tile == state.tile) {
      state.our_kernel = k.name;
      return;
    }
}

}  // namespace attnlab::gui
