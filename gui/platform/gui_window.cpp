#include "gui/platform/gui_window.hpp"

#define GLFW_INCLUDE_NONE
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "gui/views/app_frame.hpp"
#include "gui/views/view_list.hpp"

namespace attnlab::gui {

namespace {

constexpr float base_font_pixels = 18.0f;  // larger than Dear ImGui's 13 px: readable on a projector
constexpr int frames_after_input = 3;      // Dear ImGui settles hover, click and layout over a couple of frames
constexpr double idle_wait_seconds =
    0.5;  // asleep, still look at the state twice a second (text caret, worker threads)

// A TrueType font if the machine has one; Dear ImGui's built-in font otherwise.
const char* find_font() {
  for (const char* path : {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                           "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"})
    if (std::filesystem::exists(path)) return path;
  return nullptr;
}

// F1, F2, ... pick the views in tab order; Ctrl + and Ctrl - change the text size.
void handle_shortcuts(AppState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  for (std::size_t i = 0; i < view_list.size(); ++i)
    if (ImGui::IsKeyPressed(GLFW_KEY_F1 + static_cast<int>(i), false)) {
      state.view = view_list[i].view;
      state.view_requested = true;
    }
  if (io.KeyCtrl && (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)))
    state.text_scale = std::min(3.0f, state.text_scale + 0.25f);
  if (io.KeyCtrl && (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)))
    state.text_scale = std::max(0.75f, state.text_scale - 0.25f);
}

}  // namespace

GuiWindow::GuiWindow(int width, int height, bool visible) {
  if (!glfwInit()) throw std::runtime_error("cannot start GLFW (no display? run under xvfb-run -a)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  window_ = glfwCreateWindow(width, height, "attnlab", nullptr, nullptr);
  if (!window_) {
    glfwTerminate();
    throw std::runtime_error("cannot open an OpenGL 3.3 core window (no display? run under xvfb-run -a)");
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  glfwSetWindowUserPointer(window_, this);
  install_input_callbacks(window_);  // before Dear ImGui's, which call ours after theirs
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is fixed; leave no imgui.ini behind
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
}

GuiWindow::~GuiWindow() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

void GuiWindow::apply_text_scale(float scale) {
  if (scale == applied_text_scale_) return;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  if (const char* font = find_font()) {
    io.Fonts->AddFontFromFileTTF(font, base_font_pixels * scale);
  } else {
    ImFontConfig config;
    config.SizePixels = base_font_pixels * scale;
    io.Fonts->AddFontDefault(&config);
  }
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  // Bars and histograms in a neutral grey-blue: the default amber reads as the padding cell kind.
  style.Colors[ImGuiCol_PlotHistogram] = ImVec4(0.55f, 0.6f, 0.75f, 1);
  style.Colors[ImGuiCol_PlotHistogramHovered] = ImVec4(0.7f, 0.75f, 0.9f, 1);
  // A slider's grab drawn thin and translucent, so the value printed on the slider stays readable.
  style.GrabMinSize = 4;
  style.Colors[ImGuiCol_SliderGrab].w = 0.55f;
  style.Colors[ImGuiCol_SliderGrabActive].w = 0.75f;
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
  if (applied_text_scale_ != 0) {  // the backend made the first texture itself; later ones we replace
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  applied_text_scale_ = scale;
}

GuiWindow& GuiWindow::of(GLFWwindow* window) { return *static_cast<GuiWindow*>(glfwGetWindowUserPointer(window)); }

// Every input marks the window for drawing; mouse buttons also go through the queue.
void GuiWindow::install_input_callbacks(GLFWwindow* window) {
  glfwSetMouseButtonCallback(window, [](GLFWwindow* w, int button, int action, int) {
    double x = 0, y = 0;
    glfwGetCursorPos(w, &x, &y);
    of(w).mouse_.push(button, action == GLFW_PRESS, {static_cast<float>(x), static_cast<float>(y)});
    of(w).input_seen_ = true;
  });
  glfwSetCursorPosCallback(window, [](GLFWwindow* w, double, double) { of(w).input_seen_ = true; });
  glfwSetScrollCallback(window, [](GLFWwindow* w, double, double) { of(w).input_seen_ = true; });
  glfwSetKeyCallback(window, [](GLFWwindow* w, int, int, int, int) { of(w).input_seen_ = true; });
  glfwSetCharCallback(window, [](GLFWwindow* w, unsigned int) { of(w).input_seen_ = true; });
  glfwSetWindowFocusCallback(window, [](GLFWwindow* w, int) { of(w).input_seen_ = true; });
  glfwSetCursorEnterCallback(window, [](GLFWwindow* w, int) { of(w).input_seen_ = true; });
  glfwSetFramebufferSizeCallback(window, [](GLFWwindow* w, int, int) { of(w).input_seen_ = true; });
  glfwSetWindowRefreshCallback(window, [](GLFWwindow* w) { of(w).input_seen_ = true; });
}

void GuiWindow::press_mouse(int button, bool down, ScreenPoint at) {
  mouse_.push(button, down, {static_cast<float>(at.x), static_cast<float>(at.y)});
}

// After the platform's new frame: the buttons as the queue hands them out, one change per frame.
void GuiWindow::apply_mouse_buttons() {
  ImGuiIO& io = ImGui::GetIO();
  const MouseButtonQueue::Frame frame = mouse_.next_frame();
  for (int i = 0; i < MouseButtonQueue::buttons; ++i) io.MouseDown[i] = frame.down[i];
  if (frame.at) io.MousePos = ImVec2(frame.at->first, frame.at->second);
}

void GuiWindow::draw_frame(AppState& state) {
  apply_mouse_buttons();
  ImGui::NewFrame();
  handle_shortcuts(state);
  draw_app(state);
  ImGui::Render();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  glViewport(0, 0, static_cast<int>(size.x), static_cast<int>(size.y));
  glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void GuiWindow::run(AppState& state) {
  int frames_left = frames_after_input;
  while (!glfwWindowShouldClose(window_)) {
    if (frames_left > 0 || state.animating() || mouse_.pending())
      glfwPollEvents();
    else
      glfwWaitEventsTimeout(idle_wait_seconds);
    if (input_seen_)
      frames_left = frames_after_input;
    else if (ImGui::GetIO().WantTextInput)
      frames_left = std::max(frames_left, 1);  // the text caret blinks
    input_seen_ = false;
    if (frames_left == 0 && !state.animating() && !mouse_.pending()) continue;
    frames_left = std::max(0, frames_left - 1);
    apply_text_scale(state.text_scale);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    draw_frame(state);
    glfwSwapBuffers(window_);
  }
}

Image GuiWindow::render_offscreen(AppState& state, int width, int height, int frames,
                                  std::optional<ScreenPoint> mouse) {
  GLuint framebuffer = 0, color = 0;
  glGenFramebuffers(1, &framebuffer);
  glGenRenderbuffers(1, &color);
  glBindRenderbuffer(GL_RENDERBUFFER, color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("cannot make a " + std::to_string(width) + "x" + std::to_string(height) +
                             " offscreen framebuffer");
  ImGuiIO& io = ImGui::GetIO();
  for (int f = 0; f < frames; ++f) {
    apply_text_scale(state.text_scale);
    ImGui_ImplOpenGL3_NewFrame();
    // No platform frame: the size and the mouse are ours.
    io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = 1.0f / 60.0f;
    io.MousePos = mouse ? ImVec2(float(mouse->x), float(mouse->y)) : ImVec2(-FLT_MAX, -FLT_MAX);
    draw_frame(state);
  }
  Image image{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 4)};
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &color);
  glDeleteFramebuffers(1, &framebuffer);
  // OpenGL's first row is the bottom one.
  const std::size_t stride = static_cast<std::size_t>(width) * 4;
  for (int y = 0; y < height / 2; ++y)
    std::swap_ranges(image.rgba.begin() + y * stride, image.rgba.begin() + (y + 1) * stride,
                     image.rgba.begin() + (height - 1 - y) * stride);
  return image;
}

}  // namespace attnlab::gui
