#pragma once
// The training step's chain drawn as one figure: a bar per link on a log scale (one scale per
// unit: packed / varlen, a share or saving of the step, a time), each bar coloured by what it
// rests on (counted, predicted, measured, reported) with its value and its source; the link's
// "how" in its tooltip. The table of the same links folds under it
// in the Training step view.
#include <functional>
#include <vector>

#include "gui/views/chain_bars.hpp"

namespace attnlab::gui {

// Where the view scrolls in the Story's first frames of a step: to the first framed bar near the
// top (the bars of the step follow it), or to the last near the bottom (the bars lead up to it).
enum class ScrollTo { none, first_framed, last_framed };

// A bar's colour: what its link rests on. No cell kind's colour and no implementation's.
unsigned int evidence_color(LinkEvidence evidence);

// `framed`: the bars the Story's step is about, drawn on the highlight colour.
void draw_chain_figure(const std::vector<ChainBar>& bars, const std::function<bool(const ChainBar&)>& framed,
                       ScrollTo scroll);

}  // namespace attnlab::gui
