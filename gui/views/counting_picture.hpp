#pragma once
// The article's three ways to count one packed row against its documents, as a small picture
// (the Story's step 2): the row as a full square against the documents as half squares (the
// article's 8x), full squares on both sides, and triangles on both sides (the causal mask, cell
// by cell). Each pair is drawn at one scale, so the areas are the counts, with the counts per
// head beside them, from core/cost/training_step.hpp's ArticleCounts and the model.
#include "gui/app/app_state.hpp"

namespace attnlab::gui {

void show_counting_picture(AppState& state);

}  // namespace attnlab::gui
