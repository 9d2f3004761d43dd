// The Training step view as drawn (under xvfb-run, in the render tests' one window): the chain's
// bars on their log scales, each naming what it rests on and its source; a family whose step no
// row measured, said in the view; its tables' columns whole at a projector's text sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

#include "analysis/number_format.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/views/chain_figure.hpp"
#include "gui/views/step_figures.hpp"
#include "hidden_window.hpp"
#include "last_frame.hpp"
#include "shipped_results.hpp"
#include "temp_path.hpp"

namespace attnlab::gui {
namespace {

AppState step_view_of(const std::string& results_folder) {
  AppState state = make_app_state("nanochat-d24", results_folder);
  state.view = View::step;
  state.view_requested = true;
  return state;
}

// The links drawn as bars in the view, as the view makes them.
std::vector<ChainLink> chain_of(const AppState& state) {
  const StepFigures f = step_figures(state);
  return step_chain(state.scenario, f.step, f.times, f.measured);
}

// Each bar, as drawn: where its row is (its label's first line), its source's text on that row,
// and its filled bar in its evidence's colour on that row.
struct DrawnBar {
  const ChainLink* link;
  LinkUnit unit;
  DrawnRect bar;
};

// Every link of the chain is a bar, its label and "evidence: source" on its row; each number above
// 0 has its bar, in its evidence's colour, all bars starting at one x. On each unit's log scale the
// bars' ends lie at the same pixels per decade: the difference of two ends over the log of their
// values' ratio is one number.
TEST(ChainFigure, BarsAreOnALogScaleAndNameTheirSources) {
  AppState state = step_view_of(shipped_results_folder);
  hidden_window().render_offscreen(state, 1600, 4000);
  const std::vector<DrawnLine> lines = drawn_lines();
  const std::vector<ChainLink> chain = chain_of(state);
  std::map<LinkEvidence, std::vector<DrawnRect>> filled;
  for (LinkEvidence e :
       {LinkEvidence::counted, LinkEvidence::predicted, LinkEvidence::measured, LinkEvidence::reported})
    filled[e] = drawn_filled_rects(evidence_color(e));
  std::vector<DrawnBar> drawn;
  for (const ChainBar& b : chain_bars(chain, false)) {
    SCOPED_TRACE(b.link->label);
    const std::vector<const DrawnLine*> label = find_drawn(lines, b.link->label);
    ASSERT_FALSE(label.empty());
    const DrawnRect row = label.front()->rect;
    const std::string source =
        std::string(link_evidence_name(b.link->evidence)) + (b.link->source.empty() ? "" : ": " + b.link->source);
    const std::vector<std::vector<const DrawnLine*>> named = find_all_drawn(lines, source);
    EXPECT_TRUE(std::any_of(named.begin(), named.end(),
                            [&](const std::vector<const DrawnLine*>& place) {
                              return std::abs(place.front()->rect.y0 - row.y0) < row.height();
                            }))
        << source << ", whole, on the label's row";
    EXPECT_TRUE(drawn_whole(lines, b.link->value));
    const auto on_row = [&](const DrawnRect& r) { return std::abs((r.y0 + r.y1) / 2 - (row.y0 + row.y1) / 2) < 4; };
    const std::vector<DrawnRect>& of_kind = filled[b.link->evidence];
    const auto bar = std::find_if(of_kind.begin(), of_kind.end(), [&](const DrawnRect& r) {
      return on_row(r) && r.x0 > row.x0;  // not the legend's swatch
    });
    if (b.link->number && *b.link->number > 0) {
      ASSERT_NE(bar, of_kind.end()) << b.link->value << " has a bar";
      drawn.push_back({b.link, b.unit, *bar});
    } else {
      EXPECT_EQ(bar, of_kind.end()) << b.link->value << " has none";
    }
  }
  ASSERT_GE(drawn.size(), 6u);
  std::map<LinkUnit, std::vector<double>> per_decade;
  for (const DrawnBar& a : drawn) {
    EXPECT_FLOAT_EQ(a.bar.x0, drawn.front().bar.x0) << a.link->label;
    for (const DrawnBar& b : drawn) {
      const double decades = std::log10(*a.link->number / *b.link->number);
      if (a.unit != b.unit || decades < 0.1) continue;
      per_decade[a.unit].push_back((a.bar.x1 - b.bar.x1) / decades);
    }
  }
  EXPECT_GE(per_decade[LinkUnit::ratio].size(), 3u);
  EXPECT_GE(per_decade[LinkUnit::percent].size(), 3u);
  for (const auto& [unit, slopes] : per_decade) {
    const auto [least, most] = std::minmax_element(slopes.begin(), slopes.end());
    EXPECT_GT(*least, 20) << "pixels per decade";
    EXPECT_LT(*most - *least, 0.01 * *most) << *least << " to " << *most << " pixels per decade";
  }
}

// A copy of the shipped results without the step rows of one source (their CSV lines left out).
std::filesystem::path shipped_without_step_rows_of(const std::string& source) {
  const std::filesystem::path folder = unique_temp_path("results-without-" + source);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::filesystem::copy(std::filesystem::path(shipped_results_folder) / "gemms", folder / "gemms");
  for (const auto& entry : std::filesystem::directory_iterator(shipped_results_folder)) {
    const std::filesystem::path& from = entry.path();
    if (from.extension() != ".csv" && from.extension() != ".toml") continue;
    std::ifstream in(from);
    std::ofstream out(folder / from.filename());
    for (std::string line; std::getline(in, line);)
      if (line.find("," + source + ",") == std::string::npos) out << line << '\n';
  }
  return folder;
}

// nanochat-d24's measured step by FA2 alone (a copy of the shipped results without our step
// rows): the view says in words, drawn whole, that ours was not measured (it drew no row for ours
// at all); with our rows, it draws ours part by part instead.
TEST(StepView, AFamilyWithoutAMeasuredStepIsSaidInTheView) {
  const std::filesystem::path folder = shipped_without_step_rows_of("torch-step-attnlab");
  AppState without = step_view_of(folder.string());
  const StepFigures f = step_figures(without);
  const std::string ours = f.times[int(KernelFamily::attnlab)].label();
  ASSERT_EQ(unmeasured_steps(f), std::vector<std::string>{ours});
  const std::string not_measured = "The measured step, " + ours + ", 1 GPU: not measured";
  // Each measured pair's title, as the view heads its parts.
  const auto measured_titles = [](const StepFigures& figures, bool of_ours, const std::string& label) {
    std::vector<std::string> titles;
    for (const MeasuredStepPair& p : figures.measured)
      if (p.has_parts() && (p.label() == label) == of_ours)
        titles.push_back("The measured step, " + p.setting() + " (");
    return titles;
  };
  hidden_window().render_offscreen(without, 1600, 4000);
  std::vector<DrawnLine> lines = drawn_lines();
  EXPECT_TRUE(drawn_whole(lines, not_measured));
  const std::vector<std::string> others = measured_titles(f, false, ours);
  ASSERT_FALSE(others.empty());
  for (const std::string& title : others) EXPECT_TRUE(drawn_whole(lines, title)) << title;
  AppState with = step_view_of(shipped_results_folder);
  hidden_window().render_offscreen(with, 1600, 4000);
  lines = drawn_lines();
  EXPECT_FALSE(drawn_whole(lines, not_measured));
  const std::vector<std::string> of_ours = measured_titles(step_figures(with), true, ours);
  ASSERT_FALSE(of_ours.empty());
  for (const std::string& title : of_ours) EXPECT_TRUE(drawn_whole(lines, title)) << title;
  std::filesystem::remove_all(folder);
}

// A pattern of long layers alone has no window: its chain's link is the causal mask's, drawn as
// such, and no link says what a window leaves.
TEST(StepView, APatternWithoutAWindowDrawsNoWindowLink) {
  AppState state = step_view_of(shipped_results_folder);
  ASSERT_TRUE(apply_edit(state, [](Scenario& s) { s.model->window_pattern = "L"; }));
  hidden_window().render_offscreen(state, 1600, 4000);
  const std::vector<DrawnLine> lines = drawn_lines();
  EXPECT_TRUE(drawn_whole(lines, "what the causal mask leaves (no window)"));
  EXPECT_FALSE(drawn_whole(lines, "what the window leaves"));
}

// Opens a collapsing header titled `label` in whichever window draws it, as a click would: its open
// state in its window's storage, under the id the window gives the label.
void open_header(const char* label) {
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) w->StateStorage.SetInt(ImHashStr(label, 0, w->ID), 1);
}

// What is wrong with the columns of the tables the last frame drew: a header past its column's edge
// (Dear ImGui cuts it with an ellipsis), a cell's content past it (clipped there), or a header in
// sight that was not drawn whole.
std::vector<std::string> cut_columns(const std::vector<DrawnLine>& lines) {
  std::vector<std::string> cut;
  for (const ImGuiTable* t : tables_of_last_frame()) {
    std::vector<DrawnLine> in_table;
    std::copy_if(lines.begin(), lines.end(), std::back_inserter(in_table), [&](const DrawnLine& l) {
      return l.rect.inside({t->OuterRect.Min.x, t->OuterRect.Min.y, t->OuterRect.Max.x, t->OuterRect.Max.y}, 1);
    });
    const bool headers_in_sight = t->OuterRect.Min.y >= t->HostClipRect.Min.y &&
                                  t->OuterRect.Min.y + t->LastFirstRowHeight <= t->HostClipRect.Max.y;
    for (int n = 0; n < t->ColumnsCount; ++n) {
      const ImGuiTableColumn& c = t->Columns[n];
      const std::string name = ImGui::TableGetColumnName(t, n);
      if (!c.IsEnabled || name.empty()) continue;
      const std::string where = name + " (of " + std::to_string(t->ColumnsCount) + " columns)";
      if (c.ContentMaxXHeadersIdeal > c.MaxX + 0.5f) cut.push_back(where + ": header");
      if (std::max(c.ContentMaxXFrozen, c.ContentMaxXUnfrozen) > c.MaxX + 0.5f) cut.push_back(where + ": cells");
      const bool in_sight = c.MinX >= t->InnerClipRect.Min.x && c.MaxX <= t->InnerClipRect.Max.x + 0.5f;
      if (headers_in_sight && in_sight && !drawn_whole(in_table, name)) cut.push_back(where + ": header drawn");
    }
  }
  return cut;
}

// The Training step view's tables (its chain's, unfolded; attention's shares; the measured parts)
// and those of the Story's steps that show them, at a projector's text sizes: every column keeps
// its header and its cells whole, however narrow the window (the chain's table collapsed its columns
// to one character at 1.75x, 1280x720 and at 3x, 1920x1080).
TEST(StepView, TablesKeepTheirColumnsAtLargeText) {
  const char* fold = "The chain as a table: how each link is computed";
  for (const auto& [scale, width, height] : {std::tuple{1.75f, 1280, 720}, std::tuple{3.0f, 1920, 1080}}) {
    const std::string size = format_ratio(scale) + ", " + std::to_string(width) + "x" + std::to_string(height);
    AppState view = step_view_of(shipped_results_folder);
    view.text_scale = scale;
    const int whole_view = 6000;  // as wide, and tall enough to show every table of the view at once
    hidden_window().render_offscreen(view, width, whole_view);
    open_header(fold);
    hidden_window().render_offscreen(view, width, whole_view);
    const std::vector<const ImGuiTable*> tables = tables_of_last_frame();
    EXPECT_TRUE(std::any_of(tables.begin(), tables.end(), [](const ImGuiTable* t) { return t->ColumnsCount == 3; }))
        << "the chain's table, unfolded, at " << size;
    for (const std::string& cut : cut_columns(drawn_lines()))
      ADD_FAILURE() << "Training step at " << size << ": " << cut;
    for (const int step : {7, 8, 9}) {
      AppState story = make_app_state("", shipped_results_folder);
      story.text_scale = scale;
      open_story_step(story, step);
      hidden_window().render_offscreen(story, width, height);
      open_header(fold);
      hidden_window().render_offscreen(story, width, height);
      for (const std::string& cut : cut_columns(drawn_lines()))
        ADD_FAILURE() << "Story step " << step + 1 << " at " << size << ": " << cut;
    }
  }
}

}  // namespace
}  // namespace attnlab::gui
