#pragma once
// Mouse button changes in the order they came, handed to Dear ImGui at most one
// change per button per frame. A press and its release that arrive between two
// frames (a quick click, or a click while the window slept waiting for input) then
// show as one frame with the button down and the next with it up, so the click is
// never lost; a press also brings the pointer position it happened at.
#include <array>
#include <deque>
#include <optional>
#include <utility>

namespace attnlab::gui {

class MouseButtonQueue {
 public:
  static constexpr int buttons = 5;  // Dear ImGui's mouse buttons
  using Point = std::pair<float, float>;

  void push(int button, bool down, Point at);
  bool pending() const { return !events_.empty(); }

  struct Frame {
    std::array<bool, buttons> down{};
    std::optional<Point> at;  // where the first change of this frame happened
  };
  // The buttons' state for the next frame, taking changes in order until a button
  // would change twice.
  Frame next_frame();

 private:
  struct Event {
    int button;
    bool down;
    Point at;
  };
  std::deque<Event> events_;
  std::array<bool, buttons> down_{};
};

}  // namespace attnlab::gui
