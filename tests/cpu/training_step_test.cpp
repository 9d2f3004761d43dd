#include "core/cost/training_step.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "analysis/step_chain.hpp"
#include "analysis/step_times.hpp"
#include "core/cost/step_bytes.hpp"
#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/test_rows.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

Scenario uniform(int count, int length, int row_len, int heads = 16) {
  Scenario s;
  s.name = "uniform";
  s.heads = s.kv_heads = heads;
  s.head_dim = 128;
  s.row_len = row_len;
  s.length_source = UniformLengths{count, length};
  s.resolve();
  return s;
}

Scenario nanochat_d24() {
  return load_scenario((fs::path(ATTNLAB_SOURCE_DIR) / "scenarios" / "nanochat-d24.toml").string());
}

// nanochat's d24 written out from its code: width 1536, 12 heads of 128, MLP 4x,
// vocabulary 32768, sequence 2048, windows SSSL with the last layer long.
TEST(TrainingStep, D24MatchesNanochatsFormulaWorkedByHand) {
  const Scenario s = nanochat_d24();
  ASSERT_TRUE(s.model.has_value());
  const TrainingStep step = model_training_step(s, *s.model);

  // Per block: Q, K, V, output 4 x 1536^2, MLP 2 x 1536 x 6144; LM head 1536 x 32768.
  const double blocks = 24.0 * (4.0 * 1536 * 1536 + 2.0 * 1536 * 6144);
  const double lm_head = 1536.0 * 32768;
  EXPECT_EQ(double(step.matrix_params), blocks + lm_head);
  EXPECT_EQ(step.matrix_params, 729808896);

  // Layers 3, 7, ..., 23 are L (23 also as the last): 6 long, 18 short.
  EXPECT_EQ(step.layers[int(LayerKind::long_context)], 6);
  EXPECT_EQ(step.layers[int(LayerKind::short_window)], 18);

  const double attention = 12.0 * 12 * 128 * (18 * 512 + 6 * 2048);
  const double expected = 6.0 * (blocks + lm_head) + attention;
  EXPECT_NEAR(step.nanochat_flops_per_token, expected, expected * 1e-3);
  EXPECT_NEAR(step.nanochat_flops_per_token, 4.775e9, 4.775e9 * 1e-3);  // the figure
  EXPECT_NEAR(attention / step.nanochat_flops_per_token, 0.083, 0.083 * 1e-3);

  // Packed rows of 2048 = seq_len, every row full: the full-squares column is nanochat's estimate.
  const StepCost& packed = step[Implementation::packed];
  EXPECT_NEAR(packed.step_full_squares(), expected, expected * 1e-9);
  EXPECT_NEAR(packed.attention_share_full_squares(), attention / expected, 1e-9);
  EXPECT_NEAR(packed.matrix.fwd, 2.0 * (blocks + lm_head), 1e-3);
  EXPECT_NEAR(packed.matrix.bwd, 4.0 * (blocks + lm_head), 1e-3);

  // Varlen over documents of 512: every layer sees min(window, 512) = 512 keys per token.
  const double varlen_attention = 12.0 * 12 * 128 * 24 * 512;
  EXPECT_NEAR(step[Implementation::varlen].attention_full_squares.step(), varlen_attention, 1e-3);
  EXPECT_NEAR(step.saving_full_squares(), (attention - varlen_attention) / expected, 1e-12);

  // Computed, long layers: a causal row of 2048 at 64 x 64 tiles visits 32 * 33 / 2 tiles of 4096 cells,
  // 1056 scores per token and head; a document of 512, 8 * 9 / 2 tiles, 288. Forward 4 * 128 FLOPs a score.
  const auto long_layer = int(LayerKind::long_context);
  EXPECT_NEAR(packed.computed_per_layer[long_layer].fwd, 1056.0 * 12 * 4 * 128, 1e-6);
  EXPECT_NEAR(packed.computed_per_layer[long_layer].bwd, 2.5 * 1056.0 * 12 * 4 * 128, 1e-6);
  EXPECT_NEAR(step[Implementation::varlen].computed_per_layer[long_layer].fwd, 288.0 * 12 * 4 * 128, 1e-6);

  // Short layers, window_size (512, 0): query tile qt of a row of 2048 visits key tiles qt - 8 .. qt
  // (qt + 1 of them for qt < 8): 36 + 24 * 9 = 252 tiles a row, 504 scores per token and head. A
  // document of 512 is covered by the window: 288 as before. Cell by cell, a row lets through
  // 1 + 2 + ... + 512 + 1536 * 513 = 919,296 cells, 448.875 a token, a document 513 / 2.
  const auto short_layer = int(LayerKind::short_window);
  const StepCost& varlen = step[Implementation::varlen];
  EXPECT_NEAR(packed.computed_per_layer[short_layer].fwd, 504.0 * 12 * 4 * 128, 1e-6);
  EXPECT_NEAR(varlen.computed_per_layer[short_layer].fwd, 288.0 * 12 * 4 * 128, 1e-6);
  EXPECT_NEAR(packed.attended_per_layer[short_layer], 448.875 * 12, 1e-9);
  EXPECT_NEAR(varlen.attended_per_layer[short_layer], 256.5 * 12, 1e-9);
  // The step as computed: attention forward + backward is 3.5x the forward.
  const double packed_attention = (18 * 504.0 + 6 * 1056.0) * 12 * 4 * 128 * 3.5;
  const double varlen_attention_computed = 24 * 288.0 * 12 * 4 * 128 * 3.5;
  EXPECT_NEAR(packed.attention_computed.step(), packed_attention, 1e-3);
  EXPECT_NEAR(step.saving_computed(),
              (packed_attention - varlen_attention_computed) / (6.0 * (blocks + lm_head) + packed_attention), 1e-12);
}

TEST(TrainingStep, ArticlesThreeCountsExactly) {
  const std::vector<int> docs(64, 512);
  const ArticleCounts at_2048 = article_counts(docs, 2048);
  EXPECT_EQ(at_2048.rows_full_squares, 16LL * 2048 * 2048);  // 64M
  EXPECT_EQ(at_2048.rows_full_squares, 64LL << 20);
  EXPECT_EQ(at_2048.docs_full_squares, 64LL * 512 * 512);  // 16M; half of it is the article's "8M"
  EXPECT_EQ(at_2048.docs_full_squares / 2, 8LL << 20);
  EXPECT_EQ(at_2048.article_ratio(), 8.0);
  EXPECT_EQ(at_2048.same_counting_ratio(), 4.0);
  const ArticleCounts at_4096 = article_counts(docs, 4096);
  EXPECT_EQ(at_4096.rows_full_squares, 8LL * 4096 * 4096);
  EXPECT_EQ(at_4096.same_counting_ratio(), 8.0);
  // A last row holds what is left: 5 tokens in rows of 4 are a row of 4 and a row of 1.
  EXPECT_EQ(article_counts({3, 2}, 4).rows_full_squares, 16 + 1);
}

TEST(TrainingStep, LayerKindsFollowThePatternAndTheLastLayerIsLong) {
  ModelShape m;
  m.layers = 5;
  m.window_pattern = "SL";
  // S L S L, then the last layer L (the pattern would say S).
  EXPECT_EQ(layer_kind(m, 0), LayerKind::short_window);
  EXPECT_EQ(layer_kind(m, 1), LayerKind::long_context);
  EXPECT_EQ(layer_kind(m, 2), LayerKind::short_window);
  EXPECT_EQ(layer_kind(m, 4), LayerKind::long_context);
  EXPECT_EQ(layers_of_kind(m, LayerKind::short_window), 2);
  EXPECT_EQ(layers_of_kind(m, LayerKind::long_context), 3);
}

// The window in nanochat's count, by hand: one row of 8 and documents of 2 and 6, window 3.
TEST(TrainingStep, WindowCapsEachPositionsKeysInTheFullSquareCount) {
  const Layout row = make_packed_layout({2, 6}, 8, PackingPolicy::concatenate, true);
  const Layout docs = make_varlen_layout({2, 6}, true);
  EXPECT_EQ(full_square_scores(row, -1), 64);
  EXPECT_EQ(full_square_scores(row, 3), 8 * 3);
  EXPECT_EQ(full_square_scores(docs, -1), 4 + 36);
  EXPECT_EQ(full_square_scores(docs, 3), 2 * 2 + 6 * 3);
}

// The window in our count, by hand: one document of 8 tokens, causal, window_size (3, 0), tiles of 2 x 2.
// Query q attends keys max(0, q - 3) .. q: 1 + 2 + 3 + 4 + 4 + 4 + 4 + 4 = 26 cells. Query tile qt
// (queries 2qt, 2qt + 1) visits key tiles from (2qt - 3) / 2 (at least 0) to qt: 1 + 2 + 3 + 3 = 9 tiles,
// 36 cells; without the window 1 + 2 + 3 + 4 = 10 tiles and 36 attended cells.
TEST(TrainingStep, WindowShrinksALayersComputedScoresByHand) {
  Scenario s = uniform(1, 8, 8, 1);
  ModelShape m;
  m.heads = m.kv_heads = 1;
  m.head_dim = 2;
  m.layers = 2;
  m.window_pattern = "S";
  m.short_window = 3;
  const TrainingStep step = model_training_step(s, m, TileShape{2, 2});
  const StepCost& varlen = step[Implementation::varlen];
  const auto short_layer = int(LayerKind::short_window), long_layer = int(LayerKind::long_context);
  EXPECT_DOUBLE_EQ(varlen.attended_per_layer[short_layer], 26.0 / 8);
  EXPECT_DOUBLE_EQ(varlen.attended_per_layer[long_layer], 36.0 / 8);
  EXPECT_DOUBLE_EQ(varlen.computed_per_layer[short_layer].fwd, 9 * 4 * 4.0 * 2 / 8);  // 4 * D FLOPs per score
  EXPECT_DOUBLE_EQ(varlen.computed_per_layer[long_layer].fwd, 10 * 4 * 4.0 * 2 / 8);
  EXPECT_DOUBLE_EQ(varlen.full_squares_per_layer[short_layer].fwd, 8 * 3 * 4.0 * 2 / 8);  // min(3, 8) keys a position
  EXPECT_DOUBLE_EQ(varlen.full_squares_per_layer[long_layer].fwd, 8 * 8 * 4.0 * 2 / 8);
}

TEST(TrainingStep, PaddingRunsThroughTheMatrixProducts) {
  Scenario s = uniform(2, 3, 8);
  s.length_source = ListLengths{{3, 5}};
  s.resolve();
  ModelShape m;
  m.layers = 1;
  const TrainingStep step = model_training_step(s, m);
  const double p = double(matrix_params(m));
  EXPECT_NEAR(step[Implementation::varlen].matrix.fwd, 2 * p, 1e-3);
  EXPECT_NEAR(step[Implementation::padded].matrix.fwd, 2 * p * 10 / 8, 1e-3);  // two rows of 5 for 8 tokens
  EXPECT_NEAR(step[Implementation::packed].matrix.fwd, 2 * p, 1e-3);           // one full row of 8
}

TEST(TrainingStep, ModelTableRoundTripsThroughAScenarioFile) {
  const Scenario s = nanochat_d24();
  const fs::path file = fs::path(::testing::TempDir()) / "attnlab_step_round_trip.toml";
  save_scenario(s, file);
  const Scenario back = load_scenario(file.string());
  ASSERT_TRUE(back.model.has_value());
  EXPECT_EQ(*back.model, *s.model);
  fs::remove(file);
}

// The scenario file the test running now writes: one of its own, as CTest runs tests side by side.
fs::path bad_file() {
  return fs::path(::testing::TempDir()) /
         ("attnlab_step_bad_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".toml");
}

// The message of loading a scenario file that ends with `model_table` (after a `top_level` line, if any).
std::string load_error(const std::string& model_table, const std::string& top_level = "") {
  const fs::path file = bad_file();
  std::ofstream(file) << "why = \"x\"\nheads = 1\nhead_dim = 8\ndtype = \"bf16\"\ncausal = true\nrow_len = 8\n"
                      << top_level << "[documents]\nsource = \"uniform\"\ncount = 1\nlength = 8\n"
                      << model_table;
  try {
    load_scenario(file.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TrainingStep, BadModelTablesNameTheFileAndTheKey) {
  const std::string file = bad_file().string();
  const std::string good =
      "layers = 2\nwidth = 64\nheads = 2\nhead_dim = 32\nmlp_ratio = 4\nvocab = 100\n"
      "seq_len = 64\nshort_window = 16\n";
  EXPECT_EQ(load_error("[model]\n" + good), file +
                                                ": model.window_pattern: missing; expected letters S (short window) "
                                                "and L (long), e.g. \"SSSL\"");
  EXPECT_EQ(load_error("[model]\n" + good + "window_pattern = \"SXL\"\n"),
            file + ": model.window_pattern: expected 1 to 1024 letters S (short window) or L (long), got \"SXL\"");
  EXPECT_EQ(load_error("[model]\n" + good + "window_pattern = \"SL\"\nkv_heads = 3\n"),
            file + ": model.kv_heads: expected a positive divisor of heads (2), got 3");
  EXPECT_EQ(load_error("[model]\n" + good + "window_pattern = \"SL\"\ndepth = 3\n")
                .rfind(file + ": model.depth: unknown key", 0),
            0u);
  EXPECT_EQ(load_error("[model]\nlayers = 0\n"), file + ": model.layers: expected a positive integer, got 0");
  EXPECT_EQ(load_error("", "model = 3\n"), file + ": model: expected a [model] table, got 3");
  EXPECT_EQ(load_error("[model]\nlayers = \"many\"\n"),
            file + ": model.layers: expected a positive integer, got \"many\"");
}

// Past the scenario's own attention limits the step model would overflow: heads and head_dim
// of [model] are bounded as the scenario's are.
TEST(TrainingStep, ModelHeadsAndHeadDimStayInsideTheScenarioLimits) {
  const std::string file = bad_file().string();
  const std::string rest =
      "layers = 2\nwidth = 64\nmlp_ratio = 4\nvocab = 100\nseq_len = 64\nshort_window = 16\n"
      "window_pattern = \"SL\"\n";
  EXPECT_EQ(load_error("[model]\n" + rest + "heads = 1024\nhead_dim = 64\n"),
            file + ": model.heads: expected an integer from 1 to 128, got 1024");
  EXPECT_EQ(load_error("[model]\n" + rest + "heads = 2\nhead_dim = 1024\n"),
            file + ": model.head_dim: expected an integer from 1 to 256, got 1024");
}

// The largest [model] table the limits accept, over a batch of long rows: every figure of the
// step model is finite and positive, and attention's share is a share.
TEST(TrainingStep, LargestAcceptedModelGivesFiniteShares) {
  ModelShape m;
  m.layers = 1024;
  m.width = 65536;
  m.heads = m.kv_heads = 128;
  m.head_dim = 256;
  m.mlp_ratio = 64;
  m.vocab = 1 << 24;
  m.seq_len = 1 << 20;
  m.short_window = 1 << 20;
  m.window_pattern = "SL";
  check_model_shape(m, "largest");
  const TrainingStep step = model_training_step(uniform(4, 65536, 65536, 128), m, TileShape{});
  for (Implementation impl : all_implementations) {
    const StepCost& c = step[impl];
    for (const double share : {c.attention_share_full_squares(), c.attention_share_computed()}) {
      EXPECT_TRUE(std::isfinite(share)) << implementation_name(impl);
      EXPECT_GT(share, 0.0) << implementation_name(impl);
      EXPECT_LE(share, 1.0) << implementation_name(impl);
    }
    EXPECT_GT(c.step_computed(), 0.0);
    const StepBytes rest = step_bytes(m, c.positions);  // counted in doubles: no overflow at the limits
    EXPECT_TRUE(std::isfinite(rest.total()) && rest.elementwise > 0 && rest.loss > 0 && rest.optimizer > 0);
  }
}

// A measured run stands in for a layer when it computed the same cells: 64 documents of 512
// packed into rows of 2048 (bleed, causal) compute what 16 documents of 2048 compute as varlen.
TEST(TrainingStep, MeasuredRunsStandInForLayersThatComputeTheSameCells) {
  const Scenario rows = uniform(16, 2048, 2048);  // the run's scenario, 16 heads
  Scenario batch = uniform(64, 512, 2048, 12);
  ModelShape m = *nanochat_d24().model;
  Scenario named_rows = rows;
  named_rows.name = "rows";
  MeasuredRuns runs{{our_row("varlen", 1000, "", "rows")}, RunCells(lookup_in(std::span(&named_rows, 1)))};
  const Scenario layer = layer_scenario(batch, m, LayerKind::long_context);
  const auto t =
      find_measured_attention(layer, Implementation::packed, Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->us, 1000.0 * 12 / 16);  // scaled to the model's 12 heads
  EXPECT_EQ(t->implementation, Implementation::varlen);
  // Not for varlen (documents of 512), not backward, not FlashAttention-2's.
  EXPECT_FALSE(
      find_measured_attention(layer, Implementation::varlen, Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs));
  EXPECT_FALSE(
      find_measured_attention(layer, Implementation::packed, Pass::bwd, KernelFamily::attnlab, "mma-sm80", runs));
  EXPECT_FALSE(
      find_measured_attention(layer, Implementation::packed, Pass::fwd, KernelFamily::flash_attention_2, "", runs));
  // A short layer's window of 512 inside rows of 2048 computes other cells than the unwindowed run;
  // one of 2047 keys covers every row, so that run stands in again; a run with the window matches it.
  const Scenario short_layer = layer_scenario(batch, m, LayerKind::short_window);
  EXPECT_EQ(short_layer.window, (Window{512, 0}));
  EXPECT_FALSE(
      find_measured_attention(short_layer, Implementation::packed, Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs));
  m.short_window = 2047;
  EXPECT_TRUE(find_measured_attention(layer_scenario(batch, m, LayerKind::short_window), Implementation::packed,
                                      Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs));
  runs.rows[0].window_left = 512;  // a run that says it computed the window
  runs.rows[0].window_right = 0;
  EXPECT_TRUE(
      find_measured_attention(short_layer, Implementation::packed, Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs));
  EXPECT_FALSE(
      find_measured_attention(layer, Implementation::packed, Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs));
}

// The chain sets our packed time against our varlen time, both of one kernel: the one
// told, else the kernel of our first row (the results files' first: the fastest the GPU
// ran), named in every link of ours. Rows without a kernel column are the teaching kernel's.
TEST(TrainingStep, OurLinksComeFromOneKernelTheDefaultUnlessTold) {
  Scenario docs = uniform(64, 512, 2048, 16);
  docs.name = "docs";
  docs.model = ModelShape{};
  docs.model->heads = docs.model->kv_heads = 16;
  docs.model->window_pattern = "L";
  MeasuredRuns runs{{}, RunCells(lookup_in(std::span(&docs, 1)))};
  for (const char* kernel : {"wgmma-sm90", "mma-sm80"})
    for (const char* impl : {"packed", "varlen"})
      runs.rows.push_back(our_row(impl, std::string_view(kernel) == "mma-sm80" ? 400 : 200, kernel, "docs"));
  EXPECT_EQ(default_step_kernel(runs), "wgmma-sm90");
  const auto t =
      find_measured_attention(docs, Implementation::varlen, Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->us, 400.0);
  EXPECT_EQ(t->kernel, "mma-sm80");

  const TrainingStep step = model_training_step(docs, *docs.model);
  const StepTimePrediction fastest = predict_step_time(docs, step, KernelFamily::attnlab, 756.0, std::nullopt, runs);
  EXPECT_EQ(fastest.kernel, "wgmma-sm90");
  ASSERT_TRUE(fastest.varlen.layer[int(LayerKind::long_context)][int(Pass::fwd)]);
  EXPECT_EQ(fastest.varlen.layer[int(LayerKind::long_context)][int(Pass::fwd)]->kernel, "wgmma-sm90");
  const StepTimePrediction teaching =
      predict_step_time(docs, step, KernelFamily::attnlab, 756.0, std::nullopt, runs, "mma-sm80");
  EXPECT_DOUBLE_EQ(teaching.varlen.layer[int(LayerKind::long_context)][int(Pass::fwd)]->us, 400.0);
  const StepTimePrediction fa2 =
      predict_step_time(docs, step, KernelFamily::flash_attention_2, 756.0, std::nullopt, runs);
  int ours = 0;
  for (const ChainLink& link : step_chain(docs, step, {fastest, fa2}, {})) {
    EXPECT_EQ(link.how.find("short"), std::string::npos) << link.how;  // pattern L: no short layer to speak of
    EXPECT_EQ(link.label.find("window leaves"), std::string::npos) << link.label;  // nor a window
    if (link.label.find("attnlab") != std::string::npos) {
      ++ours;
      EXPECT_NE(link.label.find("attnlab \xC2\xB7 wgmma-sm90"), std::string::npos) << link.label;
    }
  }
  EXPECT_EQ(ours, 4);  // measured, share of the forward time, saving from time, and with the rest of the step
  runs.rows = {our_row("varlen", 300, "", "docs")};
  EXPECT_EQ(default_step_kernel(runs), "mma-sm80");
}

// Of two runs that computed a layer's cells, the one with the layer's heads stands in
// (measured, not scaled), whichever comes first in the files.
TEST(TrainingStep, ARunWithTheLayersHeadsIsPreferred) {
  Scenario docs = uniform(64, 512, 2048, 16);
  docs.name = "docs";
  Scenario docs12 = docs;
  docs12.name = "docs12";
  docs12.heads = docs12.kv_heads = 12;
  const std::vector<Scenario> defined = {docs, docs12};
  MeasuredRuns runs{{}, RunCells(lookup_in(defined))};
  ResultRow sixteen = our_row("varlen", 400, "mma-sm80", "docs");
  ResultRow twelve = our_row("varlen", 290, "mma-sm80", "docs12");
  twelve.heads = 12;
  twelve.kv_heads = 12;
  runs.rows = {sixteen, twelve};
  const auto t =
      find_measured_attention(docs12, Implementation::varlen, Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->scenario, "docs12");
  EXPECT_DOUBLE_EQ(t->us, 290.0);
  runs.rows = {sixteen};  // without it, the 16-head run stands in, scaled
  const auto scaled =
      find_measured_attention(docs12, Implementation::varlen, Pass::fwd, KernelFamily::attnlab, "mma-sm80", runs);
  ASSERT_TRUE(scaled.has_value());
  EXPECT_DOUBLE_EQ(scaled->us, 400.0 * 12 / 16);
}

TEST(TrainingStep, StepTimeSavingIsGemmsPlusMeasuredAttention) {
  const Scenario s = nanochat_d24();
  const TrainingStep step = model_training_step(s, *s.model);
  MeasuredRuns runs;  // nothing measured
  const StepTimePrediction none = predict_step_time(s, step, KernelFamily::attnlab, 500.0, std::nullopt, runs);
  EXPECT_FALSE(none.saving_fwd());
  EXPECT_FALSE(none.saving_step());
  ASSERT_TRUE(none.packed.gemm_us.has_value());
  EXPECT_NEAR((*none.packed.gemm_us)[int(Pass::fwd)], 2.0 * 729808896 * 32768 / 500e12 * 1e6, 1e-6);

  StepTimePrediction t = none;  // fill in made-up times to check the arithmetic
  for (auto* impl : {&t.packed, &t.varlen})
    for (LayerKind k : all_layer_kinds)
      impl->layer[int(k)][int(Pass::fwd)] = MeasuredAttention{.us = impl == &t.packed ? 300.0 : 100.0};
  const double gemm = (*none.packed.gemm_us)[int(Pass::fwd)];
  ASSERT_TRUE(t.saving_fwd().has_value());
  EXPECT_NEAR(*t.saving_fwd(), 1.0 - (gemm + 24 * 100.0) / (gemm + 24 * 300.0), 1e-12);
  EXPECT_NEAR(*t.attention_share_fwd(), 24 * 300.0 / (gemm + 24 * 300.0), 1e-12);
  EXPECT_FALSE(t.saving_step());  // no backward
  const StepTimePrediction no_ceiling =
      predict_step_time(s, step, KernelFamily::attnlab, std::nullopt, std::nullopt, runs);
  EXPECT_FALSE(no_ceiling.packed.gemm_us.has_value());
}

// A model small enough to count by hand: width 4, one head of 4 (and one K/V head), MLP 4x,
// vocabulary 8, over 10 positions.
TEST(TrainingStep, TheRestOfTheStepIsCountedOperationByOperation) {
  ModelShape m;
  m.layers = 1;
  m.width = 4;
  m.heads = m.kv_heads = 1;
  m.head_dim = 4;
  m.vocab = 8;
  const StepBytes b = step_bytes(m, 10);
  // Per position, elements: forward 2 norms x 8 + rotary and QK norm 2 x 16 + 2 adds x 12 + ReLU² 32 = 104;
  // backward 3 x (8 + 16 + 16) + 2 x 12 = 144; embedding, first and last norm 3 x 8 + 3 x 12 = 60.
  // 2 bytes each over 10 positions: 2 x 10 x (104 + 144 + 60) = 6160.
  EXPECT_DOUBLE_EQ(b.elementwise, 6160.0);
  EXPECT_DOUBLE_EQ(b.loss, 24.0 * 10 * 8);  // 24 bytes per logit
  // 224 fp32 matrix parameters (Q, K, V, output 64, MLP 128, LM head 32), 32 bf16 embedding ones,
  // 7 accesses each: 7 x (4 x 224 + 2 x 32).
  EXPECT_EQ(matrix_params(m), 224);
  EXPECT_DOUBLE_EQ(b.optimizer, 7.0 * (4 * 224 + 2 * 32));
  EXPECT_DOUBLE_EQ(b.total(), 6160.0 + 1920.0 + 6720.0);
}

TEST(TrainingStep, TheRestIsPricedAtTheCopyCeilingAndAddedToBothLayouts) {
  const Scenario s = nanochat_d24();
  const TrainingStep step = model_training_step(s, *s.model);
  MeasuredRuns runs;
  const StepTimePrediction none = predict_step_time(s, step, KernelFamily::attnlab, 500.0, std::nullopt, runs);
  EXPECT_FALSE(none.packed.rest_us);  // no copy ceiling
  StepTimePrediction t = predict_step_time(s, step, KernelFamily::attnlab, 500.0, std::nullopt, runs, {}, 2.5);
  ASSERT_TRUE(t.packed.rest_us && t.varlen.rest_us);
  EXPECT_NEAR(*t.packed.rest_us, step_bytes(*s.model, 32768).total() / 2.5e12 * 1e6, 1e-6);
  for (auto* impl : {&t.packed, &t.varlen})
    for (LayerKind k : all_layer_kinds)
      for (Pass pass : {Pass::fwd, Pass::bwd})
        impl->layer[int(k)][int(pass)] = MeasuredAttention{.us = impl == &t.packed ? 300.0 : 100.0};
  const double gemm = (*t.packed.gemm_us)[0] + (*t.packed.gemm_us)[1], rest = *t.packed.rest_us;
  ASSERT_TRUE(t.saving_step_with_rest());
  EXPECT_NEAR(*t.saving_step_with_rest(), 1.0 - (gemm + 48 * 100.0 + rest) / (gemm + 48 * 300.0 + rest), 1e-12);
  EXPECT_LT(*t.saving_step_with_rest(), *t.saving_step());  // work varlen does not change dilutes the saving
}

TEST(TrainingStep, ChainEndsAtTheArticlesSaving) {
  const Scenario s = nanochat_d24();
  const TrainingStep step = model_training_step(s, *s.model);
  MeasuredRuns runs;
  const std::array<StepTimePrediction, 2> times{
      predict_step_time(s, step, KernelFamily::attnlab, 756.0, std::nullopt, runs),
      predict_step_time(s, step, KernelFamily::flash_attention_2, 756.0, std::nullopt, runs)};
  const std::vector<ChainLink> chain = step_chain(s, step, times, {});
  ASSERT_GE(chain.size(), 4u);
  EXPECT_EQ(chain[0].value, "8.00x");
  EXPECT_EQ(chain[1].value, "4.00x");
  EXPECT_EQ(chain.back().value, "1.80%");
  for (const ChainLink& link : chain) {
    if (link.label.find("measured, ") == 0) {
      EXPECT_EQ(link.value, "not measured") << link.label;
    }
  }
}

}  // namespace
}  // namespace attnlab
