#pragma once
// A GLFW window with an OpenGL 3.3 core context and Dear ImGui on it: the
// interactive loop, and offscreen rendering for headless screenshots and tests.
#include "gui/app/app_state.hpp"
#include "gui/platform/image.hpp"
#include "gui/platform/mouse_queue.hpp"
#include "gui/platform/window_size.hpp"

#include <optional>

struct GLFWwindow;

namespace attnlab::gui {

class GuiWindow {
 public:
  // visible = false makes a hidden window (headless: Xvfb is enough). Throws
  // std::runtime_error when no window or context can be made (no display).
  GuiWindow(int width, int height, bool visible);
  ~GuiWindow();
  GuiWindow(const GuiWindow&) = delete;
  GuiWindow& operator=(const GuiWindow&) = delete;

  // Draws frames until the window is closed: on input (and a few frames after it, for
  // Dear ImGui to settle hover and click states) and while something moves (a playing
  // walkthrough, a model or live run in flight); otherwise it sleeps until input comes.
  void run(AppState& state);
  // Draws `frames` frames of width x height into an offscreen framebuffer and reads
  // the last one back. The mouse rests at `mouse`, or nowhere; its buttons follow
  // press_mouse (none by default). A tooltip shows from the third frame on (one to
  // select the view, one to size it).
  Image render_offscreen(AppState& state, int width, int height, int frames = 3,
                         std::optional<ScreenPoint> mouse = std::nullopt);
  // A mouse button change, as the window's input callback queues it (tests use it to
  // click offscreen: a press and a release queued together are one click).
  void press_mouse(int button, bool down, ScreenPoint at);

 private:
  void apply_text_scale(float scale);
  void draw_frame(AppState& state);
  void apply_mouse_buttons();
  static void install_input_callbacks(GLFWwindow* window);
  static GuiWindow& of(GLFWwindow* window);

  GLFWwindow* window_ = nullptr;
  float applied_text_scale_ = 0;
  MouseButtonQueue mouse_;
  bool input_seen_ = true;  // since the last frame: draw again
};

}  // namespace attnlab::gui
