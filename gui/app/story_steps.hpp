#pragma once
// The Story: the article's argument, from 8x fewer scores to a 1.8% shorter training run,
// as steps, each a view of one shipped scenario with one figure framed. The steps are
// data; their words are written from the model and the results (views/story_text.hpp).
#include <span>

#include "gui/app/app_state.hpp"

namespace attnlab::gui {

// A picture the Story draws under a step's paragraph, above its view.
enum class StoryAside { none, article_counting };

struct StoryStep {
  const char* title;
  const char* scenario;  // a shipped scenario's name
  View view;             // the view that shows it
  Figure figure;         // framed in that view
  double mask_cells;     // Masks: the first N x N cells of each picture; 0 = the whole picture
  StoryAside aside = StoryAside::none;
};

inline constexpr int story_step_count = 10;
std::span<const StoryStep> story_steps();

// Opens step `index` (clamped to the steps): its scenario (unless already open and
// unedited), the forward pass, the tile of our kernel shown, and the Masks view's zoom. False where the
// step's scenario cannot be read (state.scenario_error says why; the state keeps its scenario).
bool open_story_step(AppState& state, int index);
// The step's scenario is the one open, unedited.
bool story_step_open(const AppState& state);

}  // namespace attnlab::gui
