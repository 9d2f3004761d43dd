#pragma once
// What each implementation's mask picture shows, in words, for the scenario shown: its layout,
// and what a token sees there (the whole row, or a window of it).
#include <string>

#include "core/layout/implementation.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab::gui {

// "packed rows, causal over the whole row", or under a window of 512: "packed rows, each
// token sees the 512 keys before it in its row, across documents".
std::string layout_caption(Implementation impl, const Scenario& scenario);

}  // namespace attnlab::gui
