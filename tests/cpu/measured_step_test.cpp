// The measured training step: step rows (pass = step) read apart from the attention runs,
// their savings and parts as the chain shows them, and the GEMMs at the model's shapes.
// Every fixture is written by the test; every expected figure is computed here from it.
#include <gtest/gtest.h>

#include <array>

#include "analysis/measured_step.hpp"
#include "analysis/number_format.hpp"
#include "analysis/primary_runs.hpp"
#include "analysis/step_chain.hpp"
#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/cli_run.hpp"
#include "tests/cpu/step_rows.hpp"
#include "tests/cpu/test_folder.hpp"
#include "tests/test_rows.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

Scenario nanochat_d24() {
  return load_scenario((fs::path(ATTNLAB_SOURCE_DIR) / "scenarios" / "nanochat-d24.toml").string());
}

class MeasuredStep : public TestFolder {
 protected:
  MeasuredStep() : TestFolder("attnlab-measured-step-") {}

  void SetUp() override {
    TestFolder::SetUp();
    scenario = nanochat_d24();
    step = model_training_step(scenario, *scenario.model);
  }

  std::vector<StepFixture> fa2_pair() const { return profiled_fa2_pair(step.tokens); }

  std::vector<MeasuredStepPair> pairs_of(const fs::path& folder) const {
    LoadedResults results;
    load_results_folder(results, folder);
    EXPECT_TRUE(results.problems.empty()) << results.problems.front();
    return measured_step_pairs(scenario, step, results, lookup_in(std::span(&scenario, 1)));
  }

  std::vector<ChainLink> chain_of(const std::vector<MeasuredStepPair>& measured) const {
    MeasuredRuns runs;
    const std::array<StepTimePrediction, 2> times{
        predict_step_time(scenario, step, KernelFamily::attnlab, 756.0, std::nullopt, runs),
        predict_step_time(scenario, step, KernelFamily::flash_attention_2, 756.0, std::nullopt, runs)};
    return step_chain(scenario, step, times, measured);
  }

  Scenario scenario;
  TrainingStep step;
};

const ChainLink* find_link(const std::vector<ChainLink>& chain, const std::string& label) {
  for (const ChainLink& link : chain)
    if (link.label == label) return &link;
  return nullptr;
}

TEST_F(MeasuredStep, AStepCsvBesideAttentionCsvsChangesNoAttentionResult) {
  const std::vector<ResultRow> attention = {our_row("varlen", 300, "wgmma-sm90"), our_row("packed", 900, "wgmma-sm90"),
                                            peer_row("torch-varlen_attn", "varlen", 350)};
  write_results_csv(dir_ / "attnlab-bench.csv", attention);
  LoadedResults before;
  load_results_folder(before, dir_);
  const auto all = [](const ResultRow&) { return true; };
  const std::vector<MeasuredRun> runs_before = primary_runs(before, all);

  // The step file sorts before the attention file: neither its order nor its rows may matter.
  write("attnlab-aa-step.csv", step_csv(fa2_pair()));
  LoadedResults after;
  load_results_folder(after, dir_);
  EXPECT_TRUE(after.problems.empty());
  ASSERT_EQ(after.files.size(), 2u);
  std::vector<ResultRow> runs_after;
  for (const ResultsFile& f : after.files) runs_after.insert(runs_after.end(), f.rows.begin(), f.rows.end());
  EXPECT_EQ(runs_after, attention);
  EXPECT_EQ(after.files[0].steps.size(), 2u);
  const std::vector<MeasuredRun> primary_after = primary_runs(after, all);
  ASSERT_EQ(primary_after.size(), runs_before.size());
  for (std::size_t i = 0; i < primary_after.size(); ++i) {
    EXPECT_EQ(*primary_after[i].primary.row, *runs_before[i].primary.row);
    EXPECT_EQ(primary_after[i].runs(), runs_before[i].runs());
  }
  EXPECT_TRUE(read_results_csv(dir_ / "attnlab-aa-step.csv").empty());  // the attention reader sees no step
}

TEST_F(MeasuredStep, SavingsAreOneLessVarlenOverPackedNamingFileAndKernel) {
  std::vector<StepFixture> rows = fa2_pair();
  StepFixture ours_packed = rows[0], ours_varlen = rows[1];
  ours_packed.source = ours_varlen.source = "torch-step-attnlab";
  ours_packed.kernel = ours_varlen.kernel = "wgmma-sm90";
  ours_packed.median_us = 350000;
  ours_varlen.median_us = 341000;
  StepFixture cudnn = rows[0];
  cudnn.source = "torch-step-cudnn";
  cudnn.median_us = 380000;
  write("attnlab-step.csv", step_csv({rows[0], rows[1], ours_packed, ours_varlen, cudnn}));

  const std::vector<MeasuredStepPair> pairs = pairs_of(dir_);
  ASSERT_EQ(pairs.size(), 3u);  // FA2, attnlab, cuDNN
  const std::vector<ChainLink> chain = chain_of(pairs);
  const ChainLink* fa2 = find_link(chain, "measured step saving, one GPU, AdamW, FA2");
  ASSERT_TRUE(fa2);
  EXPECT_EQ(fa2->value, format_percent(1.0 - rows[1].median_us / rows[0].median_us));
  EXPECT_NE(fa2->how.find("attnlab-step.csv"), std::string::npos) << fa2->how;
  const ChainLink* ours = find_link(chain, "measured step saving, one GPU, AdamW, attnlab \xC2\xB7 wgmma-sm90");
  ASSERT_TRUE(ours);
  EXPECT_EQ(ours->value, format_percent(1.0 - ours_varlen.median_us / ours_packed.median_us));
  const ChainLink* only_packed = find_link(chain, "measured step saving, one GPU, AdamW, cuDNN");
  ASSERT_TRUE(only_packed);
  EXPECT_EQ(only_packed->value, "not measured");
  EXPECT_NE(only_packed->how.find("only the packed step was measured"), std::string::npos) << only_packed->how;
  EXPECT_EQ(find_link(chain, "the measured step, packed against varlen"), nullptr);
  EXPECT_EQ(chain.back().label, "the article's measured saving");
}

TEST_F(MeasuredStep, PartsShareTheStepAndAddUpToTheSaving) {
  const std::vector<StepFixture> rows = fa2_pair();
  write("step.csv", step_csv(rows));
  const std::vector<ChainLink> chain = chain_of(pairs_of(dir_));
  const StepFixture &packed = rows[0], &varlen = rows[1];
  const auto attention = [](const StepFixture& f) {
    return f.parts[int(StepPart::attention_fwd)] + f.parts[int(StepPart::attention_bwd)];
  };
  const ChainLink* share = find_link(chain, "attention's share of the measured step, one GPU, AdamW, FA2");
  ASSERT_TRUE(share);
  EXPECT_EQ(share->value, format_percent(attention(packed) / packed.median_us));
  const ChainLink* saved = find_link(chain, "step time saved in attention (forward + backward), one GPU, AdamW, FA2");
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->value, format_percent((attention(packed) - attention(varlen)) / packed.median_us));
  const ChainLink* gemm = find_link(chain, "step time saved in GEMMs, one GPU, AdamW, FA2");
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->value, format_percent(0.0));
  const ChainLink* idle = find_link(chain, "step time saved while the GPU waited (median - busy), one GPU, AdamW, FA2");
  ASSERT_TRUE(idle);
  const double idle_packed = packed.median_us - packed.kernels_us(),
               idle_varlen = varlen.median_us - varlen.kernels_us();
  EXPECT_EQ(idle->value, format_percent((idle_packed - idle_varlen) / packed.median_us));
  EXPECT_EQ(find_link(chain, "step time saved in exposed communication, one GPU, AdamW, FA2"),
            nullptr);  // one GPU: none

  // Each part's saving and the idle time's add up to the measured saving.
  const std::vector<MeasuredStepPair> pairs = pairs_of(dir_);
  ASSERT_EQ(pairs.size(), 1u);
  double parts_saved = *step_idle_us(pairs[0].packed->row) - *step_idle_us(pairs[0].varlen->row);
  for (StepPart p : all_step_parts) parts_saved += *pairs[0].packed->row.part_us(p) - *pairs[0].varlen->row.part_us(p);
  EXPECT_NEAR(parts_saved / packed.median_us, *pairs[0].saving(), 1e-12);
}

// The last paragraph prices the article's saving: the attention time varlen saved here, over 1.80%,
// is the step the article's saving would need; the bench predictions play no part in it.
TEST_F(MeasuredStep, TheExplanationEndsAtTheStepTheArticlesSavingWouldNeed) {
  const std::vector<StepFixture> rows = fa2_pair();
  write("step.csv", step_csv(rows));
  const std::vector<MeasuredStepPair> pairs = pairs_of(dir_);
  ASSERT_EQ(pairs.size(), 1u);
  const std::array<StepTimePrediction, 2> no_prediction{
      predict_step_time(scenario, step, KernelFamily::attnlab, 756.0, std::nullopt, MeasuredRuns{}),
      predict_step_time(scenario, step, KernelFamily::flash_attention_2, 756.0, std::nullopt, MeasuredRuns{})};
  const std::vector<std::string> text = step_explanation(scenario, no_prediction, pairs);
  ASSERT_EQ(text.size(), 1u);  // no bench rows: no prediction to set beside the measurement
  const double saved = *step_attention_us(pairs[0].packed->row) - *step_attention_us(pairs[0].varlen->row);
  const double needed = saved / article_step_saving;
  EXPECT_NE(text[0].find("varlen saved " + format_us(saved) + " (one GPU, AdamW, FA2)"), std::string::npos) << text[0];
  EXPECT_NE(text[0].find(format_us(needed) + ", " + format_ratio(needed / rows[0].median_us) +
                         " the measured packed step (FA2)"),
            std::string::npos)
      << text[0];
  EXPECT_TRUE(step_explanation(scenario, no_prediction, {}).empty());
}

TEST_F(MeasuredStep, EightGpuRowsGiveTheirOwnLink) {
  std::vector<StepFixture> rows = fa2_pair();
  for (StepFixture& f : fa2_pair()) {
    f.gpus = 8;
    f.parts[int(StepPart::communication)] = 15000;
    f.exposed_us = 4000;
    f.median_us += 20000;
    rows.push_back(f);
  }
  write("step.csv", step_csv(rows));
  const std::vector<MeasuredStepPair> pairs = pairs_of(dir_);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].gpus, 1);  // one GPU before several
  const std::vector<ChainLink> chain = chain_of(pairs);
  // Rows from before the gradient_sync column synchronized after the backward.
  EXPECT_EQ(pairs[1].gradient_sync, GradientSync::after_backward);
  EXPECT_FALSE(pairs[0].gradient_sync);  // one GPU: no all-reduce
  const ChainLink* eight = find_link(chain, "measured step saving, 8 GPUs, AdamW, all-reduce after bwd, FA2");
  ASSERT_TRUE(eight);
  EXPECT_EQ(eight->value, format_percent(1.0 - rows[3].median_us / rows[2].median_us));
  EXPECT_TRUE(find_link(chain, "step time saved in exposed communication, 8 GPUs, AdamW, all-reduce after bwd, FA2"));
  EXPECT_EQ(pairs[1].packed->row.communication_exposed_us, 4000);
  EXPECT_FALSE(pairs[0].packed->row.communication_exposed_us);
}

// Muon steps pair with Muon steps: a setting is (backend, kernel, GPUs, optimizer), and the chain names each.
TEST_F(MeasuredStep, MuonAndAdamwStepsArePairedApart) {
  std::vector<StepFixture> rows = fa2_pair();
  for (StepFixture& f : fa2_pair()) {
    f.optimizer = "muon";
    f.parts[int(StepPart::optimizer)] = 45000;  // the Newton-Schulz products count as the optimizer's
    f.median_us += 25000;
    rows.push_back(f);
  }
  write("step.csv", step_csv(rows));
  const std::vector<MeasuredStepPair> pairs = pairs_of(dir_);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].optimizer, StepOptimizer::adamw);  // AdamW before Muon
  EXPECT_EQ(pairs[1].optimizer, StepOptimizer::muon);
  const std::vector<ChainLink> chain = chain_of(pairs);
  const ChainLink* muon = find_link(chain, "measured step saving, one GPU, Muon, FA2");
  ASSERT_TRUE(muon);
  EXPECT_EQ(muon->value, format_percent(1.0 - rows[3].median_us / rows[2].median_us));
  EXPECT_EQ(muon->evidence, LinkEvidence::measured);
  // The distance starts from the setting nearest the article's run, and says Muon is measured.
  const std::optional<std::string> distance = article_distance(scenario, pairs);
  ASSERT_TRUE(distance);
  EXPECT_NE(distance->find("(one GPU, Muon, FA2)"), std::string::npos) << *distance;
  EXPECT_NE(distance->find("These steps measure nanochat's Muon optimizer"), std::string::npos) << *distance;
  EXPECT_NE(distance->find("real documents of mixed lengths (these are all one length)"), std::string::npos);
  EXPECT_NE(distance->find("the article's 8 GPUs"), std::string::npos);

  write("step.csv",
        "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,max_us,"
        "useful_tflops,scores_computed,scores_useful,rel_l2_error,gpus,optimizer\n"
        "nanochat-d24,packed,torch-step-fa2,H100,bf16,12,128,true,step,1,1,1,,,,,1,sgd\n");
  LoadedResults bad;
  load_results_folder(bad, dir_);
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("step.csv:2: optimizer: expected adamw or muon, got \"sgd\""), std::string::npos)
      << bad.problems[0];
}

// Where varlen's attention is not faster in the step (noise, another backend), no step length makes its
// saving the article's: the distance says so instead of a negative step, and no ratio of savings is formed.
TEST_F(MeasuredStep, NoAttentionSavedGivesNoStepToReachTheArticle) {
  std::vector<StepFixture> rows = fa2_pair();
  rows[1].parts[int(StepPart::attention_bwd)] = 90000;  // varlen's attention 20 ms slower than packed's
  write("step.csv", step_csv(rows));
  const std::vector<MeasuredStepPair> pairs = pairs_of(dir_);
  const std::optional<std::string> distance = article_distance(scenario, pairs);
  ASSERT_TRUE(distance);
  EXPECT_NE(distance->find("Varlen saved no attention time in the measured step (one GPU, AdamW, FA2, " +
                           format_us(10000) + " more), so no step length makes its saving 1.80%"),
            std::string::npos)
      << *distance;
  EXPECT_EQ(distance->find("would have to take"), std::string::npos) << *distance;
  EXPECT_EQ(distance->find(" -"), std::string::npos) << *distance;  // no negative figure
}

// Measured times are bounded where they are read: every figure the chain forms from them is finite.
TEST_F(MeasuredStep, StepTimesOutsideTheirBoundsAreRefusedInOneLine) {
  const auto problem_of = [&](const std::string& median, const std::string& part) {
    std::vector<StepFixture> rows = fa2_pair();
    std::string text = step_csv(rows);
    const std::string packed = step_line(rows[0]);
    std::string edited = packed;
    edited.replace(edited.find("400000"), 6, median);
    if (!part.empty()) edited.replace(edited.find(",200000,"), 8, "," + part + ",");
    text.replace(text.find(packed), packed.size(), edited);
    write("step.csv", text);
    LoadedResults results;
    load_results_folder(results, dir_);
    EXPECT_LE(results.problems.size(), 1u);
    return results.problems.empty() ? std::string() : results.problems.front();
  };
  EXPECT_NE(problem_of("0", "").find("step.csv:2: median_us: expected a number of \xC2\xB5s from 0.001 to 1e9"),
            std::string::npos);
  EXPECT_NE(problem_of("1e308", "").find("median_us: expected a number of \xC2\xB5s from 0.001"), std::string::npos);
  EXPECT_NE(problem_of("1e-300", "").find("median_us: expected a number of \xC2\xB5s from 0.001"), std::string::npos);
  EXPECT_EQ(problem_of("0.001", ""), "");  // a nanosecond: the shortest time kept
  EXPECT_NE(problem_of("400000", "1e308").find("step_gemm_us: expected a number of \xC2\xB5s from 0 to 1e9"),
            std::string::npos);
}

// The rows name a scenario as its file defines it: an edit that keeps the name and the token
// count (another model, other documents) is another step, and no row measures it.
TEST_F(MeasuredStep, AnEditThatKeepsTheNameIsNotTheMeasuredStep) {
  write("step.csv", step_csv(fa2_pair()));
  LoadedResults results;
  load_results_folder(results, dir_);
  const Scenario defined = scenario;
  ASSERT_EQ(measured_step_pairs(scenario, step, results, lookup_in(std::span(&defined, 1))).size(), 1u);

  Scenario fewer_layers = scenario;
  fewer_layers.model->layers = 12;
  const TrainingStep fewer_step = model_training_step(fewer_layers, *fewer_layers.model);
  ASSERT_EQ(fewer_step.tokens, step.tokens);
  EXPECT_TRUE(measured_step_pairs(fewer_layers, fewer_step, results, lookup_in(std::span(&defined, 1))).empty());

  Scenario shorter_documents = scenario;  // 128 documents of 256: the same 32,768 tokens
  shorter_documents.doc_lengths.assign(128, 256);
  const TrainingStep shorter_step = model_training_step(shorter_documents, *shorter_documents.model);
  ASSERT_EQ(shorter_step.tokens, step.tokens);
  EXPECT_TRUE(measured_step_pairs(shorter_documents, shorter_step, results, lookup_in(std::span(&defined, 1))).empty());
  EXPECT_TRUE(measured_step_pairs(scenario, step, results, lookup_in(std::span<const Scenario>{}))
                  .empty());  // no file defines it
}

// Step rows are matched by the step they ran, as attention rows by their cells: an identical copy
// of nanochat-d24 under another name is the measured step (it was "not measured").
TEST_F(MeasuredStep, ACopyUnderAnotherNameIsTheMeasuredStep) {
  write("step.csv", step_csv(fa2_pair()));
  LoadedResults results;
  load_results_folder(results, dir_);
  Scenario copy = scenario;
  copy.name = "my-d24";
  const std::vector<MeasuredStepPair> pairs =
      measured_step_pairs(copy, step, results, lookup_in(std::span(&scenario, 1)));
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_TRUE(pairs[0].packed && pairs[0].varlen);
  // By default a row's name leads to the scenarios folder's file of that name.
  EXPECT_EQ(measured_step_pairs(copy, step, results).size(), 1u);
  // A row naming a path, or a name no file has, stands for nothing.
  for (const char* name : {"../scenarios/nanochat-d24", "nanochat-d24.toml", "no-such-scenario"}) {
    std::vector<StepFixture> rows = fa2_pair();
    for (StepFixture& f : rows) f.scenario = name;
    write("step.csv", step_csv(rows));
    LoadedResults named;
    load_results_folder(named, dir_);
    EXPECT_TRUE(measured_step_pairs(copy, step, named).empty()) << name;
  }
}

TEST_F(MeasuredStep, RowsOfAnotherScenarioOrTokenCountAreNeverUsed) {
  std::vector<StepFixture> rows;
  for (const StepFixture& f : fa2_pair()) {
    StepFixture other_scenario = f, other_tokens = f;
    other_scenario.scenario = "nanochat-d24-web-mix";
    other_tokens.tokens = step.tokens + 1;
    rows.push_back(other_scenario);
    rows.push_back(other_tokens);
  }
  write("step.csv", step_csv(rows));
  const std::vector<MeasuredStepPair> pairs = pairs_of(dir_);
  EXPECT_TRUE(pairs.empty());
  const std::vector<ChainLink> chain = chain_of(pairs);
  const ChainLink* waiting = find_link(chain, "the measured step, packed against varlen");
  ASSERT_TRUE(waiting);
  EXPECT_EQ(waiting->value, "not measured");
}

// A bad step row is refused in one line naming the file, the line, the column and the limit.
TEST_F(MeasuredStep, BadStepRowsAreRefusedInOneLine) {
  StepFixture good = fa2_pair()[0];
  const auto error_of = [&](const std::string& name, const std::string& text) {
    const fs::path p = write(name, text);
    try {
      read_results_rows(p);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  StepFixture no_gpus = good;
  no_gpus.gpus = 0;
  const std::string gpus = error_of("gpus.csv", step_csv({good, no_gpus}));
  EXPECT_NE(gpus.find("gpus.csv:3: gpus: expected an integer from 1 to 1024, got \"0\""), std::string::npos) << gpus;
  StepFixture negative = good;
  negative.parts[int(StepPart::gemm)] = -5;
  const std::string part = error_of("part.csv", step_csv({negative}));
  EXPECT_NE(part.find("part.csv:2: step_gemm_us: expected a number of \xC2\xB5s from 0 to 1e9, got \"-5\""),
            std::string::npos)
      << part;
  std::string missing = step_line(good);
  missing.replace(missing.find(",step,") + 6, std::to_string(int(good.median_us)).size(), "");
  const std::string median = error_of("median.csv", step_header() + missing);
  EXPECT_NE(median.find("median.csv:2: median_us: a step row needs the step's time"), std::string::npos) << median;
  StepFixture padded = good;
  padded.implementation = "padded";
  const std::string layout = error_of("layout.csv", step_csv({padded}));
  EXPECT_NE(layout.find("layout.csv:2: implementation: a step row's layout: expected packed or varlen"),
            std::string::npos)
      << layout;
  std::string fwd_with_gpus = step_line(good);
  fwd_with_gpus.replace(fwd_with_gpus.find(",step,"), 6, ",fwd,");
  const std::string fwd = error_of("fwd.csv", step_header() + fwd_with_gpus);
  EXPECT_NE(fwd.find("fwd.csv:2: gpus: only a step row (pass step) holds a value"), std::string::npos) << fwd;
  for (const std::string& e : {gpus, part, median, layout, fwd}) EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

// The model's products, as python -m attnlab.step.gemms times them: (m x k)·(k x n) per linear layer and pass.
struct Product {
  const char* gemm;
  std::int64_t in, out;
  int per_step;
};

std::string gemms_csv(const Scenario& s, const TrainingStep& step, double& fwd_us, double& bwd_us,
                      std::size_t leave_out = SIZE_MAX) {
  const ModelShape& m = *s.model;
  const std::int64_t width = m.width, q = std::int64_t(m.heads) * m.head_dim,
                     kv = std::int64_t(m.kv_heads) * m.head_dim;
  const Product products[] = {{"attn.c_q", width, q, m.layers},
                              {"attn.c_k", width, kv, m.layers},
                              {"attn.c_v", width, kv, m.layers},
                              {"attn.c_proj", q, width, m.layers},
                              {"mlp.c_fc", width, std::int64_t(m.mlp_ratio) * width, m.layers},
                              {"mlp.c_proj", std::int64_t(m.mlp_ratio) * width, width, m.layers},
                              {"lm_head", width, m.vocab, 1}};
  std::string text = "scenario,gpu,dtype,gemm,pass,m,n,k,per_step,median_us,commit,date\n";
  fwd_us = bwd_us = 0;
  std::size_t i = 0;
  for (const Product& p : products) {
    const std::int64_t t = step.tokens;
    const std::array<std::array<std::int64_t, 3>, 3> mnk = {{{t, p.out, p.in}, {t, p.in, p.out}, {p.out, p.in, t}}};
    const char* passes[] = {"fwd", "bwd_input", "bwd_weight"};
    for (int pass = 0; pass < 3; ++pass, ++i) {
      if (i == leave_out) continue;
      const double median = 10.0 * double(i + 1);
      (pass == 0 ? fwd_us : bwd_us) += median * p.per_step;
      text += s.name + ",GPU,bf16," + p.gemm + "," + passes[pass] + "," + std::to_string(mnk[pass][0]) + "," +
              std::to_string(mnk[pass][1]) + "," + std::to_string(mnk[pass][2]) + "," + std::to_string(p.per_step) +
              "," + std::to_string(median) + ",c,d\n";
    }
  }
  return text;
}

TEST_F(MeasuredStep, GemmsAtTheModelsShapesPriceTheStepAtTheirSum) {
  double fwd_us = 0, bwd_us = 0;
  fs::create_directories(dir_ / "gemms");
  write("gemms/nanochat-d24.csv", gemms_csv(scenario, step, fwd_us, bwd_us));
  LoadedResults results;
  load_results_folder(results, dir_);
  ASSERT_TRUE(results.problems.empty()) << results.problems.front();
  const std::optional<MeasuredGemms> gemms = gemms_for_step(scenario, step, results.gemms);
  ASSERT_TRUE(gemms);
  const StepTimePrediction t =
      predict_step_time(scenario, step, KernelFamily::flash_attention_2, 756.0, gemms, MeasuredRuns{});
  for (const ImplementationStepTime* impl : {&t.packed, &t.varlen}) {
    ASSERT_TRUE(impl->gemm_us);
    // nanochat-d24's packed rows hold exactly its tokens: both layouts run the same products.
    EXPECT_NEAR((*impl->gemm_us)[int(Pass::fwd)], fwd_us, 1e-9 * fwd_us);
    EXPECT_NEAR((*impl->gemm_us)[int(Pass::bwd)], bwd_us, 1e-9 * bwd_us);
  }
  EXPECT_EQ(t.gemm_pricing().rfind("GEMMs measured at the model's shapes, ", 0), 0u) << t.gemm_pricing();

  // Without one of the products the rows are not the model's: the ceiling prices the step.
  write("gemms/nanochat-d24.csv", gemms_csv(scenario, step, fwd_us, bwd_us, 4));
  LoadedResults partial;
  load_results_folder(partial, dir_);
  EXPECT_FALSE(gemms_for_step(scenario, step, partial.gemms));
  const StepTimePrediction ceiling =
      predict_step_time(scenario, step, KernelFamily::flash_attention_2, 756.0, std::nullopt, MeasuredRuns{});
  EXPECT_EQ(ceiling.gemm_pricing(), "GEMMs at 756 TFLOP/s");
}

TEST_F(MeasuredStep, ABadGemmFileIsNamedInOneLine) {
  fs::create_directories(dir_ / "gemms");
  write("gemms/bad.csv", "scenario,gpu,dtype,gemm,pass,m,n,k,per_step,median_us\nx,GPU,bf16,lm_head,fwd,0,1,1,1,5\n");
  LoadedResults results;
  load_results_folder(results, dir_);
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_NE(results.problems[0].find("bad.csv:2: m: expected an integer from 1 to "), std::string::npos)
      << results.problems[0];
  EXPECT_TRUE(results.gemms.empty());

  // A finite time whose sum over a step's products would overflow to infinity.
  write("gemms/bad.csv",
        "scenario,gpu,dtype,gemm,pass,m,n,k,per_step,median_us\nx,GPU,bf16,lm_head,fwd,1,1,1,1,1.7e308\n");
  LoadedResults huge;
  load_results_folder(huge, dir_);
  ASSERT_EQ(huge.problems.size(), 1u);
  EXPECT_NE(huge.problems[0].find("bad.csv:2: median_us: expected a number of \xC2\xB5s from 0.001 to 1e9"),
            std::string::npos)
      << huge.problems[0];
}

// The CLI's consumers of a results folder all keep working with a step CSV in it.
TEST_F(MeasuredStep, TheCliClosesTheChainOnAFixtureFolder) {
  write_results_csv(dir_ / "attnlab-bench.csv", {our_row("varlen", 300, "wgmma-sm90")});
  write("attnlab-step.csv", step_csv(fa2_pair()));
  const std::string env = "ATTNLAB_RESULTS='" + dir_.string() + "'";
  const cli_run::CliRun step_run = cli_run::attnlab(
      "step '" + (fs::path(ATTNLAB_SOURCE_DIR) / "scenarios" / "nanochat-d24.toml").string() + "'", env);
  EXPECT_EQ(step_run.exit_code, 0) << step_run.err;
  // The measured table: the setting's line with FA2's saving.
  EXPECT_EQ(cli_run::measured_savings(cli_run::measured_line(step_run.out, "one GPU, AdamW")), 1u) << step_run.out;
  EXPECT_EQ(step_run.err, "");
  const cli_run::CliRun details = cli_run::attnlab(
      "step --details '" + (fs::path(ATTNLAB_SOURCE_DIR) / "scenarios" / "nanochat-d24.toml").string() + "'", env);
  EXPECT_EQ(details.exit_code, 0) << details.err;
  EXPECT_NE(details.out.find("The measured step, one GPU, AdamW, FA2 (attnlab-step.csv)"), std::string::npos)
      << details.out;
  EXPECT_NE(details.out.find("measured step saving, one GPU, AdamW, FA2"), std::string::npos) << details.out;
  const cli_run::CliRun model = cli_run::attnlab("model", env);
  EXPECT_EQ(model.exit_code, 0) << model.err;
  EXPECT_EQ(model.err, "");
  const cli_run::CliRun results = cli_run::attnlab("results '" + dir_.string() + "'");
  EXPECT_EQ(results.exit_code, 0) << results.err;
  EXPECT_EQ(results.out.find("torch-step"), std::string::npos) << results.out;
}

}  // namespace
}  // namespace attnlab
