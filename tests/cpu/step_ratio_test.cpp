// The step explanation sets the attention time varlen saved in the measured step against the
// saving the prediction from time made: a ratio only where both are savings, and then the
// quotient of the two figures its sentence names. Predictions and measured steps are made here
// (a prediction's layer and GEMM times set by hand, a measured FA2 pair with its parts).
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "analysis/number_format.hpp"
#include "analysis/step_chain.hpp"
#include "core/scenario/scenario_file.hpp"

namespace attnlab {
namespace {

constexpr const char* no_ratio =
    "the prediction's saving and the measured attention's cannot be set in a ratio: one of them is no saving.";

// One measured step row with its parts profiled: `attention` µs of attention (forward and
// backward halves) in a step of `median` µs, the rest of its kernels in GEMMs.
StepRow step_row(const char* implementation, double median, double attention) {
  StepRow r;
  r.scenario = "nanochat-d24";
  r.implementation = implementation;
  r.source = "torch-step-fa2";
  r.median_us = median;
  for (StepPart part : all_step_parts) r.parts[int(part)] = 0.0;
  r.parts[int(StepPart::attention_fwd)] = attention / 4;
  r.parts[int(StepPart::attention_bwd)] = attention * 3 / 4;
  r.parts[int(StepPart::gemm)] = 200000;
  r.kernels_us = attention + 200000;
  return r;
}

class StepRatio : public ::testing::Test {
 protected:
  void SetUp() override {
    scenario = load_scenario((std::filesystem::path(ATTNLAB_SOURCE_DIR) / "scenarios" / "nanochat-d24.toml").string());
    step = model_training_step(scenario, *scenario.model);
  }

  // The FA2 paragraph of the explanation: a prediction whose every layer takes `packed_layer_us`
  // packed and `varlen_layer_us` varlen per pass, with GEMMs of 60,000 and 120,000 µs (whole
  // numbers: sums of whole numbers are exact, so equal times predict a saving of exactly 0) or,
  // without `whole_gemms`, as the GEMM ceiling prices them, and a measured pair whose attention
  // took `packed_attention_us` and `varlen_attention_us`.
  std::string fa2_paragraph(double packed_layer_us, double varlen_layer_us, double packed_attention_us,
                            double varlen_attention_us, bool whole_gemms = true) {
    std::array<StepTimePrediction, 2> times;
    for (KernelFamily family : all_kernel_families) {
      StepTimePrediction& t = times[int(family)];
      t = predict_step_time(scenario, step, family, 756.0, std::nullopt, MeasuredRuns{});
      for (ImplementationStepTime* impl : {&t.packed, &t.varlen}) {
        if (whole_gemms) impl->gemm_us = std::array<double, 2>{60000, 120000};
        for (LayerKind kind : all_layer_kinds)
          for (Pass pass : {Pass::fwd, Pass::bwd})
            impl->layer[int(kind)][int(pass)] =
                MeasuredAttention{.us = impl == &t.packed ? packed_layer_us : varlen_layer_us};
      }
    }
    MeasuredStepPair pair;
    pair.source = "torch-step-fa2";
    pair.packed = MeasuredStepRun{step_row("packed", 400000, packed_attention_us), "step.csv"};
    pair.varlen = MeasuredStepRun{
        step_row("varlen", 400000 - packed_attention_us + varlen_attention_us, varlen_attention_us), "step.csv"};
    predicted_saved = 2 * (step.layers[0] + step.layers[1]) * (packed_layer_us - varlen_layer_us);
    for (const std::string& paragraph : step_explanation(scenario, times, {pair}))
      if (paragraph.rfind("FA2: predicted ", 0) == 0) return paragraph;
    ADD_FAILURE() << "no FA2 paragraph";
    return "";
  }

  Scenario scenario;
  TrainingStep step;
  double predicted_saved = 0;  // the last paragraph's, as the test sets it: every layer's difference, both passes
};

// No figure of the paragraph is infinite, NaN or negative where it is a ratio.
void expect_no_bad_ratio(const std::string& text) {
  EXPECT_EQ(text.find("not finite"), std::string::npos) << text;
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  for (std::size_t x = text.find("x "); x != std::string::npos; x = text.find("x ", x + 1)) {
    const std::size_t start = text.rfind(' ', x) + 1;
    EXPECT_NE(text[start], '-') << "a negative ratio: " << text.substr(start, x + 1 - start) << " in " << text;
  }
}

// Where the prediction saves nothing (equal times), or where its varlen is slower, there is no
// ratio of savings to form: the sentence says so rather than dividing by 0 or a loss.
TEST_F(StepRatio, NoPredictedSavingGivesNoRatio) {
  for (const auto& [packed_layer, varlen_layer] : {std::pair{300.0, 300.0}, std::pair{300.0, 400.0}}) {
    const std::string text = fa2_paragraph(packed_layer, varlen_layer, 100000, 70000);
    ASSERT_LE(predicted_saved, 0.0);
    EXPECT_NE(text.find(no_ratio), std::string::npos) << text;
    EXPECT_EQ(text.find("the predicted saving."), std::string::npos) << text;
    expect_no_bad_ratio(text);
  }
}

// Equal layer times beside GEMMs priced at the ceiling (fractions of a µs): subtracting term by
// term left about 1.5e-11 µs, a "saving" that made the ratio 2.06e+15x.
TEST_F(StepRatio, EqualPredictionsBesideFractionalGemmsGiveNoRatio) {
  const std::string text = fa2_paragraph(100, 100, 100000, 70000, /*whole_gemms=*/false);
  EXPECT_NE(text.find(no_ratio), std::string::npos) << text;
  EXPECT_NE(text.find("of which varlen saves 0"), std::string::npos) << text;
  expect_no_bad_ratio(text);
}

// A prediction whose varlen is slower says so, never that varlen "saves" a negative time.
TEST_F(StepRatio, ASlowerPredictedVarlenIsNotANegativeSaving) {
  const std::string text = fa2_paragraph(300, 400, 100000, 70000);
  EXPECT_EQ(text.find("saves -"), std::string::npos) << text;
  EXPECT_NE(text.find("and varlen's takes "), std::string::npos) << text;
}

// The same where the prediction saves time but the measured step's varlen attention did not.
TEST_F(StepRatio, NoMeasuredAttentionSavingGivesNoRatio) {
  for (const double varlen_attention : {100000.0, 130000.0}) {
    const std::string text = fa2_paragraph(300, 100, 100000, varlen_attention);
    ASSERT_GT(predicted_saved, 0.0);
    EXPECT_NE(text.find(no_ratio), std::string::npos) << text;
    expect_no_bad_ratio(text);
  }
}

// A tiny predicted saving (a nanosecond a layer and pass, the finest a results row holds) and a
// measured one of 30 ms: the ratio is large, and it is the quotient of the two savings the
// sentence names, finite and positive.
TEST_F(StepRatio, ATinyPredictedSavingGivesTheQuotientOfTheTwoSavings) {
  const std::string text = fa2_paragraph(300.001, 300, 100000, 70000);
  ASSERT_GT(predicted_saved, 0.0);
  const std::string ratio = format_ratio(30000 / predicted_saved);
  EXPECT_NE(text.find("varlen saved " + format_us(30000) + " of attention"), std::string::npos) << text;
  EXPECT_NE(text.find("the attention time varlen saved in it " + ratio + " the predicted saving."), std::string::npos)
      << "expected " << ratio << " in " << text;
  EXPECT_EQ(text.find(no_ratio), std::string::npos) << text;
  expect_no_bad_ratio(text);
}

}  // namespace
}  // namespace attnlab
