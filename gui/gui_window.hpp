#pragma once
// A GLFW window with an OpenGL 3.3 core context and Dear ImGui on it: the
// interactive loop, and offscreen rendering for headless screenshots and tests.
#include "gui/app_state.hpp"
#include "gui/image.hpp"
#include "gui/window_size.hpp"

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

  // Draws frames until the window is closed.
  void run(AppState& state);
  // Draws `frames` frames of width x height into an offscreen framebuffer and reads
  // the last one back. The mouse rests at `mouse` (no button down), or nowhere; a
  // tooltip shows from the third frame on (one to select the view, one to size it).
  Image render_offscreen(AppState& state, int width, int height, int frames = 3,
                         std::optional<ScreenPoint> mouse = std::nullopt);

 private:
  void apply_text_scale(float scale);
  void draw_frame(AppState& state);

  GLFWwindow* window_ = nullptr;
  float applied_text_scale_ = 0;
};

}  // namespace attnlab::gui
