#pragma once
// Which query tile the flash walkthrough steps through, and how far it got. The
// stepper itself is rebuilt from these (see walkthrough_view.cpp).
#include <memory>

#include "core/layout/implementation.hpp"

namespace attnlab::gui {

struct WalkthroughRun;  // the inputs and stepper built for the current choice

struct WalkthroughState {
  Implementation implementation = Implementation::packed;  // whose layout the row comes from
  int row = 0;
  int query_tile = 9;
  int steps = 10;  // key tiles visited so far (clamped to the tile's total): all ten, ending on the diagonal
  bool playing = false;
  double seconds_per_step = 0.5;
  double last_step_time = 0;
  std::shared_ptr<WalkthroughRun> run;  // rebuilt when the choice or the model changes
};

}  // namespace attnlab::gui
