#include "gui/app/story_steps.hpp"

#include <algorithm>
#include <array>

#include "gui/app/our_kernel.hpp"
#include "gui/app/scenario_edits.hpp"

namespace attnlab::gui {

namespace {

constexpr std::array<StoryStep, story_step_count> steps = {{
    {"8x: the article's picture", "uniform-64x512", View::masks, Figure::packed_mask, 0},
    {"4x: rows of 2048, counted alike", "uniform-64x512-rows-2048", View::costs, Figure::ratio_chain, 0,
     StoryAside::article_counting},
    {"Bleed", "uniform-64x512", View::masks, Figure::packed_mask, 1536},
    {"Tiles", "uniform-64x512", View::costs, Figure::ratio_chain, 0},
    {"The window", "uniform-64x512-rows-2048-window512", View::masks, Figure::packed_mask, 0},
    {"Measured: ours and FlashAttention-2", "uniform-64x512", View::timings, Figure::source_ratios, 0},
    {"Short documents are memory-bound", "uniform-64x512", View::timings, Figure::roofline, 0},
    {"Attention's share of the step", "nanochat-d24", View::step, Figure::step_shares, 0},
    {"The measured step", "nanochat-d24", View::step, Figure::step_measured, 0},
    {"1.8%", "nanochat-d24", View::step, Figure::step_saving, 0},
}};

}  // namespace

std::span<const StoryStep> story_steps() { return steps; }

bool story_step_open(const AppState& state) {
  return state.scenario.name == steps[state.story_step].scenario && !state.scenario_edited;
}

bool open_story_step(AppState& state, int index) {
  index = std::clamp(index, 0, int(steps.size()) - 1);
  const StoryStep& step = steps[index];
  state.story_step = index;
  state.story_scroll_frames = 3;  // the view's layout settles over its first frames
  if (!story_step_open(state) && !open_scenario(state, step.scenario)) return false;
  if (state.tile != kernel_tile_or_default(state)) set_tile(state, kernel_tile_or_default(state));
  state.pass = Pass::fwd;
  state.mask_focus = -1;
  state.mask_viewports = {};
  for (MaskViewport& vp : state.mask_viewports) vp.fit_cells = step.mask_cells;
  return true;
}

}  // namespace attnlab::gui
