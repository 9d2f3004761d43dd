// Several GPUs' gradient sync: the gradient_sync column read and checked, packed/varlen pairs keyed by
// it and named with it, the distance to the article naming the all-reduce during the backward, and the
// article's 8 GPUs on paper from the measured rows' communication times. Every fixture is written by
// the test; every expected figure is computed here by hand from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "analysis/all_reduce_estimate.hpp"
#include "analysis/number_format.hpp"
#include "analysis/step_chain.hpp"
#include "core/cost/step_bytes.hpp"
#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/cli_run.hpp"
#include "tests/cpu/step_rows.hpp"
#include "tests/cpu/test_folder.hpp"
#include "tests/test_rows.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

// nanochat-d24's gradients, counted by hand: per layer Q, K, V and the output projection 4 x 1536^2 =
// 9,437,184 and the MLP 2 x 1536 x 6144 = 18,874,368, times 24 layers = 679,477,248, and the LM head
// 1536 x 32768 = 50,331,648: 729,808,896 fp32 matrix parameters; the token embedding 32768 x 1536 =
// 50,331,648 bf16 ones. 4 x 729,808,896 + 2 x 50,331,648 bytes.
constexpr double d24_gradient_bytes = 3019898880.0;

const fs::path d24_file = fs::path(ATTNLAB_SOURCE_DIR) / "scenarios" / "nanochat-d24.toml";

class GradientSyncTest : public TestFolder {
 protected:
  GradientSyncTest() : TestFolder("attnlab-gradient-sync-") {}

  void SetUp() override {
    TestFolder::SetUp();
    scenario = load_scenario(d24_file.string());
    step = model_training_step(scenario, *scenario.model);
  }

  // A profiled pair of `gpus` GPUs: the one-GPU pair plus `communication_us` of all-reduce, of which
  // `exposed_us` no other kernel hid, added to both steps.
  std::vector<StepFixture> pair(int gpus, const std::string& sync, const std::string& optimizer = "adamw",
                                double communication_us = 0, double exposed_us = -1) const {
    std::vector<StepFixture> rows = profiled_fa2_pair(step.tokens);
    for (StepFixture& f : rows) {
      f.gpus = gpus;
      f.gradient_sync = sync;
      f.optimizer = optimizer;
      f.parts[int(StepPart::communication)] = communication_us;
      f.exposed_us = exposed_us;
      f.median_us += std::max(exposed_us, 0.0);
    }
    return rows;
  }

  std::vector<MeasuredStepPair> pairs_of(const std::vector<StepFixture>& rows) const {
    write("step.csv", step_csv(rows));
    LoadedResults results;
    load_results_folder(results, dir_);
    EXPECT_TRUE(results.problems.empty()) << results.problems.front();
    return measured_step_pairs(scenario, step, results, lookup_in(std::span(&scenario, 1)));
  }

  // The one line reading `rows` refuses them with.
  std::string error_of(const std::vector<StepFixture>& rows) const {
    const fs::path p = write("bad.csv", step_csv(rows));
    try {
      read_results_rows(p);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }

  Scenario scenario;
  TrainingStep step;
};

std::vector<StepFixture> joined(std::initializer_list<std::vector<StepFixture>> pairs) {
  std::vector<StepFixture> rows;
  for (const auto& p : pairs) rows.insert(rows.end(), p.begin(), p.end());
  return rows;
}

TEST_F(GradientSyncTest, IsReadPerRowAndAnEmptyCellOfSeveralGpusIsAfterTheBackward) {
  write("step.csv", step_csv(joined({pair(1, ""), pair(4, "during_backward"), pair(4, ""), pair(2, "after_backward"),
                                     pair(8, "sharded", "muon")})));
  const std::vector<StepRow> rows = read_results_rows(dir_ / "step.csv").steps;
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_FALSE(rows[0].gradient_sync);  // one GPU: no all-reduce
  EXPECT_EQ(rows[2].gradient_sync, GradientSync::during_backward);
  EXPECT_EQ(rows[4].gradient_sync, GradientSync::after_backward);  // a row from before the column
  EXPECT_EQ(rows[6].gradient_sync, GradientSync::after_backward);
  EXPECT_EQ(rows[8].gradient_sync, GradientSync::sharded);
  EXPECT_STREQ(gradient_sync_name(GradientSync::sharded), "sharded");
  EXPECT_STREQ(gradient_sync_name(GradientSync::during_backward), "during_backward");
  EXPECT_STREQ(gradient_sync_name(GradientSync::after_backward), "after_backward");
}

TEST_F(GradientSyncTest, BadValuesAreRefusedInOneLineNamingFileFieldAndWhatIsAllowed) {
  const std::string unknown = error_of(pair(4, "ddp"));
  EXPECT_NE(unknown.find("bad.csv:2: gradient_sync: expected after_backward, during_backward or sharded (several "
                         "GPUs; empty on one), got \"ddp\""),
            std::string::npos)
      << unknown;
  const std::string one_gpu = error_of(pair(1, "during_backward"));
  EXPECT_NE(one_gpu.find("bad.csv:2: gradient_sync: a one-GPU step row has no all-reduce: expected an empty cell, "
                         "got \"during_backward\""),
            std::string::npos)
      << one_gpu;
  std::string attention_row = step_line(pair(4, "after_backward")[0]);
  attention_row.replace(attention_row.find(",step,"), 6, ",fwd,");
  write("fwd.csv", step_header() + attention_row);
  try {
    read_results_rows(dir_ / "fwd.csv");
    ADD_FAILURE() << "a fwd row with step columns was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fwd.csv:2: gpus: only a step row (pass step) holds a value"),
              std::string::npos)
        << e.what();
  }
  for (const std::string& e : {unknown, one_gpu}) EXPECT_EQ(e.find('\n'), std::string::npos) << e;

  // The CLI that names its files itself: exit 2, the one line on stderr, nothing on stdout.
  for (const char* bad : {"ddp", "AFTER_BACKWARD"}) {
    write("bad.csv", step_csv(pair(2, bad)));
    const cli_run::CliRun r = cli_run::attnlab("results '" + (dir_ / "bad.csv").string() + "'");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("bad.csv:2: gradient_sync: expected after_backward, during_backward or sharded"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// A setting is (backend, kernel, GPUs, optimizer, gradient sync): steps of another sync are another
// pair. One GPU first, then by GPUs; within them FA2 before attnlab, AdamW before Muon, after before during,
// during before nanochat's sharded optimizer.
TEST_F(GradientSyncTest, PairsAreKeyedBySyncAndOrderedByGpusBackendOptimizerAndSync) {
  std::vector<StepFixture> ours = pair(4, "during_backward");
  for (StepFixture& f : ours) {
    f.source = "torch-step-attnlab";
    f.kernel = "wgmma-sm90";
  }
  std::vector<StepFixture> during = pair(4, "during_backward", "adamw", 30000, 2000);
  std::vector<StepFixture> after = pair(4, "after_backward", "adamw", 20000, 20000);
  std::swap(after[0], after[1]);  // varlen's row first: the pair still takes each by its layout
  const std::vector<MeasuredStepPair> pairs =
      pairs_of(joined({pair(4, "sharded", "muon"), pair(4, "during_backward", "muon"), ours, during,
                       pair(2, "during_backward"), pair(1, "", "muon"), after, pair(2, ""), pair(1, "")}));
  std::vector<std::string> settings;
  for (const MeasuredStepPair& p : pairs) settings.push_back(p.setting());
  const std::vector<std::string> expected = {"one GPU, AdamW, FA2",
                                             "one GPU, Muon, FA2",
                                             "2 GPUs, AdamW, all-reduce after bwd, FA2",
                                             "2 GPUs, AdamW, all-reduce during bwd, FA2",
                                             "4 GPUs, AdamW, all-reduce after bwd, FA2",
                                             "4 GPUs, AdamW, all-reduce during bwd, FA2",
                                             "4 GPUs, Muon, all-reduce during bwd, FA2",
                                             "4 GPUs, Muon, sharded optimizer, FA2",
                                             "4 GPUs, AdamW, all-reduce during bwd, attnlab \xC2\xB7 wgmma-sm90"};
  EXPECT_EQ(settings, expected);
  ASSERT_EQ(pairs.size(), expected.size());
  for (const MeasuredStepPair& p : pairs) EXPECT_TRUE(p.packed && p.varlen) << p.setting();
  // The two 4-GPU AdamW FA2 pairs hold their own rows.
  EXPECT_EQ(pairs[4].packed->row.median_us, after[1].median_us);
  EXPECT_EQ(pairs[4].varlen->row.communication_exposed_us, 20000);
  EXPECT_EQ(pairs[5].packed->row.median_us, during[0].median_us);
  EXPECT_EQ(pairs[5].packed->row.part_us(StepPart::communication), 30000);

  // The chain names each setting's saving with its sync.
  MeasuredRuns runs;
  const std::array<StepTimePrediction, 2> times{
      predict_step_time(scenario, step, KernelFamily::attnlab, 756.0, std::nullopt, runs),
      predict_step_time(scenario, step, KernelFamily::flash_attention_2, 756.0, std::nullopt, runs)};
  const std::vector<ChainLink> chain = step_chain(scenario, step, times, pairs);
  for (const std::string& setting : expected) {
    const auto link = std::find_if(chain.begin(), chain.end(),
                                   [&](const ChainLink& l) { return l.label == "measured step saving, " + setting; });
    ASSERT_NE(link, chain.end()) << setting;
    EXPECT_TRUE(link->setting_saving) << setting;
  }
}

// An all-reduce beside the backward's kernels is in the parts' sum, yet the GPU was not busy twice over
// those moments: only its exposed time is busy time, so idle stays what it was without the all-reduce,
// and the parts on the step's path still add up to the saving.
TEST_F(GradientSyncTest, CommunicationBesideOtherKernelsIsBusyTimeOnlyWhereExposed) {
  const std::vector<StepFixture> alone = pair(1, ""), during = pair(4, "during_backward", "adamw", 55000, 5000),
                                 after = pair(4, "after_backward", "adamw", 40000);
  const std::vector<MeasuredStepPair> pairs = pairs_of(joined({alone, during, after}));
  ASSERT_EQ(pairs.size(), 3u);
  const MeasuredStepPair &one = pairs[0], &ddp = pairs[2], &pass = pairs[1];
  ASSERT_EQ(ddp.setting(), "4 GPUs, AdamW, all-reduce during bwd, FA2");
  ASSERT_EQ(pass.setting(), "4 GPUs, AdamW, all-reduce after bwd, FA2");
  const StepRow& row = ddp.packed->row;
  EXPECT_EQ(*row.kernels_us, during[0].kernels_us());
  EXPECT_EQ(*step_exposed_communication_us(row), 5000);
  EXPECT_EQ(*step_busy_us(row), during[0].kernels_us() - 55000 + 5000);
  EXPECT_EQ(*step_idle_us(row), *step_idle_us(one.packed->row));
  // An empty exposed cell: all of it exposed, as after the backward.
  EXPECT_EQ(*step_exposed_communication_us(pass.packed->row), 40000);
  EXPECT_EQ(*step_busy_us(pass.packed->row), after[0].kernels_us());

  // The table: busy and exposed lines only where communication ran.
  const auto labels = [](const MeasuredStepPair& p) {
    std::vector<std::string> out;
    for (const StepTableLine& line : step_table_lines(p)) out.push_back(line.label);
    return out;
  };
  const std::vector<std::string> several = labels(ddp), single = labels(one);
  EXPECT_NE(std::find(several.begin(), several.end(), "busy (the sum less communication beside other kernels)"),
            several.end());
  EXPECT_NE(std::find(several.begin(), several.end(), "idle (median - busy)"), several.end());
  EXPECT_EQ(std::find(single.begin(), single.end(), "communication exposed (no kernel beside it)"), single.end());
  EXPECT_NE(std::find(single.begin(), single.end(), "idle (median - kernels)"), single.end());
  EXPECT_EQ(several.back(), "step (median)");
  EXPECT_EQ(step_table_lines(ddp).back().packed, row.median_us);

  // The chain's parts of the DDP step: exposed communication, not all of it, and they add up.
  MeasuredRuns runs;
  const std::array<StepTimePrediction, 2> times{
      predict_step_time(scenario, step, KernelFamily::attnlab, 756.0, std::nullopt, runs),
      predict_step_time(scenario, step, KernelFamily::flash_attention_2, 756.0, std::nullopt, runs)};
  const std::vector<ChainLink> chain = step_chain(scenario, step, times, {ddp});
  double saved = 0;
  for (const ChainLink& link : chain)
    if (link.label.rfind("step time saved ", 0) == 0 && link.number) saved += *link.number;
  EXPECT_NEAR(saved, *ddp.saving(), 1e-12);
  EXPECT_NE(
      std::find_if(chain.begin(), chain.end(),
                   [](const ChainLink& l) { return l.label.find("in exposed communication") != std::string::npos; }),
      chain.end());
}

TEST_F(GradientSyncTest, TheDistanceNamesTheAllReduceDuringTheBackwardAndLeavesOutTheArticlesEightGpus) {
  const std::vector<MeasuredStepPair> during =
      pairs_of(joined({pair(1, ""), pair(4, "after_backward"), pair(4, "during_backward")}));
  const std::string text = article_distance(scenario, during).value_or("");
  // The setting nearest the article's run: most GPUs, then the all-reduce as DDP runs it.
  EXPECT_NE(text.find("(4 GPUs, AdamW, all-reduce during bwd, FA2) of attention"), std::string::npos) << text;
  EXPECT_NE(text.find("These steps measure up to 4 GPUs, the gradients all-reduced after the backward or all-reduced "
                      "during the backward as DDP does."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("the article's 8 GPUs (measured here up to 4)"), std::string::npos) << text;

  const std::string after = article_distance(scenario, pairs_of(joined({pair(2, "after_backward")}))).value_or("");
  EXPECT_NE(after.find("up to 2 GPUs, the gradients all-reduced after the backward."), std::string::npos) << after;
  EXPECT_EQ(after.find("during the backward"), std::string::npos) << after;
  EXPECT_NE(after.find("the article's 8 GPUs"), std::string::npos) << after;

  const std::string eight =
      article_distance(scenario, pairs_of(joined({pair(4, "during_backward"), pair(8, "during_backward")})))
          .value_or("");
  EXPECT_NE(eight.find("up to 8 GPUs, the gradients all-reduced during the backward"), std::string::npos) << eight;
  EXPECT_EQ(eight.find("the article's 8 GPUs"), std::string::npos) << eight;  // measured, not left out

  // nanochat's own exchange is nearest the article: its pair is the one the distance names.
  const std::string sharded =
      article_distance(scenario,
                       pairs_of(joined({pair(4, "during_backward", "muon"), pair(4, "sharded", "muon", 30000, 3000)})))
          .value_or("");
  EXPECT_NE(sharded.find("(4 GPUs, Muon, sharded optimizer, FA2) of attention"), std::string::npos) << sharded;
  EXPECT_NE(sharded.find("up to 4 GPUs, the gradients all-reduced during the backward as DDP does or exchanged in "
                         "nanochat's sharded optimizer step."),
            std::string::npos)
      << sharded;

  const std::string one = article_distance(scenario, pairs_of(pair(1, ""))).value_or("");
  EXPECT_NE(one.find("the article's 8 GPUs and their all-reduce"), std::string::npos) << one;
}

TEST(RingAllReduce, EachGpuSendsTwiceNMinusOneOverNOfTheBytesInTwiceNMinusOneSteps) {
  const RingAllReduce four{4, 1000.0};
  EXPECT_EQ(four.steps(), 6);
  EXPECT_DOUBLE_EQ(four.bytes_per_gpu(), 1500.0);       // 2 x 3/4 x 1000
  EXPECT_DOUBLE_EQ(four.bus_bandwidth(1000.0), 1.5e6);  // 1500 bytes in 1 ms
  EXPECT_DOUBLE_EQ(four.time_us(1.5e6), 1000.0);        // and back
  const RingAllReduce eight{8, 1000.0};
  EXPECT_EQ(eight.steps(), 14);
  EXPECT_DOUBLE_EQ(eight.bytes_per_gpu(), 1750.0);  // 2 x 7/8 x 1000
  EXPECT_DOUBLE_EQ(eight.time_us(four.bus_bandwidth(1000.0)), 1000.0 * 1750 / 1500);
  EXPECT_EQ((RingAllReduce{1, 1000.0}.steps()), 0);
  EXPECT_DOUBLE_EQ((RingAllReduce{1, 1000.0}.bytes_per_gpu()), 0.0);
}

TEST(ParameterBytes, NanochatD24HoldsItsGradientsAtTheirDtypes) {
  const Scenario s = load_scenario(d24_file.string());
  EXPECT_EQ(matrix_params(*s.model), 729808896);
  EXPECT_DOUBLE_EQ(parameter_bytes(*s.model), d24_gradient_bytes);
}

// 8 GPUs priced at the bandwidth of the most GPUs measured below 8, an all-reduce after the backward
// first; an 8-GPU row is measured beside it, never its basis.
TEST_F(GradientSyncTest, EightGpusOnPaperAtTheBandwidthOfTheMostGpusMeasured) {
  std::vector<StepFixture> after4 = pair(4, "after_backward", "adamw", 40000, 40000);
  after4[1].parts[int(StepPart::communication)] = 41000;  // varlen's own time, a row of its own
  const std::vector<MeasuredStepPair> pairs = pairs_of(joined(
      {pair(1, ""), pair(2, "after_backward", "adamw", 25000, 25000), pair(4, "during_backward", "adamw", 60000, 3000),
       after4, pair(4, "after_backward", "muon", 45000, 45000), pair(8, "after_backward", "adamw", 10000, 10000)}));
  const std::optional<AllReduceEstimate> e = all_reduce_estimate(*scenario.model, pairs);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->gradient_bytes, d24_gradient_bytes);
  ASSERT_EQ(e->measured.size(), 10u);  // both layouts of each of the five multi-GPU pairs
  // Two GPUs: each sends 2 x 1/2 of the bytes, in 2 steps, in 25 ms.
  const MeasuredAllReduce& two = e->measured[0];
  EXPECT_EQ(two.pair->gpus, 2);
  EXPECT_EQ(two.ring.steps(), 2);
  EXPECT_DOUBLE_EQ(two.ring.bytes_per_gpu(), d24_gradient_bytes);
  EXPECT_NEAR(two.bus_bandwidth(), d24_gradient_bytes / 0.025, 1e-3);
  EXPECT_EQ(two.row().communication_exposed_us, 25000);
  // The basis: 4 GPUs, after the backward (40 ms), not the overlapped 60 ms nor the 8-GPU row.
  ASSERT_TRUE(e->basis);
  EXPECT_EQ(e->basis->pair->setting(), "4 GPUs, AdamW, all-reduce after bwd, FA2");
  EXPECT_EQ(e->basis->layout, Implementation::packed);
  const double bandwidth = 2.0 * 3 / 4 * d24_gradient_bytes / 0.040;
  EXPECT_NEAR(e->basis->bus_bandwidth(), bandwidth, 1e-3);
  // 8 GPUs: 2 x 7/8 of the bytes each, 14 steps, at that bandwidth: 40 ms x 1.75 / 1.5.
  EXPECT_EQ(e->article.gpus, 8);
  EXPECT_EQ(e->article.steps(), 14);
  EXPECT_DOUBLE_EQ(e->article.bytes_per_gpu(), 1.75 * d24_gradient_bytes);
  ASSERT_TRUE(e->article_us());
  EXPECT_NEAR(*e->article_us(), 40000.0 * 1.75 / 1.5, 1e-6);

  // Several GPUs whose communication was not profiled: the bytes, but no time to price them at.
  const std::optional<AllReduceEstimate> unprofiled = all_reduce_estimate(*scenario.model, pairs_of(pair(4, "")));
  ASSERT_TRUE(unprofiled);
  EXPECT_TRUE(unprofiled->measured.empty());
  EXPECT_FALSE(unprofiled->article_us());
  EXPECT_FALSE(all_reduce_estimate(*scenario.model, pairs_of(pair(1, ""))));  // one GPU: nothing to estimate
}

// The default output with every sync and both optimizers on several GPUs beside the one-GPU steps of
// both backends: at most 40 lines of at most 120 columns, each setting a row, 8 GPUs in one line.
TEST_F(GradientSyncTest, TheDefaultOutputFitsWithBothSyncsAndBothOptimizers) {
  std::vector<StepFixture> rows;
  for (const char* optimizer : {"adamw", "muon"}) {
    for (StepFixture f : pair(1, "", optimizer)) {
      rows.push_back(f);
      f.source = "torch-step-attnlab";
      f.kernel = "wgmma-sm90";
      rows.push_back(f);
    }
    for (const char* sync : {"after_backward", "during_backward"}) {
      const bool after = std::string(sync) == "after_backward";
      for (const StepFixture& f : pair(4, sync, optimizer, after ? 40000 : 55000, after ? 40000 : 5000))
        rows.push_back(f);
      if (std::string(optimizer) == "adamw")
        for (const StepFixture& f : pair(2, sync, optimizer, after ? 25000 : 30000, after ? 25000 : 4000))
          rows.push_back(f);
    }
  }
  write_results_csv(dir_ / "attnlab-bench.csv", {our_row("varlen", 300, "wgmma-sm90")});
  write("attnlab-step.csv", step_csv(rows));
  const std::string env = "ATTNLAB_RESULTS='" + dir_.string() + "'";
  const cli_run::CliRun r = cli_run::attnlab("step '" + d24_file.string() + "'", env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  cli_run::expect_at_a_glance(r.out);
  // A line per setting, a saving per backend measured under it.
  for (const char* setting : {"one GPU, AdamW", "one GPU, Muon"})
    EXPECT_EQ(cli_run::measured_savings(cli_run::measured_line(r.out, setting)), 2u) << setting << r.out;
  for (const char* setting : {"2 GPUs, AdamW, all-reduce during bwd", "4 GPUs, AdamW, all-reduce after bwd",
                              "4 GPUs, Muon, all-reduce after bwd", "4 GPUs, Muon, all-reduce during bwd"})
    EXPECT_EQ(cli_run::measured_savings(cli_run::measured_line(r.out, setting)), 1u) << setting << r.out;
  // 8 GPUs at the 4-GPU AdamW step's bandwidth after the backward: 40 ms x 1.75 / 1.5.
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", 40.0 * 1.75 / 1.5);
  const std::string estimate =
      "8 GPUs, estimated: " + format_bytes(1.75 * d24_gradient_bytes) + "/GPU, 14 ring steps, " + ms + " ms at " +
      format_bytes(1.5 * d24_gradient_bytes / 0.040) + "/s (4 GPUs, AdamW, all-reduce after bwd, FA2, packed)\n";
  EXPECT_NE(r.out.find("\n" + estimate), std::string::npos) << estimate << r.out;
  std::string paragraphs = r.out;
  std::replace(paragraphs.begin(), paragraphs.end(), '\n', ' ');
  EXPECT_NE(paragraphs.find("up to 4 GPUs, the gradients all-reduced after the backward or all-reduced during the "
                            "backward as DDP does"),
            std::string::npos)
      << r.out;

  const cli_run::CliRun details = cli_run::attnlab("step --details '" + d24_file.string() + "'", env);
  ASSERT_EQ(details.exit_code, 0) << details.err;
  EXPECT_NE(details.out.find("The measured step, 4 GPUs, Muon, all-reduce during bwd, FA2 (attnlab-step.csv)"),
            std::string::npos)
      << details.out;
  EXPECT_NE(details.out.find("communication exposed (no kernel beside it)"), std::string::npos);
  EXPECT_NE(details.out.find("all-reduce of the gradients"), std::string::npos);
  EXPECT_NE(details.out.find("an estimate, not a measurement"), std::string::npos);
  const std::size_t eight = details.out.find("\n8 GPUs, estimated ");
  ASSERT_NE(eight, std::string::npos) << details.out;
  const std::string eight_row = details.out.substr(eight + 1, details.out.find('\n', eight + 1) - eight - 1);
  EXPECT_NE(eight_row.find(" 14 "), std::string::npos) << eight_row;
  EXPECT_NE(eight_row.find(std::string(" ") + ms + " "), std::string::npos) << eight_row;

  const cli_run::CliRun json = cli_run::attnlab("step --format json '" + d24_file.string() + "'", env);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"gpus\":4,\"optimizer\":\"muon\",\"gradient_sync\":\"during_backward\""), std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"gpus\":1,\"optimizer\":\"adamw\",\"gradient_sync\":null"), std::string::npos);
  EXPECT_NE(json.out.find("\"all_reduce\":{\"gradient_bytes\":3019898880,\"measured\":[{\"row\":{\"setting\":\"2 GPUs, "
                          "AdamW, all-reduce after bwd, FA2\",\"layout\":\"packed\"},\"gpus\":2,\"bytes_per_gpu\":"
                          "3019898880,\"ring_steps\":2,"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"estimate\":{\"gpus\":8,\"bytes_per_gpu\":5284823040,\"ring_steps\":14,"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"from\":{\"setting\":\"4 GPUs, AdamW, all-reduce after bwd, FA2\",\"layout\":\"packed\"}"),
            std::string::npos)
      << json.out;
}

}  // namespace
}  // namespace attnlab
