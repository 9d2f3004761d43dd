#pragma once
// A GLFW window with an OpenGL 3.3 core context and Dear ImGui on it: the
// interactive loop, and offscreen rendering for headless screenshots and tests.
#include "gui/app_state.hpp"
#include "gui/image.hpp"

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
  // Draws `frames` frames of width x height into an offscreen framebuffer, with no
  // mouse over the window, and reads the last one back.
  Image render_offscreen(AppState& state, int width, int height, int frames = 3);

 private:
  void apply_text_scale(float scale);
  void draw_frame(AppState& state);

  GLFWwindow* window_ = nullptr;
  float applied_text_scale_ = 0;
};

}  // namespace attnlab::gui
