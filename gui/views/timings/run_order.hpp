#pragma once
// The order of the Timings table's rows: scenario by scenario and shape by shape (in
// file order), ours first, fastest first within each; ours by implementation, the
// fastest kernel's run first, its other kernels' right after it. No drawing here.
#include <vector>

#include "analysis/primary_runs.hpp"

namespace attnlab::gui {

void order_for_table(std::vector<MeasuredRun>& runs);

}  // namespace attnlab::gui
