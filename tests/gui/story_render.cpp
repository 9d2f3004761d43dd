// The Story as drawn (under xvfb-run, in the render tests' one window): step 2's pictures in
// proportion to the counts they stand for, step 8's frame around the whole shares table, and
// no step's frame drawn across the text of its figure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <tuple>

#include "analysis/number_format.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/views/attention_shares.hpp"
#include "gui/views/counting_picture.hpp"
#include "gui/views/highlight.hpp"
#include "gui/views/step_figures.hpp"
#include "hidden_window.hpp"
#include "last_frame.hpp"
#include "shipped_results.hpp"

namespace attnlab::gui {
namespace {

// How much of `fill` a pixel holds over `background`, 0 to 1: anti-aliased edges count in part;
// a pixel of another colour (a box's outline) counts for nothing.
double fill_share(Rgb p, Rgb background, Rgb fill) {
  double dot = 0, norm = 0, off = 0, c[3], f[3];
  for (int i = 0; i < 3; ++i) {
    c[i] = double(p[i]) - background[i];
    f[i] = double(fill[i]) - background[i];
    dot += c[i] * f[i];
    norm += f[i] * f[i];
  }
  const double t = std::clamp(dot / norm, 0.0, 1.0);
  for (int i = 0; i < 3; ++i) off += (c[i] - t * f[i]) * (c[i] - t * f[i]);
  return std::sqrt(off) < 24 ? t : 0;
}

// The fill of step 2's pictures between a way's title and its caption, picture by picture: the
// row's, then its documents' (each a run of columns holding fill; a tip of a triangle may leave a
// column or two empty, the gap between the pictures leaves more).
std::vector<double> picture_areas(const Image& image, const std::vector<DrawnLine>& lines, const CountingWay& way) {
  const std::vector<const DrawnLine*> title = find_drawn(lines, way.title),
                                      caption = find_drawn(lines, counting_caption(way));
  if (title.empty() || caption.empty()) return {};
  const int x0 = int(title.front()->rect.x0) - 2, y0 = int(title.back()->rect.y1) + 1,
            y1 = int(caption.front()->rect.y0) - 1;
  const Rgb background = rgb_at(image, x0 - 2, (y0 + y1) / 2), fill = cell_kind_rgb(CellKind::useful);
  std::vector<double> areas;
  int empty = 0;  // columns without fill since the last with some
  for (int x = x0; x < image.width; ++x) {
    double column = 0;
    for (int y = y0; y < y1; ++y) column += fill_share(rgb_at(image, x, y), background, fill);
    if (column < 0.05) {
      ++empty;
      continue;
    }
    if (areas.empty() || empty >= 4) {
      if (areas.size() == 2) break;  // the next way's pictures
      areas.push_back(0);
    }
    areas.back() += column;
    empty = 0;
  }
  return areas;
}

// Step 2 draws one packed row three ways, each as the row's picture beside its documents' at one
// scale: the area each fills is what it counts, so the two areas' ratio is the counts' (the
// pictures are continuous: cell by cell, 3.99x, is drawn as 4x; within 1.5%), the counts whole in
// the caption below. The triangles were wound against Dear ImGui's anti-aliasing, each half a pixel
// too large all round: at 1x the article's 8x was drawn as 6.2x.
TEST(StoryView, StepTwosPicturesAreDrawnInProportionToTheirCounts) {
  AppState state = make_app_state("", shipped_results_folder);
  open_story_step(state, 1);
  // 1450 px: a width where Dear ImGui's own wrap cut the captions' ratios after their point ("8." / "00x").
  for (const auto& [scale, width] : {std::pair{1.0f, 1920}, std::pair{1.0f, 1450}, std::pair{3.0f, 1920}}) {
    state.text_scale = scale;
    const Image image = hidden_window().render_offscreen(state, width, 1400);
    const std::vector<DrawnLine> lines = drawn_lines();
    for (const CountingWay& way : counting_ways(state.model())) {
      SCOPED_TRACE(std::string(way.title) + " at " + format_ratio(scale) + ", " + std::to_string(width) + " px");
      const std::vector<double> areas = picture_areas(image, lines, way);
      ASSERT_EQ(areas.size(), 2u) << "the caption " << counting_caption(way) << " is drawn whole below two pictures";
      const double counted = way.row_cells / way.doc_cells;
      EXPECT_NEAR(areas[0] / areas[1], counted, 0.015 * counted) << areas[0] << " against " << areas[1] << " pixels";
    }
  }
}

// The Story's frames as the last frame drew them: the band each 3 px stroke paints (anti-aliased
// edges included) where its scissor lets it show, and what lies inside that band.
struct DrawnFrame {
  DrawnRect outer, inner;
  DrawnRect clip;  // where the stroke shows
};

std::vector<DrawnFrame> drawn_frames() {
  std::vector<DrawnFrame> frames;
  for (const DrawnShape& stroke : drawn_shapes(highlight_frame_color())) {
    // The stroke's solid vertices lie 1 px either side of its path, its fading ones 2 px.
    const DrawnRect outer = stroke.solid.grown(1);
    if (outer.overlaps(stroke.clip)) frames.push_back({outer, stroke.solid.grown(-3), stroke.clip});
  }
  return frames;
}

// Glyphs the frame's stroke paints over, each line's text once; a line its window's edge cuts (a
// glyph outside its scissor) is left out: the frame's edge there is the window's.
std::vector<std::string> text_under_frame(const DrawnFrame& frame, const std::vector<DrawnLine>& lines) {
  std::vector<std::string> crossed;
  for (const DrawnLine& line : lines) {
    if (line.text.find("\xEF\xBF\xBD") != std::string::npos) continue;
    for (const DrawnRect& g : line.glyphs) {
      const DrawnRect ink = g.grown(-1);  // a glyph's quad keeps a pixel of blank margin
      if (ink.overlaps(frame.outer) && ink.overlaps(frame.clip) && !ink.inside(frame.inner, 0)) {
        crossed.push_back(line.text + " at " + std::to_string(int(g.x0)) + ", " + std::to_string(int(g.y0)));
        break;
      }
    }
  }
  return crossed;
}

// Step 8 frames attention's shares, the table that says which share is which: the whole table
// inside the frame, every share the paragraph counts drawn in it (the frame stopped short of the
// table's right side: a group is as wide as a table's columns' own widths, not the table).
TEST(StoryView, StepEightFramesTheWholeSharesTable) {
  AppState state = make_app_state("", shipped_results_folder);
  open_story_step(state, 7);
  const std::vector<AttentionShare> shares = attention_shares(step_figures(state));
  for (const auto& [width, height] : {std::pair{1920, 1080}, std::pair{1280, 720}}) {
    SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height));
    hidden_window().render_offscreen(state, width, height);
    const std::vector<DrawnLine> lines = drawn_lines();
    EXPECT_TRUE(drawn_whole(lines, "The GUI states it " + count_of(std::ssize(shares), "way")));
    EXPECT_TRUE(drawn_whole(lines, "the framed table says which is which"));
    const std::vector<DrawnFrame> frames = drawn_frames();
    ASSERT_EQ(frames.size(), 1u);
    const DrawnFrame* frame = &frames.front();
    const std::vector<const ImGuiTable*> tables = tables_of_last_frame();
    const auto table =
        std::find_if(tables.begin(), tables.end(), [](const ImGuiTable* t) { return t->ColumnsCount == 6; });
    ASSERT_NE(table, tables.end());
    ImRect shown = (*table)->OuterRect;
    shown.ClipWith((*table)->HostClipRect);
    EXPECT_TRUE((DrawnRect{shown.Min.x, shown.Min.y, shown.Max.x, shown.Max.y}.inside(frame->inner)))
        << "the table " << shown.Min.x << ".." << shown.Max.x << ", inside the frame " << frame->inner.x0 << ".."
        << frame->inner.x1;
    std::vector<DrawnLine> framed;
    std::copy_if(lines.begin(), lines.end(), std::back_inserter(framed),
                 [&](const DrawnLine& line) { return line.rect.inside(frame->inner); });
    const auto shown_shares = std::count_if(shares.begin(), shares.end(), [&](const AttentionShare& s) {
      return drawn_whole(framed, format_percent(s.share));
    });
    // The whole table in sight at 1920x1080; at 1280x720 its first rows, the rest a scroll away.
    EXPECT_GE(shown_shares, width == 1920 ? std::ssize(shares) : 4);
  }
}

// No step's frame is drawn across text, at every window size and text scale a lecture uses: it
// drew over the first letters of a figure as wide as its window (the chain of steps 2 and 4, the
// mask panel's captions of steps 1, 3 and 5), and over the last line above step 7's table.
TEST(StoryView, TheFrameCrossesNoText) {
  AppState state = make_app_state("", shipped_results_folder);
  for (const auto& [scale, width, height] : {std::tuple{1.0f, 1920, 1080}, std::tuple{1.0f, 1280, 720},
                                             std::tuple{1.75f, 1280, 720}, std::tuple{3.0f, 1920, 1080}})
    for (int step = 0; step < story_step_count; ++step) {
      SCOPED_TRACE("step " + std::to_string(step + 1) + " at " + format_ratio(scale) + ", " + std::to_string(width) +
                   "x" + std::to_string(height));
      state.text_scale = scale;
      open_story_step(state, step);
      hidden_window().render_offscreen(state, width, height);
      const std::vector<DrawnLine> lines = drawn_lines();
      for (const DrawnFrame& frame : drawn_frames())
        for (const std::string& text : text_under_frame(frame, lines)) ADD_FAILURE() << text;
    }
}

}  // namespace
}  // namespace attnlab::gui
