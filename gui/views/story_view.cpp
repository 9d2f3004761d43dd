// The Story: the article's argument in ten steps, each the view and scenario that shows it
// with one paragraph and its figure framed. It opens first; any tab leaves it, at any step,
// with that step's scenario still open; "open in its tab" does the same for the step's view.
#include <imgui.h>

#include <algorithm>
#include <memory>
#include <string>

#include "gui/app/story_steps.hpp"
#include "gui/views/counting_picture.hpp"
#include "gui/views/highlight.hpp"
#include "gui/views/story_text.hpp"
#include "gui/views/view_list.hpp"
#include "gui/views/views.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

namespace {

// The paragraph, written again only when the step, the scenario or the results change.
const std::string& paragraph(AppState& state) {
  struct Cached {
    int step = -1;
    std::uint64_t version = 0;
    std::uint64_t results = 0;
    std::string kernel;
    std::string text;
  };
  static Cached cached;
  const std::uint64_t results = state.results.version();
  if (cached.step != state.story_step || cached.version != state.scenario_version || cached.results != results ||
      cached.kernel != state.our_kernel || !state.model_is_current())
    cached = {state.story_step, state.scenario_version, results, state.our_kernel,
              story_paragraph(state, state.story_step)};
  return cached.text;
}

// As tall as the paragraph wraps to at the window's width, so no line is cut off; at most a third
// of the window (text 3x on a small window), where it scrolls.
float paragraph_height(const std::string& text) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float width = ImGui::GetContentRegionAvail().x - 2 * style.WindowPadding.x - style.ScrollbarSize;
  const std::size_t lines = wrap_at_spaces(text, width, [](std::string_view s) {
                              return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x;
                            }).size();
  const float needed = float(lines) * ImGui::GetTextLineHeightWithSpacing() + 2 * style.WindowPadding.y;
  return std::min(needed, std::max(ImGui::GetTextLineHeightWithSpacing() * 3, ImGui::GetContentRegionAvail().y / 3));
}

void show_navigation(AppState& state, const StoryStep& step) {
  const int count = story_step_count;
  ImGui::Text("Story, step %d of %d:", state.story_step + 1, count);
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImGui::TextUnformatted(step.title);
  ImGui::PopStyleColor();
  // The arrows, the steps and the way out: on the title's line where they fit, else below it.
  const std::string leave = std::string("leave the story: ") + view_entry(step.view).title;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float radio =
      ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize("10").x + style.ItemSpacing.x;
  const float arrows = 2 * (ImGui::GetFrameHeight() + style.ItemSpacing.x);
  const float leave_width = ImGui::CalcTextSize(leave.c_str()).x + 2 * style.FramePadding.x + style.ItemSpacing.x;
  const float needed = arrows + float(count) * radio + leave_width;
  if (ImGui::GetContentRegionAvail().x - ImGui::GetItemRectSize().x > needed) ImGui::SameLine();
  const bool radios = ImGui::GetContentRegionMax().x - ImGui::GetWindowContentRegionMin().x > needed;
  ImGui::BeginDisabled(state.story_step == 0);
  if (ImGui::ArrowButton("previous", ImGuiDir_Left)) open_story_step(state, state.story_step - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(state.story_step + 1 == count);
  if (ImGui::ArrowButton("next", ImGuiDir_Right)) open_story_step(state, state.story_step + 1);
  ImGui::EndDisabled();
  if (radios) {
    for (int i = 0; i < count; ++i) {
      ImGui::SameLine();
      ImGui::PushID(i);
      if (ImGui::RadioButton(std::to_string(i + 1).c_str(), i == state.story_step)) open_story_step(state, i);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", story_steps()[i].title);
      ImGui::PopID();
    }
  } else {  // large text in a small window: one slider for the ten buttons
    ImGui::SameLine();
    int shown = state.story_step + 1;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
    if (ImGui::SliderInt("##step", &shown, 1, count)) open_story_step(state, shown - 1);
  }
  if (ImGui::GetContentRegionAvail().x > leave_width) ImGui::SameLine();
  if (ImGui::Button(leave.c_str())) {
    state.view = step.view;
    state.view_requested = true;
  }
}

}  // namespace

void show_story_view(AppState& state) {
  const StoryStep& step = story_steps()[state.story_step];
  // On start, or back from a tab where another scenario was opened or edited: the step's own.
  const bool open = story_step_open(state) || open_story_step(state, state.story_step);
  show_navigation(state, step);
  if (!open) {  // a scenarios folder without this step's scenario: the other steps still open
    wrapped_text("This step shows the shipped scenario %s, which cannot be read: %s", step.scenario,
                 state.scenario_error.c_str());
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(40, 36, 24, 255));
  ImGui::BeginChild("paragraph", ImVec2(0, paragraph_height(paragraph(state))), true);
  wrapped_text("%s", paragraph(state).c_str());
  ImGui::EndChild();
  ImGui::PopStyleColor();
  if (step.aside == StoryAside::article_counting) show_counting_picture(state);
  // Padded sideways, so that a figure as wide as the view keeps its frame clear of its text (the
  // window's clip reaches half its padding past its content).
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(2 * frame_reach, 0));
  ImGui::BeginChild("step view", ImVec2(0, 0), false, ImGuiWindowFlags_AlwaysUseWindowPadding);
  ImGui::PopStyleVar();
  state.highlight = step.figure;
  view_entry(step.view).show(state);
  state.highlight = Figure::none;
  state.story_scroll_frames = std::max(0, state.story_scroll_frames - 1);
  ImGui::EndChild();
}

}  // namespace attnlab::gui
