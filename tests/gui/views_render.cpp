// The views rendered offscreen in one hidden window (run under xvfb-run): every
// view draws a non-empty picture, and the Masks view's pixels carry the colour
// of the cell kind that core/layout/layout.hpp gives each cell.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include <sys/wait.h>

#include "analysis/number_format.hpp"
#include "analysis/pass_pairs.hpp"
#include "gui/app/story_steps.hpp"
#include "gui/views/costs_widgets.hpp"
#include "gui/views/view_list.hpp"
#include "hidden_window.hpp"
#include "last_frame.hpp"
#include "temp_path.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::gui {
namespace {

GuiWindow* window = nullptr;

class HiddenWindow : public ::testing::Environment {
 public:
  void SetUp() override { window = new GuiWindow(640, 480, false); }
  void TearDown() override {
    delete window;
    window = nullptr;
  }
};

// The screen pixel at the centre of picture cell (q, k) of a panel as drawn.
std::pair<int, int> pixel_of(const MaskPlacement& p, std::int64_t q, std::int64_t k) {
  return {static_cast<int>(p.x + (k + 0.5 - p.origin_k) * p.pixels_per_cell),
          static_cast<int>(p.y + (q + 0.5 - p.origin_q) * p.pixels_per_cell)};
}

TEST(Views, EachViewRendersAPictureWithContent) {
  for (const ViewEntry& entry : view_list) {
    const View v = entry.view;
    SCOPED_TRACE(view_name(v));
    AppState state = state_on("uniform-64x512", v);
    const Image image = window->render_offscreen(state, 800, 500);
    EXPECT_EQ(state.view, v);
    std::set<std::uint32_t> colours;
    for (int y = 0; y < image.height; y += 3)
      for (int x = 0; x < image.width; x += 3) {
        const auto p = image.pixel(x, y);
        colours.insert(p[0] << 16 | p[1] << 8 | p[2]);
      }
    EXPECT_GT(colours.size(), 20u);  // text, widgets and pictures, not a blank clear colour
    const auto png = unique_temp_path(std::string(view_name(v)) + ".png");
    write_png(image, png);
    EXPECT_GT(std::filesystem::file_size(png), 1000u);
    std::filesystem::remove(png);
  }
}

TEST(MaskView, FitPictureShowsBleedInPackedRowsOfTheArticleCase) {
  AppState state = state_on("uniform-64x512", View::masks);
  const Image image = window->render_offscreen(state, 1280, 800);
  const ScenarioModel& model = state.model();
  const MaskPlacement& packed = state.mask_placements[int(Implementation::packed)];
  ASSERT_GT(packed.side, 100);
  // Row 0, query 3000 (document 5) against key 700 (document 1): deep inside a bleed block.
  ASSERT_EQ(cell_kind(model.layouts->packed.view(), 0, 3000, 700), CellKind::bleed);
  const auto [x, y] = pixel_of(packed, 3000, 700);
  EXPECT_EQ(rgb_at(image, x, y), cell_kind_rgb(CellKind::bleed));
  // The same place in the varlen picture lies between rows: no score matrix.
  const auto [vx, vy] = pixel_of(state.mask_placements[int(Implementation::varlen)], 3000, 700);
  EXPECT_EQ(rgb_at(image, vx, vy), paint_rgb(PaintClass::outside));
}

// Fit to the whole picture at 1280x720, each of naive's documents is about 5 px wide: its
// masked upper half still shows (a block of several kinds is painted pixel by pixel), where
// every block holding a useful cell used to be painted useful and no blue was left.
TEST(MaskView, NaivesMaskedHalfShowsAtFitAll) {
  AppState state = state_on("uniform-64x512", View::masks);
  const Image image = window->render_offscreen(state, 1280, 720);
  const MaskPlacement& naive = state.mask_placements[int(Implementation::naive)];
  ASSERT_GT(naive.cells_per_bin, 64);  // well under a pixel per cell
  long long useful = 0, masked = 0;
  for (int y = int(naive.y); y < int(naive.y + naive.side); ++y)
    for (int x = int(naive.x); x < int(naive.x + naive.side); ++x) {
      useful += rgb_at(image, x, y) == cell_kind_rgb(CellKind::useful);
      masked += rgb_at(image, x, y) == cell_kind_rgb(CellKind::causal_masked);
    }
  EXPECT_GT(useful, 300);
  EXPECT_GT(masked, useful * 2 / 5) << useful << " useful pixels";  // before: 348 of 2,190
}

// Zoomed so that each cell is 4 pixels: sampling every cell's centre gives back
// exactly count_layout's counts, kind by kind, for each implementation.
TEST(MaskView, PaintedCellsCountExactlyWhatCountLayoutCounts) {
  AppState state = state_on("uniform-64x512", View::masks);
  ASSERT_TRUE(set_length_source_kind(state, "list"));
  ASSERT_TRUE(set_length_list(state, "5, 40, 20, 3"));
  ASSERT_TRUE(set_field(state, *find_scenario_field("row length"), 32));
  ASSERT_TRUE(set_tile(state, {16, 16}));
  for (MaskViewport& vp : state.mask_viewports) vp = {0, 0, 4.0};
  const ScenarioModel& model = state.model();
  std::map<Rgb, PaintClass> kind_of_colour;
  for (int c = 0; c < paint_class_count; ++c) kind_of_colour[paint_rgb(PaintClass(c))] = PaintClass(c);
  for (Implementation impl : all_implementations) {
    SCOPED_TRACE(implementation_name(impl));
    state.mask_focus = int(impl);  // drawn alone, as the "show" choice does
    const Image image = window->render_offscreen(state, 1400, 1300);
    const MaskPlacement& p = state.mask_placements[int(impl)];
    ASSERT_EQ(p.cells_per_bin, 1);
    const MaskPicture picture(model.layout_of(impl), model.tile_of(impl));
    ASSERT_LE(picture.query_extent() * p.pixels_per_cell, p.side) << "the picture must fit the panel";
    ASSERT_LE(picture.key_extent() * p.pixels_per_cell, p.side);
    CellCounts painted;
    std::int64_t not_visited = 0, unknown = 0;
    for (std::int64_t q = 0; q < picture.query_extent(); ++q)
      for (std::int64_t k = 0; k < picture.key_extent(); ++k) {
        const auto [x, y] = pixel_of(p, q, k);
        const auto found = kind_of_colour.find(rgb_at(image, x, y));
        if (found == kind_of_colour.end()) {
          ++unknown;
        } else if (found->second == PaintClass::not_visited) {
          ++not_visited;
        } else if (found->second != PaintClass::outside) {
          painted.add(static_cast<CellKind>(found->second));
          EXPECT_EQ(static_cast<CellKind>(found->second), picture.cell_at(q, k).kind) << "q " << q << " k " << k;
        }
      }
    EXPECT_EQ(unknown, 0);
    EXPECT_EQ(painted, count_layout(model.layout_of(impl), model.tile_of(impl)));
    EXPECT_EQ(painted.computed() + not_visited,
              picture.count_region(0, picture.query_extent(), 0, picture.key_extent()).computed.computed() +
                  picture.count_region(0, picture.query_extent(), 0, picture.key_extent()).not_visited);
  }
}

TEST(MaskView, PaddingOfAPaddedRowIsPaintedAsPadding) {
  AppState state = state_on("uniform-64x512", View::masks);
  ASSERT_TRUE(set_length_source_kind(state, "list"));
  ASSERT_TRUE(set_length_list(state, "100, 400"));
  const Image image = window->render_offscreen(state, 1280, 800);
  const ScenarioModel& model = state.model();
  // Row 0 holds 100 tokens padded to 400: query 300 is a pad query (visited tile 4, 0).
  const MaskPicture picture(model.layouts->padded, model.tile);
  ASSERT_EQ(picture.cell_at(300, 32).kind, CellKind::padding);
  const auto [x, y] = pixel_of(state.mask_placements[int(Implementation::padded)], 300, 32);
  EXPECT_EQ(rgb_at(image, x, y), cell_kind_rgb(CellKind::padding));
  // naive computes the masked upper triangle of each padded row; padded skips those tiles.
  const std::int64_t row1 = picture.row_query_offset(1);
  const MaskPicture naive(model.layouts->padded, model.tile_of(Implementation::naive));
  const std::int64_t naive_row1 = naive.row_query_offset(1);
  ASSERT_EQ(naive.cell_at(naive_row1 + 132, naive_row1 + 332).kind, CellKind::causal_masked);
  const auto [nx, ny] = pixel_of(state.mask_placements[int(Implementation::naive)], naive_row1 + 132, naive_row1 + 332);
  EXPECT_EQ(rgb_at(image, nx, ny), cell_kind_rgb(CellKind::causal_masked));
  const auto [px, py] = pixel_of(state.mask_placements[int(Implementation::padded)], row1 + 32, row1 + 300);
  EXPECT_EQ(rgb_at(image, px, py), paint_rgb(PaintClass::not_visited));
}

TEST(TimingsView, BrokenResultsFileIsShownNotFatal) {
  const auto folder = unique_temp_path("render-results");
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  ResultRow r = our_row("varlen", 500);
  r.computed_tflops = 150;
  r.hbm_bytes_model = 1480000000;
  write_results_csv(folder / "good.csv", {r});
  std::ofstream(folder / "broken.csv") << "scenario,implementation\n\"unterminated\n";
  AppState state = state_on("uniform-64x512", View::timings);
  state.results.load_folder(folder);
  ASSERT_EQ(state.results.loaded().problems.size(), 1u);
  const Image image = window->render_offscreen(state, 1280, 800);
  EXPECT_EQ(state.view, View::timings);
  EXPECT_EQ(image.width, 1280);
  std::filesystem::remove_all(folder);
}

// A quick click (press and release queued between the same two frames, as the window's
// input callback queues them when a frame is slow or the window slept) selects the tab.
TEST(Window, AClickWhosePressAndReleaseComeInOneFrameIsNotLost) {
  AppState state = state_on("uniform-64x512", View::scenario);
  window->render_offscreen(state, 1280, 800);
  ASSERT_EQ(state.view, View::scenario);
  ImGuiTabBar* bar = views_tab_bar();
  ASSERT_NE(bar, nullptr);
  ASSERT_EQ(bar->Tabs.Size, int(view_list.size()));
  const ImGuiTabItem& masks = bar->Tabs[int(View::masks)];
  const ScreenPoint at{int(bar->BarRect.Min.x + masks.Offset + masks.Width / 2),
                       int((bar->BarRect.Min.y + bar->BarRect.Max.y) / 2)};
  window->press_mouse(0, true, at);
  window->press_mouse(0, false, at);
  window->render_offscreen(state, 1280, 800, 3, at);
  EXPECT_EQ(state.view, View::masks);
}

// The Costs view fills a large window: its bottom third holds the table and the IO call-out.
TEST(CostsView, TheBottomThirdOfALargeWindowIsNotEmpty) {
  AppState state = state_on("uniform-64x512", View::costs);
  state.results.load_folder(std::string(ATTNLAB_SOURCE_DIR) + "/results/h100");
  const Image image = window->render_offscreen(state, 1600, 1000);
  const Rgb background = rgb_at(image, image.width - 3, image.height - 3);
  long long drawn = 0, all = 0;
  for (int y = image.height * 2 / 3; y < image.height - 4; ++y)
    for (int x = 0; x < image.width; ++x, ++all) drawn += rgb_at(image, x, y) != background;
  EXPECT_GT(double(drawn) / double(all), 0.08) << drawn << " of " << all << " pixels drawn";
}

// The backward's memory bar of naive on one-doc-16384: the part the forward kept (S and
// P, model_bar's colour) then the backward's own (lighter), side by side on one pixel
// row and nowhere else; their widths split as core/cost/backward_cost's figures do.
TEST(CostsView, NaivesBackwardMemoryBarSplitsAsTheModel) {
  AppState state = state_on("one-doc-16384", View::costs);
  state.pass = Pass::bwd;
  const Image image = window->render_offscreen(state, 1600, 1000);
  const ScenarioModel& model = state.model();
  const Rgb kept = rgb_of(model_bar), workspace = rgb_of(backward_bar);
  int best_kept = 0, best_workspace = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width;) {
      int k = 0, w = 0;
      while (x + k < image.width && rgb_at(image, x + k, y) == kept) ++k;
      while (x + k + w < image.width && rgb_at(image, x + k + w, y) == workspace) ++w;
      if (k > 0 && w > 0 && k + w > best_kept + best_workspace) best_kept = k, best_workspace = w;
      x += std::max(1, k + w);
    }
  ASSERT_GT(best_kept + best_workspace, 600) << "no wide two-part bar found";
  const double shown = double(best_kept) / double(best_kept + best_workspace);
  const double model_share = double(model.costs[Implementation::naive].extra_memory_bytes) /
                             double(model.backward_of(Implementation::naive).extra_memory_bytes);
  EXPECT_NEAR(shown, model_share, 2.0 / (best_kept + best_workspace));
  // The forward's half draws no such bar.
  state.pass = Pass::fwd;
  const Image forward = window->render_offscreen(state, 1600, 1000);
  long long lighter = 0;
  for (int y = 0; y < forward.height; ++y)
    for (int x = 0; x < forward.width; ++x) lighter += rgb_at(forward, x, y) == workspace;
  EXPECT_EQ(lighter, 0);
}

// The rows (headers included) of each table the last frame drew, by its number of columns.
std::multimap<int, int> tables_drawn() {
  std::multimap<int, int> rows;
  for (const ImGuiTable* t : tables_of_last_frame()) rows.emplace(t->ColumnsCount, t->CurrentRow + 1);
  return rows;
}

// The backward choice with a file that holds both passes of varlen and only the forward
// of packed: the forward + backward table (7 columns) lists both, one row each, and
// only under the backward choice.
TEST(TimingsView, BackwardChoiceListsEveryPairMissingPassesIncluded) {
  const auto folder = unique_temp_path("render-bwd");
  std::filesystem::remove_all(folder);
  ResultRow bwd = our_row("varlen", 2009);
  bwd.pass = Pass::bwd;
  bwd.useful_tflops = 85;
  write_results_csv(folder / "attnlab-run.csv", {our_row("varlen", 380), bwd, our_row("packed", 2234)});
  AppState state = state_on("uniform-64x512", View::timings);
  state.pass = Pass::bwd;
  state.results.load_folder(folder);
  window->render_offscreen(state, 1280, 800);
  EXPECT_EQ(state.view, View::timings);
  const std::multimap<int, int> backward = tables_drawn();
  ASSERT_EQ(backward.count(7), 1u);
  EXPECT_EQ(backward.find(7)->second, 1 + 2);  // the headers, varlen, packed
  EXPECT_EQ(backward.find(9)->second, 1 + 1);  // the backward rows: varlen alone
  state.pass = Pass::fwd;
  window->render_offscreen(state, 1280, 800);
  EXPECT_EQ(tables_drawn().count(7), 0u);
  std::filesystem::remove_all(folder);
}

// On the shipped results the backward choice sums our forward and backward as it does FA2's: each
// of our kernels' packed and varlen rows in the forward + backward table shows its sum, drawn whole
// (every row of ours read "two builds" before the one-build files shipped).
TEST(TimingsView, OurKernelsPassesAreSummedOnTheShippedResults) {
  AppState state = make_app_state("uniform-64x512", std::string(ATTNLAB_SOURCE_DIR) + "/results/h100");
  state.view = View::timings;
  state.view_requested = true;
  state.pass = Pass::bwd;
  hidden_window().render_offscreen(state, 1920, 2400);
  const std::vector<DrawnLine> lines = drawn_lines();
  int summed = 0;
  for (const PassPair& p : pass_pairs(state.results.loaded(), own_configuration(state.scenario, Pass::bwd))) {
    if (p.source != "attnlab" || p.implementation == "naive" || p.implementation == "padded") continue;
    SCOPED_TRACE(p.kernel + " " + p.implementation);
    ASSERT_TRUE(p.sum_us());
    EXPECT_TRUE(drawn_whole(lines, format_us(*p.sum_us())));
    ++summed;
  }
  EXPECT_EQ(summed, 4);  // two kernels, packed and varlen
}

// Our rows of two flash kernels and a peer's: the results table lists each
// (implementation, kernel) as its own row, with a "time / varlen" column per kernel
// (5 fixed + 2 + 3 columns), and each source's ratios list each kernel of ours.
TEST(TimingsView, BothKernelsRowsStandSideBySide) {
  const auto folder = unique_temp_path("render-kernels");
  std::filesystem::remove_all(folder);
  ResultRow fa2 = our_row("varlen", 468);
  fa2.source = "torch-varlen_attn";
  write_results_csv(
      folder / "attnlab-bench.csv",
      {our_row("naive", 1749, "cublas"), our_row("packed", 1300, "wgmma-sm90"), our_row("varlen", 230, "wgmma-sm90"),
       our_row("packed", 2234, "mma-sm80"), our_row("varlen", 376, "mma-sm80"), fa2});
  AppState state = state_on("uniform-64x512", View::timings);
  state.results.load_folder(folder);
  window->render_offscreen(state, 1280, 800);
  EXPECT_EQ(state.view, View::timings);
  const std::multimap<int, int> tables = tables_drawn();
  ASSERT_EQ(tables.count(10), 1u);
  EXPECT_EQ(tables.find(10)->second, 1 + 6);  // the headers; naive, two kernels' packed and varlen, FA2's varlen
  ASSERT_EQ(tables.count(4), 1u);
  EXPECT_EQ(tables.find(4)->second, 1 + 2 + 3);  // the headers, the model's two rows, ours twice, FlashAttention-2
  std::filesystem::remove_all(folder);
}

// With one flash kernel of ours, the view is pixel for pixel the one of the same rows
// without a kernel column: below the header, which names the kernel "ours" is.
TEST(TimingsView, OneKernelLooksAsAFileWithoutKernels) {
  const auto folder = unique_temp_path("render-one-kernel");
  const auto render = [&](const char* kernel, const char* naive_kernel) {
    std::filesystem::remove_all(folder);
    ResultRow fa2 = our_row("varlen", 468);
    fa2.source = "torch-varlen_attn";
    write_results_csv(
        folder / "attnlab-bench.csv",
        {our_row("naive", 1749, naive_kernel), our_row("packed", 2234, kernel), our_row("varlen", 376, kernel), fa2});
    AppState state = state_on("uniform-64x512", View::timings);
    state.results.load_folder(folder);
    Image image = window->render_offscreen(state, 1280, 800);
    EXPECT_EQ(tables_drawn().count(9), 1u);  // one "time / our varlen" column
    return image;
  };
  const Image without = render("", ""), with = render("mma-sm80", "cublas");
  const std::size_t below_header = std::size_t(with.width) * 4 * 32;  // the header line: 32 px
  ASSERT_EQ(with.rgba.size(), without.rgba.size());
  EXPECT_FALSE(std::equal(with.rgba.begin(), with.rgba.begin() + std::ptrdiff_t(below_header), without.rgba.begin()));
  EXPECT_TRUE(std::equal(with.rgba.begin() + std::ptrdiff_t(below_header), with.rgba.end(),
                         without.rgba.begin() + std::ptrdiff_t(below_header)));
  std::filesystem::remove_all(folder);
}

// The walkthrough's close-up draws each cell in its own kind: the diagonal tile the
// default step loads (packed row 0, query tile 9, its tenth key tile) is half useful and
// half causal_masked, which a tile painted in one colour would hide.
TEST(WalkthroughView, TheDiagonalTileShowsItsMaskedHalf) {
  AppState state = state_on("uniform-64x512", View::walkthrough);
  const Image image = window->render_offscreen(state, 1280, 800);
  long long masked = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) masked += rgb_at(image, x, y) == cell_kind_rgb(CellKind::causal_masked);
  EXPECT_GT(masked, 2016 * 4 * 9 / 10);  // 2016 masked cells of 2 x 2 pixels, less the outline over them
}

// Under a window the query tile's first key tile is not tile 0: the tile of this step is
// still outlined in yellow (it was not, the outline counting from tile 0).
TEST(WalkthroughView, ThisStepsTileIsOutlinedUnderAWindow) {
  AppState state = state_on("uniform-64x512-rows-2048-window512", View::walkthrough);
  const Image image = window->render_offscreen(state, 1280, 800);
  const WalkthroughState& w = state.walkthrough;
  EXPECT_GT(key_tiles_visited(state.model().layout_of(w.implementation).view(), state.tile, w.row, w.query_tile).first,
            0);
  long long yellow = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) yellow += rgb_at(image, x, y) == Rgb{255, 230, 60};
  EXPECT_GT(yellow, 200);  // the row picture's and the close-up's frames, 3 px wide
}

TEST(Headless, ScreenshotCommandWritesAPng) {
  const auto png = unique_temp_path("headless.png");
  std::filesystem::remove(png);
  const std::string command =
      std::string(ATTNLAB_GUI_EXE) + " --screenshot " + png.string() + " --view costs --size 640x400 > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_GT(std::filesystem::file_size(png), 1000u);
  std::filesystem::remove(png);
}

// The Story opens each step's own scenario: a scenarios folder holding only nanochat-d24
// still shows step 8, and step 1, whose scenario is missing, is refused naming it.
TEST(Headless, TheStoryNeedsOnlyItsStepsScenario) {
  const auto folder = unique_temp_path("scenarios-without-the-default");
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::filesystem::copy_file(std::string(ATTNLAB_SOURCE_DIR) + "/scenarios/nanochat-d24.toml",
                             folder / "nanochat-d24.toml");
  const auto png = folder / "story-8.png";
  const std::string gui = "ATTNLAB_SCENARIOS=" + folder.string() + " " + ATTNLAB_GUI_EXE + " --size 640x400";
  EXPECT_EQ(std::system((gui + " --story-step 8 --screenshot " + png.string() + " > /dev/null").c_str()), 0);
  EXPECT_GT(std::filesystem::file_size(png), 1000u);
  const std::string missing = (folder / "missing.txt").string();
  const int status =
      std::system((gui + " --story-step 1 --screenshot " + png.string() + " > " + missing + " 2>&1").c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2);
  std::ifstream said(missing);
  const std::string line((std::istreambuf_iterator<char>(said)), std::istreambuf_iterator<char>());
  EXPECT_NE(line.find("uniform-64x512"), std::string::npos) << line;
  std::filesystem::remove_all(folder);
}

// The columns of the Context parallel view's one table (its ranks) in the last frame drawn.
int cp_rank_table_columns() {
  const std::vector<const ImGuiTable*> tables = tables_of_last_frame();
  return tables.size() == 1 ? tables.front()->ColumnsCount : -int(tables.size());
}

// The shipped measured ranks stand beside the model: web-mix-2048 over 4 ranks by zigzag has a
// column per run in results/h200 (ring on one GPU and over 4 with NCCL's staging, registered
// buffers and three ring buffers; all-gather on one GPU, staged and registered); over 3 ranks,
// where no run ships, one column says "not measured".
TEST(ContextParallelView, MeasuredRunsStandBesideTheModel) {
  AppState state = make_app_state("web-mix-2048", std::string(ATTNLAB_SOURCE_DIR) + "/results/h200");
  state.view = View::context_parallel;
  state.cp_strategy = CpStrategy::zigzag;
  state.cp_ranks = 4;
  window->render_offscreen(state, 1600, 900);
  EXPECT_EQ(cp_rank_table_columns(), 8 + 7);
  state.cp_ranks = 3;
  window->render_offscreen(state, 1600, 900);
  EXPECT_EQ(cp_rank_table_columns(), 8 + 1);
}

// Every step's paragraph fits its box at 1920x1080 (step 10's overflowed a box of 4.6 lines),
// and at 1280x720 steps 9 and 10 keep their framed bars in sight, step 10 its 1.8% (the
// article's bar, the chain's last) among them.
TEST(StoryView, ParagraphsFitAndFramedBarsAreInSight) {
  AppState state = make_app_state("", std::string(ATTNLAB_SOURCE_DIR) + "/results/h100");
  for (int step = 0; step < story_step_count; ++step) {
    SCOPED_TRACE(step + 1);
    open_story_step(state, step);
    window->render_offscreen(state, 1920, 1080);
    int paragraphs = 0;
    for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
      if (std::string_view(w->Name).find("/paragraph_") != std::string_view::npos && w->Active) {
        EXPECT_EQ(w->ScrollMax.y, 0) << w->Name;
        ++paragraphs;
      }
    EXPECT_EQ(paragraphs, 1);
  }
  for (int step : {8, 9}) {
    SCOPED_TRACE(step + 1);
    open_story_step(state, step);
    const Image image = window->render_offscreen(state, 1280, 720);
    EXPECT_GT(pixels_of(image, Rgb{110, 85, 20}), 20000);  // the framed bars' rows
  }
  const Image last = window->render_offscreen(state, 1280, 720);
  EXPECT_GT(pixels_of(last, Rgb{150, 120, 200}), 300);  // the article's bar
}

// The Story is the first tab and opens its own scenario when drawn: a view asked for at
// start (--view masks --scenario long-tail) must open on its own, the Story never drawn.
TEST(StoryView, AViewAskedForKeepsItsScenario) {
  AppState state = state_on("long-tail", View::masks);
  window->render_offscreen(state, 1280, 800);
  EXPECT_EQ(state.view, View::masks);
  EXPECT_EQ(state.scenario.name, "long-tail");
  // The Story itself opens its step's scenario, and frames the step's figure.
  state.view = View::story;
  state.view_requested = true;
  const Image story = window->render_offscreen(state, 1280, 800);
  EXPECT_EQ(state.scenario.name, "uniform-64x512");
  long long framed = 0;
  for (int y = 0; y < story.height; ++y)
    for (int x = 0; x < story.width; ++x) framed += rgb_at(story, x, y) == Rgb{255, 205, 60};
  EXPECT_GT(framed, 500);  // the frame around packed's picture
}

}  // namespace

GuiWindow& hidden_window() { return *window; }

}  // namespace attnlab::gui

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new attnlab::gui::HiddenWindow);
  return RUN_ALL_TESTS();
}
