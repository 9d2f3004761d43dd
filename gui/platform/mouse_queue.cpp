#include "gui/platform/mouse_queue.hpp"

namespace attnlab::gui {

void MouseButtonQueue::push(int button, bool down, Point at) {
  if (button >= 0 && button < buttons) events_.push_back({button, down, at});
}

MouseButtonQueue::Frame MouseButtonQueue::next_frame() {
  Frame frame;
  std::array<bool, buttons> changed{};
  while (!events_.empty() && !changed[events_.front().button]) {
    const Event e = events_.front();
    events_.pop_front();
    if (!frame.at) frame.at = e.at;
    changed[e.button] = down_[e.button] != e.down;
    down_[e.button] = e.down;
  }
  frame.down = down_;
  return frame;
}

}  // namespace attnlab::gui
