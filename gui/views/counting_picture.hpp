#pragma once
// The article's three ways to count one packed row against its documents, as a small picture
// (the Story's step 2): the row as a full square against the documents as half squares (the
// article's 8x), full squares on both sides, and triangles on both sides (the causal mask, cell
// by cell). Each pair is drawn at one scale, so the areas are the counts, with the counts per
// head beside them, from core/cost/training_step.hpp's ArticleCounts and the model.
#include <array>
#include <string>

#include "gui/app/app_state.hpp"

namespace attnlab::gui {

enum class CountShape { square, triangle };

// One way to count: its title, the shape of the row and of each document, and what it counts per
// head over all rows and all documents.
struct CountingWay {
  const char* title;
  CountShape row, document;
  double row_cells, doc_cells;
};

// The article's way, full squares on both sides, triangles on both sides; the model must be ok.
std::array<CountingWay, 3> counting_ways(const ScenarioModel& model);

// Each way's caption under its two pictures: the counts and their ratio.
std::string counting_caption(const CountingWay& way);

void show_counting_picture(AppState& state);

}  // namespace attnlab::gui
