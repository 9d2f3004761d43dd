#pragma once
#include "core/layout/layouts.hpp"

namespace attnlab::gui {

// The walkthrough needs one row only: a one-row copy of row r (the same pieces,
// documents and padding, so every cell keeps its kind) whose tokens read
// canonical inputs 0..valid-1, so random inputs are drawn for that row alone
// however large the scenario.
Layout single_row_layout(const Layout& layout, int r);

}  // namespace attnlab::gui
