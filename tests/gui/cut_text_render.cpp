// Text a lecture found cut (under xvfb-run, in the render tests' one window): the note under the
// Scenario view's sliders, the Costs view's measured-bytes bars, the tabs at large text and the
// roofline's labels at 1280x720, each read back whole from what was drawn.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <tuple>

#include "analysis/number_format.hpp"
#include "gui/app/our_kernel.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/views/timings/roofline_plot.hpp"
#include "gui/views/view_list.hpp"
#include "hidden_window.hpp"
#include "last_frame.hpp"
#include "shipped_results.hpp"

namespace attnlab::gui {
namespace {

// The sizes a lecture projects at: text scale, window width and height.
constexpr std::tuple<float, int, int> lecture_sizes[] = {
    {1.0f, 1920, 1080}, {1.0f, 1280, 720}, {1.75f, 1280, 720}, {3.0f, 1920, 1080}};

std::string size_name(float scale, int width, int height) {
  return format_ratio(scale) + ", " + std::to_string(width) + "x" + std::to_string(height);
}

// The window a child of the frame's window named `name` (BeginChild(name)) became.
const ImGuiWindow* child_window(std::string_view name) {
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (w->Active && std::string_view(w->Name).find("/" + std::string(name) + "_") != std::string_view::npos) return w;
  return nullptr;
}

// A log-normal median past its longest length is named under the sliders, wrapped inside their
// panel: every line of the note inside the panel, the note whole, on several lines where it is
// wider than the panel.
TEST(ScenarioView, AMedianAboveTheLongestIsNamedInsideItsPanel) {
  AppState state = state_on("uniform-64x512", View::scenario);
  ASSERT_TRUE(set_length_source_kind(state, "lognormal"));
  const double longest = find_scenario_field("longest")->get(state.scenario);
  ASSERT_TRUE(set_field(state, *find_scenario_field("median length"), longest + 8000));
  const std::string note = length_source_note(state.scenario);
  ASSERT_FALSE(note.empty());
  for (const auto& [scale, width, height] : lecture_sizes) {
    SCOPED_TRACE(size_name(scale, width, height));
    state.text_scale = scale;
    hidden_window().render_offscreen(state, width, height * 3);  // the panel in sight whole
    const ImGuiWindow* panel = child_window("edit");
    ASSERT_NE(panel, nullptr);
    const std::vector<DrawnLine> lines = drawn_lines();
    const std::vector<const DrawnLine*> drawn = find_drawn(lines, note);
    ASSERT_FALSE(drawn.empty()) << note;
    const DrawnRect box{panel->InnerClipRect.Min.x, panel->InnerClipRect.Min.y, panel->InnerClipRect.Max.x,
                        panel->InnerClipRect.Max.y};
    for (const DrawnLine* line : drawn) EXPECT_TRUE(line->rect.inside(box, 1)) << line->text;
    const float one_line = ImGui::CalcTextSize(note.c_str()).x;
    if (one_line > box.width()) {
      EXPECT_GE(drawn.size(), 2u);
    }
  }
}

// The Costs view's bars keep their texts whole: each measured-bytes text ("ncu 56.2 GiB (1.16x the
// model)" on one-doc-16384 was cut after "the") and each model's, for each of our kernels shown.
TEST(CostsView, EveryBarsTextIsWhole) {
  for (const char* scenario : {"one-doc-16384", "uniform-64x512"})
    for (const char* kernel : {"wgmma-sm90", "mma-sm80"})
      for (const auto& [scale, width, height] : lecture_sizes) {
        SCOPED_TRACE(std::string(scenario) + ", " + kernel + " at " + size_name(scale, width, height));
        AppState state = make_app_state(scenario, shipped_results_folder);
        state.view = View::costs;
        state.view_requested = true;
        state.text_scale = scale;
        choose_kernel(state, kernel);
        hidden_window().render_offscreen(state, width, 6000);  // as wide, and every bar in sight
        int measured = 0, models = 0;
        for (const DrawnLine& line : drawn_lines()) {
          const std::string text = line.text;
          if (text.starts_with("ncu ") && text.size() > 4 && std::isdigit(static_cast<unsigned char>(text[4]))) {
            ++measured;
            EXPECT_TRUE(text.ends_with(" the model)")) << text;
          }
          if (text.find(" varlen)") != std::string::npos) ++models;
        }
        EXPECT_GE(models, 8) << "the scores' and the bytes' bars, each with its text whole";
        if (std::string_view(scenario) == "one-doc-16384") {
          EXPECT_GE(measured, 1);
        }
      }
}

// At large text every tab keeps its whole title (the bar scrolls instead of shrinking them): no tab
// narrower than its title, and each tab in the bar's sight drawn whole.
TEST(Window, TabsKeepTheirTitlesAtLargeText) {
  for (const auto& [scale, width, height] : lecture_sizes) {
    SCOPED_TRACE(size_name(scale, width, height));
    AppState state = state_on("uniform-64x512", View::scenario);
    state.text_scale = scale;
    hidden_window().render_offscreen(state, width, height);
    const ImGuiTabBar* bar = views_tab_bar();
    ASSERT_NE(bar, nullptr);
    ASSERT_EQ(bar->Tabs.Size, int(view_list.size()));
    const std::vector<DrawnLine> lines = drawn_lines();
    int whole = 0;
    for (const ImGuiTabItem& tab : bar->Tabs) {
      const char* title = bar->GetTabName(&tab);
      EXPECT_GE(tab.Width + 0.5f, tab.ContentWidth) << title;
      const float x = bar->BarRect.Min.x + tab.Offset - bar->ScrollingAnim;
      if (x < bar->BarRect.Min.x || x + tab.Width > bar->BarRect.Max.x) continue;
      EXPECT_TRUE(drawn_whole(lines, title)) << title;
      ++whole;
    }
    EXPECT_GE(whole, 2);
  }
}

// The roofline keeps its labels inside its plot, each whole and none over another, at 1280x720 (they
// collided there) and every size a lecture uses, in the Timings view and in the Story's step 7.
TEST(TimingsView, TheRooflinesLabelsAreWholeAndApart) {
  for (const auto& [scale, width, height] : lecture_sizes) {
    AppState timings = make_app_state("uniform-64x512", shipped_results_folder);
    timings.view = View::timings;
    timings.view_requested = true;
    AppState story = make_app_state("", shipped_results_folder);
    open_story_step(story, 6);
    for (AppState* state : {&timings, &story}) {
      SCOPED_TRACE(std::string(view_name(state->view)) + " at " + size_name(scale, width, height));
      state->text_scale = scale;
      hidden_window().render_offscreen(*state, width, height);
      const std::vector<DrawnRect> plots = drawn_filled_rects(roofline_area_color);
      if (plots.empty()) continue;  // large text: the plot below the tables, a scroll away (or part of it)
      ASSERT_EQ(plots.size(), 1u);
      const std::vector<DrawnLine> lines = drawn_lines();
      std::vector<const DrawnLine*> labels;
      const DrawnRect plot = plots.front();
      for (const DrawnLine& line : lines)  // drawn under the plot's own clip: the plot wholly in sight
        if (line.clip.inside(plot, 0) && plot.inside(line.clip)) labels.push_back(&line);
      if (scale == 1.0f) {
        EXPECT_GE(labels.size(), 5u) << "the roofs' and some points' labels";
      }
      for (const DrawnLine* a : labels) {
        EXPECT_EQ(a->text.find("\xEF\xBF\xBD"), std::string::npos) << a->text << " cut at the plot's edge";
        for (const DrawnLine* b : labels)
          if (a < b && std::any_of(a->glyphs.begin(), a->glyphs.end(), [&](const DrawnRect& ga) {
                return std::any_of(b->glyphs.begin(), b->glyphs.end(),
                                   [&](const DrawnRect& gb) { return ga.grown(-1).overlaps(gb.grown(-1)); });
              }))
            ADD_FAILURE() << a->text << " over " << b->text;
      }
    }
  }
}

}  // namespace
}  // namespace attnlab::gui
