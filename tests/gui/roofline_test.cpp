// The roofline puts no point above its roof: every run of the shipped results, and a
// run whose model bytes would have put it there. Labels never overlap. Implementation
// colours never pass for a cell kind's.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <stdexcept>

#include <toml++/toml.h>

#include "analysis/roofline.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/app/scenario_model.hpp"
#include "gui/views/timings/label_placement.hpp"
#include "gui/widgets/implementation_colors.hpp"
#include "shipped_results.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::gui {
namespace {

// The shipped folder's roofs, as the GUI loads them.
Ceilings shipped_ceilings() {
  const LoadedResults results = shipped_results();
  if (!results.ceilings) throw std::runtime_error(shipped_results_folder + ": no ceilings.toml loaded");
  return *results.ceilings;
}

// One figure for each ceiling: the roofline's are the results folder's ceilings.toml's.
TEST(Roofline, TheCeilingsAreTheResultsFoldersOwn) {
  const toml::table t = toml::parse_file(shipped_results_folder + "/ceilings.toml");
  const Ceilings c = shipped_ceilings();
  EXPECT_EQ(t["gemm_bf16"]["tflops"].value<double>(), c.tflops);
  EXPECT_EQ(t["copy"]["tbps"].value<double>(), c.tbps);
}

TEST(Roofline, NoShippedRunIsPlottedAboveItsRoof) {
  const LoadedResults results = shipped_results();
  const Ceilings ceilings = *results.ceilings;
  const std::vector<MeasuredRun> runs = primary_runs(results, [](const ResultRow&) { return true; });
  int points = 0, peers = 0, on_measured_bytes = 0;
  for (const MeasuredRun& run : runs)
    for (const RooflinePoint& p : roofline_points(run)) {
      SCOPED_TRACE(run.primary.row->scenario + " " + run.primary.row->source + " " + run.primary.row->implementation);
      EXPECT_LE(p.tflops, ceilings.roof_tflops(p.flops_per_byte) * (1 + 1e-9));
      ++points;
      peers += run.primary.row->source != "attnlab";
      on_measured_bytes += p.bytes == BytesBasis::measured;
    }
  EXPECT_GT(points, 100);
  EXPECT_GT(peers, 50);              // the peers are plotted too
  EXPECT_GT(on_measured_bytes, 40);  // our bench rows carry ncu's bytes
}

// uniform-64x512's packed run as a row without ncu's bytes: at the model's 8.99 GB it
// would sit at 62 FLOPs per byte, under a roof of 186 TFLOP/s, while it ran at 250.
TEST(Roofline, ARunWithoutMeasuredBytesSitsAtTheLeastBytesNeverTheModels) {
  const Ceilings ceilings = shipped_ceilings();
  ResultRow r = our_row("packed", 2234);
  r.tokens = 32768;
  r.kv_heads = 16;
  r.computed_tflops = 250;
  r.useful_tflops = 30.8;
  r.hbm_bytes_model = 8994684928;
  const double flops = 250e12 * 2234e-6;
  ASSERT_GT(250, ceilings.roof_tflops(flops / double(*r.hbm_bytes_model)));
  ResultsFile file{"x.csv", {r}};
  const MeasuredRun run{{&file.rows[0], &file.path}, {}};
  EXPECT_EQ(least_bytes(r), 536870912);  // Q, K, V, O: 32768 tokens x 16 heads x 128 x 2 bytes each
  const std::vector<RooflinePoint> points = roofline_points(run);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].flops, FlopsBasis::computed);
  EXPECT_EQ(points[1].flops, FlopsBasis::useful);
  for (const RooflinePoint& p : points) {
    EXPECT_EQ(p.bytes, BytesBasis::lower_bound);
    EXPECT_EQ(p.bytes_from, nullptr);
    EXPECT_LE(p.tflops, ceilings.roof_tflops(p.flops_per_byte));
  }
  EXPECT_NEAR(points[0].flops_per_byte, flops / 536870912.0, 1e-6);
  // With ncu's bytes in a later run of the same configuration, those are used.
  ResultRow measured = r;
  measured.hbm_bytes_measured = 3046816256;
  ResultsFile later{"y.csv", {measured}};
  const MeasuredRun both{{&file.rows[0], &file.path}, {{&later.rows[0], &later.path}}};
  const std::vector<RooflinePoint> placed = roofline_points(both);
  ASSERT_EQ(placed.size(), 2u);
  EXPECT_EQ(placed[0].bytes, BytesBasis::measured);
  EXPECT_EQ(placed[0].bytes_from, &both.others[0]);
  EXPECT_NEAR(placed[0].flops_per_byte, flops / 3046816256.0, 1e-6);
}

// Naive writes its N^2 matrices to HBM and reads them back: its least bytes count them. The
// shipped backward of one-doc-16384 has no ncu bytes; at Q, K, V, O and their gradients alone
// it sat at about 10,000 FLOPs per byte, while its model moves 73.1 GiB (about 60). Now it
// sits right of the model's intensity (a lower bound on bytes) but within twice it.
TEST(Roofline, NaivesLeastBytesCountItsScoreMatrices) {
  const LoadedResults results = shipped_results();
  const Configuration c{"one-doc-16384", DType::bf16, 16, 128, true, Pass::bwd};
  const std::optional<MeasuredRun> naive = find_run(results, c, "attnlab", "naive");
  ASSERT_TRUE(naive);
  ASSERT_FALSE(naive->with_measured_bytes());
  const ScenarioModel model = build_model(load_scenario("one-doc-16384"), {64, 64});
  const BackwardCost& b = model.backward_of(Implementation::naive);
  const double model_intensity = double(b.flops) / double(b.hbm.total());
  for (const RooflinePoint& p : roofline_points(*naive)) {
    if (p.flops != FlopsBasis::computed) continue;
    EXPECT_EQ(p.bytes, BytesBasis::lower_bound);
    EXPECT_GE(p.flops_per_byte, model_intensity * 0.99);
    EXPECT_LE(p.flops_per_byte, model_intensity * 2);
  }
  // A peer's naive row names no scores computed: its useful scores bound the matrices.
  ResultRow eager = peer_row("torch-eager-padded", "naive", 3114);
  eager.tokens = 32768;
  eager.kv_heads = 16;
  eager.scores_useful = 134479872;
  EXPECT_EQ(least_bytes(eager), 536870912 + 134479872LL * 4 * 2);
  eager.scores_useful.reset();
  EXPECT_FALSE(least_bytes(eager));
}

TEST(Roofline, LabelsOverlapNoOtherLabelMarkerOrText) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> x(0, 600), y(0, 400);
  std::vector<Box> markers;
  std::vector<std::pair<float, float>> sizes;
  for (int i = 0; i < 60; ++i) {
    const float cx = x(random), cy = y(random);
    markers.push_back({cx - 5, cy - 5, cx + 5, cy + 5});
    sizes.push_back(i % 7 == 0 ? std::pair{0.0f, 0.0f} : std::pair{90.0f, 16.0f});
  }
  const std::vector<Box> text = {{300, 0, 420, 18}};
  const Box area{0, 0, 600, 400};
  const std::vector<std::optional<Box>> labels = place_labels(markers, sizes, text, area, 2);
  ASSERT_EQ(labels.size(), markers.size());
  int placed = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (!labels[i]) continue;
    ++placed;
    EXPECT_NE(sizes[i].first, 0.0f) << "a label that was not asked for";
    EXPECT_TRUE(labels[i]->inside(area));
    EXPECT_FALSE(labels[i]->overlaps(text[0]));
    for (const Box& m : markers) EXPECT_FALSE(labels[i]->overlaps(m));
    for (std::size_t j = i + 1; j < labels.size(); ++j) {
      if (labels[j]) {
        EXPECT_FALSE(labels[i]->overlaps(*labels[j])) << i << " and " << j;
      }
    }
  }
  EXPECT_GT(placed, 20);
}

// Two runs at one spot (our padded and varlen of one kernel): the marker drawn last is the
// one seen, so only it is labelled; a label of the hidden one would name the wrong colour.
TEST(Roofline, AMarkerUnderALaterOneGetsNoLabel) {
  const std::vector<Box> markers = {{100, 100, 110, 110}, {101, 100, 111, 110}, {300, 200, 310, 210}};
  const std::vector<std::pair<float, float>> sizes(3, {60.0f, 14.0f});
  const std::vector<std::optional<Box>> labels = place_labels(markers, sizes, {}, {0, 0, 600, 400}, 2);
  EXPECT_FALSE(labels[0]);
  EXPECT_TRUE(labels[1]);
  EXPECT_TRUE(labels[2]);
}

// The roof's labels go to the first place no marker takes (the 756 TFLOP/s label drawn under
// the points near the ridge could not be read).
TEST(Roofline, ARoofLabelTakesTheFirstFreePlace) {
  const std::vector<Box> candidates = {{100, 100, 180, 114}, {150, 100, 230, 114}, {200, 100, 280, 114}};
  EXPECT_EQ(first_free(candidates, {{120, 105, 130, 115}}, {0, 0, 600, 400})->x0, 150);
  EXPECT_EQ(first_free(candidates, {{120, 105, 130, 115}, {160, 90, 170, 100.5f}}, {0, 0, 600, 400})->x0, 200);
  EXPECT_FALSE(first_free(candidates, {{0, 0, 600, 400}}, {0, 0, 600, 400}));
}

TEST(ImplementationColors, StayClearOfEveryCellKindColour) {
  for (Implementation i : all_implementations)
    for (int c = 0; c < paint_class_count; ++c) {
      const Rgb a = implementation_rgb(i), b = paint_rgb(static_cast<PaintClass>(c));
      const double distance = std::hypot(double(a[0] - b[0]), double(a[1] - b[1]), double(a[2] - b[2]));
      EXPECT_GT(distance, 100) << implementation_name(i) << " against "
                               << paint_class_label(static_cast<PaintClass>(c));
    }
}

// The families' shapes come from their place in the families file: each listed family its own.
TEST(Roofline, EachFamilyHasItsOwnMarker) {
  std::set<MarkerShape> shapes;
  for (const SourceFamily& f : source_families()) shapes.insert(family_marker(&f));
  EXPECT_EQ(shapes.size(), source_families().size());
}

}  // namespace
}  // namespace attnlab::gui
