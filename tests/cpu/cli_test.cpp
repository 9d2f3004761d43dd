#include <gtest/gtest.h>

#include <sys/resource.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/input_limits.hpp"
#include "tests/cpu/cli_run.hpp"
#include "tests/cpu/huge_scenarios.hpp"
#include "tests/cpu/test_folder.hpp"
#include "tests/test_rows.hpp"

namespace {

using namespace attnlab;
namespace fs = std::filesystem;

using attnlab::cli_run::attnlab;
using attnlab::cli_run::CliRun;
using attnlab::cli_run::expect_at_a_glance;
using attnlab::cli_run::scratch_dir;
using attnlab::cli_run::split;

// A scenario file in the test's scratch folder.
fs::path scenario_file(const std::string& name, const std::string& toml) {
  const fs::path file = scratch_dir() / name;
  std::ofstream(file) << toml;
  return file;
}

// The CSV as rows of cells, and a cell by column name.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string cell(const std::string& implementation, const std::string& column) const {
    const auto col = std::find(header.begin(), header.end(), column) - header.begin();
    const auto impl = std::find(header.begin(), header.end(), "implementation") - header.begin();
    for (const auto& row : rows)
      if (row.at(impl) == implementation) return row.at(col);
    ADD_FAILURE() << "no row " << implementation;
    return "";
  }
};

Csv parse_csv(const std::string& text) {
  Csv csv;
  const auto lines = split(text, '\n');
  if (lines.empty()) return csv;
  csv.header = split(lines[0], ',');
  for (std::size_t i = 1; i < lines.size(); ++i) csv.rows.push_back(split(lines[i], ','));
  return csv;
}

TEST(Cli, ListShowsEveryShippedScenarioWithItsWhy) {
  const CliRun r = attnlab("list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name :
       {"uniform-64x512 (default)", "uniform-16x2048", "web-mix-2048", "long-tail", "one-doc-16384", "sft-chats"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  EXPECT_NE(r.out.find("The article's case"), std::string::npos);
}

TEST(Cli, ModelCsvHasOneRowPerImplementationAndTheEightfoldRatio) {
  const CliRun r = attnlab("model uniform-64x512 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Csv csv = parse_csv(r.out);
  ASSERT_EQ(csv.rows.size(), 4u) << r.out;
  const std::string required =
      "scenario,implementation,scores_computed,scores_useful,scores_padding,scores_bleed,scores_causal_masked,"
      "flops_fwd,hbm_bytes_model,extra_memory_bytes";
  for (const std::string& column : split(required, ','))
    EXPECT_NE(std::find(csv.header.begin(), csv.header.end(), column), csv.header.end()) << column;
  EXPECT_EQ(csv.rows[0][0], "uniform-64x512");
  EXPECT_EQ(csv.cell("packed", "scores_attended"), std::to_string(8LL * 4096 * 4097 / 2 * 16));
  EXPECT_NEAR(std::stod(csv.cell("packed", "attended_vs_varlen")), 4097.0 / 513.0, 1e-6);          // 7.99x
  EXPECT_NEAR(std::stod(csv.cell("packed", "computed_vs_varlen")), 2080.0 * 8 / (36 * 64), 1e-6);  // 7.22x at 64x64
  EXPECT_EQ(csv.cell("varlen", "scores_bleed"), "0");
}

TEST(Cli, ModelCsvHasTheBackwardPass) {
  const CliRun r = attnlab("model uniform-64x512 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Csv csv = parse_csv(r.out);
  // flash: 5 matrix products per score (2.5x the forward), naive 4 from its kept P (2x).
  for (const char* flash : {"padded", "packed", "varlen"}) {
    EXPECT_EQ(std::stoll(csv.cell(flash, "flops_bwd")) * 2, std::stoll(csv.cell(flash, "flops_fwd")) * 5) << flash;
    EXPECT_EQ(csv.cell(flash, "gemms_bwd"), "5");
    EXPECT_EQ(csv.cell(flash, "scores_recomputed_bwd"), csv.cell(flash, "scores_computed"));
    EXPECT_EQ(csv.cell(flash, "dq_accumulation"), "atomic_fp32");
  }
  EXPECT_EQ(std::stoll(csv.cell("naive", "flops_bwd")), 2 * std::stoll(csv.cell("naive", "flops_fwd")));
  EXPECT_EQ(csv.cell("naive", "scores_recomputed_bwd"), "0");
  EXPECT_EQ(csv.cell("naive", "dq_accumulation"), "");
  // Useful backward FLOPs: 10 * D per useful score, whatever runs them.
  EXPECT_EQ(csv.cell("naive", "flops_useful_bwd"), csv.cell("varlen", "flops_useful_bwd"));
  EXPECT_EQ(std::stoll(csv.cell("varlen", "flops_useful_bwd")),
            10LL * 128 * std::stoll(csv.cell("varlen", "scores_useful")));
  EXPECT_GT(std::stoll(csv.cell("naive", "extra_memory_bytes_bwd")),
            std::stoll(csv.cell("naive", "extra_memory_bytes")));
  EXPECT_GT(std::stoll(csv.cell("packed", "hbm_bytes_model_bwd")),
            std::stoll(csv.cell("varlen", "hbm_bytes_model_bwd")));
}

TEST(Cli, ModelNonCausalPackedComputesEightTimesVarlen) {
  const fs::path file =
      scenario_file("noncausal.toml",
                    "why = \"The article's case without the causal mask.\"\nheads = 16\nhead_dim = 128\n"
                    "dtype = \"bf16\"\ncausal = false\nrow_len = 4096\n"
                    "[documents]\nsource = \"uniform\"\ncount = 64\nlength = 512\n");
  const CliRun r = attnlab("model '" + file.string() + "' --format csv --tile 128x64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Csv csv = parse_csv(r.out);
  EXPECT_EQ(csv.cell("packed", "computed_vs_varlen"), "8.000000");
  EXPECT_EQ(csv.cell("packed", "tile"), "128x64");
}

TEST(Cli, ModelTableRoundsIntoTheNextPrefix) {
  // varlen with 1x1 tiles computes 1413*1414/2 + 32*33/2 = 999,519 scores: "1.00 M", never "1000 k".
  const fs::path file = scenario_file("almost-a-million.toml",
                                      "why = \"A count just under a million.\"\nheads = 1\nhead_dim = 8\n"
                                      "dtype = \"bf16\"\ncausal = true\nrow_len = 4096\n"
                                      "[documents]\nsource = \"list\"\nlengths = [1413, 32]\n");
  const CliRun r = attnlab("model '" + file.string() + "' --tile 1x1", "ATTNLAB_RESULTS=/nonexistent");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto line = r.out.find("\n  useful ");
  ASSERT_NE(line, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(line, r.out.find('\n', line + 1) - line).find("1000 k"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.00 M"), std::string::npos) << r.out;
}

TEST(Cli, ModelTableIsTheDefaultAndCallsOutTheRatio) {
  const CliRun r = attnlab("model", "ATTNLAB_RESULTS=/nonexistent");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("uniform-64x512"), std::string::npos);
  EXPECT_NE(r.out.find("packed computes 7.22x the scores of varlen (64x64 tiles); its mask lets through 7.99x"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("measured"), std::string::npos);
  EXPECT_NE(r.out.find("bwd: FLOPs / fwd FLOPs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("backward: naive keeps "), std::string::npos) << r.out;
  // A results folder that is not there is said, once: "not measured" is never silent.
  EXPECT_EQ(r.err,
            "attnlab: warning: results: /nonexistent: cannot read the results folder (No such file or directory); "
            "nothing measured is loaded\n");
}

TEST(Cli, ModelPrintsMeasuredRowsAndWarnsOnceAboutABrokenFile) {
  const fs::path results = scratch_dir() / "results";
  fs::create_directories(results);
  std::ofstream(results / "good.csv")
      << "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,max_us,useful_tflops,"
         "scores_computed,scores_useful,rel_l2_error\n"
         "uniform-64x512,varlen,attnlab,Some GPU,bf16,16,128,true,fwd,123.5,120,130,,,,\n"
         "uniform-16x2048,varlen,attnlab,Some GPU,bf16,16,128,true,fwd,999.5,990,1000,,,,\n";
  std::ofstream(results / "broken.csv") << "scenario,implementation\nx,y\n";
  std::ofstream(results / "kernels.csv")
      << "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,max_us,useful_tflops,"
         "scores_computed,scores_useful,rel_l2_error,kernel\n"
         "uniform-64x512,varlen,attnlab,Some GPU,bf16,16,128,true,fwd,211.5,210,213,,,,,wgmma-sm90\n"
         "uniform-64x512,varlen,attnlab,Some GPU,bf16,16,128,true,fwd,386.5,384,388,,,,,mma-sm80\n";
  const CliRun r = attnlab("model --all-runs", "ATTNLAB_RESULTS='" + results.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("123.5"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("999.5"), std::string::npos) << "a row of another scenario";
  // Times in µs, as the GUI shows them, the column lined up although "µ" takes two bytes.
  const auto column_after = [](const std::string& line, const std::string& text) {
    const std::string before = line.substr(0, line.find(text) + text.size());
    return std::count_if(before.begin(), before.end(), [](unsigned char c) { return (c & 0xC0) != 0x80; });
  };
  std::string header, row;
  for (const std::string& line : split(r.out, '\n')) {
    if (line.find("median \xC2\xB5s") != std::string::npos) header = line;
    if (line.find("123.5") != std::string::npos) row = line;
  }
  ASSERT_FALSE(header.empty()) << r.out;
  EXPECT_EQ(column_after(header, "median \xC2\xB5s"), column_after(row, "123.5")) << header << "\n" << row;
  // Each row names the kernel that ran it: two kernels' rows of one implementation stay apart.
  for (const auto& [kernel, median] : {std::pair{"wgmma-sm90", "211.5"}, std::pair{"mma-sm80", "386.5"}}) {
    const auto at = r.out.find(median);
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::string line = r.out.substr(r.out.rfind('\n', at) + 1, at - r.out.rfind('\n', at));
    EXPECT_NE(line.find(kernel), std::string::npos) << line;
  }
  EXPECT_EQ(split(r.err, '\n').size(), 1u) << r.err;
  EXPECT_NE(r.err.find("broken.csv"), std::string::npos) << r.err;
}

// Under the model, one line per implementation and pass: our fastest kernel's primary run, the
// fastest peer of that layout, and the peer's time over ours; every row only with --all-runs.
TEST(Cli, ModelSummarizesEachImplementationAndPassWithTheBestPeer) {
  const fs::path results = scratch_dir() / "results";
  fs::create_directories(results);
  ResultRow bwd_ours = our_row("varlen", 1000, "wgmma-sm90"), bwd_peer = peer_row("torch-varlen_attn", "varlen", 1100);
  bwd_ours.pass = bwd_peer.pass = Pass::bwd;
  write_results_csv(results / "ours.csv", {our_row("varlen", 300, "mma-sm80"), our_row("varlen", 200, "wgmma-sm90"),
                                           our_row("packed", 900, "wgmma-sm90"), bwd_ours});
  write_results_csv(results / "peers.csv", {peer_row("torch-flex-document-mask", "varlen", 400),
                                            peer_row("torch-varlen_attn", "varlen", 250), bwd_peer});
  write_results_csv(results / "peers-again.csv",
                    {peer_row("torch-varlen_attn", "varlen", 150)});  // not the primary run
  const std::string env = "ATTNLAB_RESULTS='" + results.string() + "'";
  const CliRun r = attnlab("model", env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto words = [](const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  };
  // The summary's line of one implementation and pass, as words.
  const auto line_of = [&](const std::string& out, const std::string& implementation, const std::string& pass) {
    for (const std::string& line : split(out, '\n'))
      if (const auto w = words(line); w.size() > 2 && w[0] == implementation && w[1] == pass) return w;
    return std::vector<std::string>();
  };
  // measured, pass, ours (2 words), kernel, file, best peer (2 words), source, peer / ours
  EXPECT_EQ(line_of(r.out, "varlen", "fwd"),
            (std::vector<std::string>{"varlen", "fwd", "200", "\xC2\xB5s", "wgmma-sm90", "ours.csv", "250", "\xC2\xB5s",
                                      "torch-varlen_attn", "1.25x"}))
      << r.out;
  EXPECT_EQ(line_of(r.out, "packed", "fwd"),
            (std::vector<std::string>{"packed", "fwd", "900", "\xC2\xB5s", "wgmma-sm90", "ours.csv", "-", "-", "-"}))
      << r.out;
  ASSERT_FALSE(line_of(r.out, "varlen", "bwd").empty()) << r.out;
  EXPECT_EQ(line_of(r.out, "varlen", "bwd").back(), "1.10x") << r.out;
  EXPECT_EQ(r.out.find("400"), std::string::npos) << "a slower peer is listed only with --all-runs\n" << r.out;
  const CliRun all = attnlab("model --all-runs", env);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  for (const char* median : {"400.0", "300.0", "150.0"}) EXPECT_NE(all.out.find(median), std::string::npos) << all.out;
}

TEST(Cli, BadScenarioExitsTwoWithOneLineNamingTheFile) {
  const fs::path file =
      scenario_file("bad.toml",
                    "why = \"x\"\nheads = 16\nhead_dim = 128\ndtype = \"bf16\"\ncausal = true\nrow_len = 4096\n"
                    "[documents]\nsource = \"uniform\"\ncount = -3\nlength = 512\n");
  const CliRun r = attnlab("model '" + file.string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(split(r.err, '\n').size(), 1u) << r.err;
  EXPECT_NE(r.err.find(file.string() + ": documents.count: expected a positive integer of at most 16777216, got -3"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());

  const CliRun missing = attnlab("model no-such-scenario");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no-such-scenario.toml"), std::string::npos) << missing.err;
}

TEST(Cli, ModelJsonIsTheResolvedScenarioForScripts) {
  const CliRun r = attnlab("model web-mix-2048-bestfit --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(split(r.out, '\n').size(), 1u) << "one JSON object on one line";
  for (const char* key : {"\"name\":\"web-mix-2048-bestfit\"", "\"packing\":\"best_fit\"", "\"row_len\":2048",
                          "\"doc_lengths\":[", "\"packed_rows\":[[[", "\"tile\":[64,64]",
                          "\"scores_useful\":{\"naive\":", "\"results_columns\":[\"scenario\",\"implementation\","})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out.substr(0, 300);
  EXPECT_NE(r.out.find("\"kernel\""), std::string::npos) << "the results columns include kernel";
  // The useful scores are the model's (csv) for each implementation.
  const Csv csv = parse_csv(attnlab("model web-mix-2048-bestfit --format csv").out);
  EXPECT_NE(r.out.find("\"packed\":" + csv.cell("packed", "scores_useful")), std::string::npos);
}

// What the Python tables take from the C++ side: the peer families as results/peer_families.csv
// holds them, and, given ceilings, the scenario's floor. uniform-64x512 by hand: 64 documents of
// 512 tokens, 16 heads and KV heads, head dim 128, bf16; useful scores 64 x 16 x 512 x 513 / 2 =
// 134,479,872, at 4 x 128 FLOPs each 68,853,694,464; least bytes: Q, K, V read once and O
// written once, 32,768 tokens x 128 x 2 bytes x 2 x (16 + 16) = 536,870,912.
TEST(Cli, ModelJsonCarriesTheFamiliesAndTheFloorAtTheCeilings) {
  const CliRun plain = attnlab("model uniform-64x512 --format json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("\"ceilings\":null,\"floor\":null}"), std::string::npos) << "no ceilings given";
  EXPECT_NE(plain.out.find(
                "{\"name\":\"FlashAttention-2\",\"short_name\":\"FA2\",\"sources\":{\"naive\":[],"
                "\"padded\":[\"torch-sdpa-flash-padded\"],\"packed\":[\"torch-sdpa-flash-packed\","
                "\"torch-varlen_attn-packed\"],\"varlen\":[\"torch-varlen_attn\",\"torch-varlen_attn-kv-expanded\"]}}"),
            std::string::npos)
      << "FA2's sources, in the families file's order";

  const fs::path ceilings = scratch_dir() / "ceilings-500-2.toml";
  std::ofstream(ceilings) << "[gemm_bf16]\ntflops = 500\nwhat = \"a GEMM\"\ngpu = \"G\"\ndate = \"d\"\nsource = \"s\"\n"
                             "[copy]\ntbps = 2\nwhat = \"a copy\"\ngpu = \"G\"\ndate = \"d\"\nsource = \"s\"\n";
  const CliRun r = attnlab("model uniform-64x512 --format json --ceilings '" + ceilings.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 68,853,694,464 FLOPs at 500 TFLOP/s; 536,870,912 bytes at 2 TB/s, the longer: memory-bound.
  EXPECT_NE(r.out.find("\"ceilings\":{\"tflops\":500,\"tbps\":2},\"floor\":{\"flops_useful\":68853694464,"
                       "\"least_bytes\":536870912,\"flops_us\":137.707388928,\"bytes_us\":268.435456,"
                       "\"us\":268.435456,\"memory_bound\":true}}"),
            std::string::npos)
      << r.out.substr(r.out.find("\"ceilings\""));

  const CliRun csv = attnlab("model uniform-64x512 --format csv --ceilings '" + ceilings.string() + "'");
  EXPECT_EQ(csv.exit_code, 2);
  EXPECT_EQ(csv.err, "attnlab: --ceilings: only with --format json (the floor is a field of the JSON)\n");
  std::ofstream(ceilings) << "[gemm_bf16]\ntflops = 500\n";
  const CliRun bad = attnlab("model uniform-64x512 --format json --ceilings '" + ceilings.string() + "'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("ceilings-500-2.toml: gemm_bf16.what: expected one line of printable text"), std::string::npos)
      << bad.err;
  EXPECT_TRUE(bad.out.empty());
}

TEST(Cli, ModelJsonAndCsvEscapeTheScenarioName) {
  const fs::path file = scenario_file("say \"a,b\".toml",
                                      "why = \"A name with a comma and quotes.\"\nheads = 1\nhead_dim = 64\n"
                                      "dtype = \"bf16\"\ncausal = true\nrow_len = 64\n"
                                      "[documents]\nsource = \"list\"\nlengths = [3, 5]\n");
  const CliRun json = attnlab("model '" + file.string() + "' --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"name\":\"say \\\"a,b\\\"\""), std::string::npos) << json.out.substr(0, 100);
  const CliRun csv = attnlab("model '" + file.string() + "' --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("\n\"say \"\"a,b\"\"\",naive,"), std::string::npos) << csv.out;
}

// A folder's name is printed through printable() wherever a command names a path: escape codes,
// bells and line breaks in it cannot reach the terminal.
TEST(Cli, PathsInHeadersArePrintable) {
  const fs::path folder = scratch_dir() / "s\x1b[31m\x07\nx";
  fs::create_directories(folder);
  std::ofstream(folder / "tiny.toml") << "why = \"A tiny scenario.\"\nheads = 1\nhead_dim = 64\ndtype = \"bf16\"\n"
                                         "causal = true\nrow_len = 64\n[documents]\nsource = \"list\"\n"
                                         "lengths = [3, 5]\n";
  const std::string env = "ATTNLAB_SCENARIOS='" + folder.string() + "' ATTNLAB_RESULTS='" + folder.string() + "'";
  for (const std::string args : {"model tiny", "cp tiny --ranks 2", "list"}) {
    const CliRun r = attnlab(args, env);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
    for (const std::string& text : {r.out, r.err}) {
      EXPECT_EQ(text.find('\x1b'), std::string::npos) << args << ": " << text;
      EXPECT_EQ(text.find('\x07'), std::string::npos) << args << ": " << text;
    }
    EXPECT_NE(r.out.find("s\\x1b[31m\\x07\\nx"), std::string::npos) << args << ": " << r.out;
  }
}

// Flags are checked before the GPU is looked for: bad values exit 2 on any machine.
TEST(Cli, RunFlagsAreCheckedBeforeAnyGpuWork) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run --implementations padded,flash", "--implementations: expected a comma-separated list"},
      {"run --impl flash", "--implementations: expected"},  // the older spelling still parses
      {"run --dtypes bf16,fp32", "--dtypes: expected bf16 or fp16, got \"fp32\""},
      {"run --dtype=fp8", "--dtypes: expected bf16 or fp16, got \"fp8\""},
      {"run --kernel wgmma", "--kernel: expected one of wgmma-sm90, mma-sm80, wgmma-sm90/rung1, "},
      {"run --kernel wgmma", ", got \"wgmma\""},
      {"run --reps 0", "--reps: expected a positive number"},
      {"run --pass backward", "--pass: expected fwd, bwd or both, got \"backward\""},
      {"run --pass=fwd,bwd", "--pass: expected fwd, bwd or both, got \"fwd,bwd\""},
      {"run --warmup=-1", "--warmup: expected"},
      {"run --head-dims 64,x", "head-dims"},
      {"run --out /", "--out: / is a folder"},
      {"run --results_csv=/", "--out: / is a folder"},
      {"run --head-dims 0", "--head-dims: expected head dims from 1 to 256, got 0"},
      {"run --implementations naive,,packed", "got an empty name in \"naive,,packed\""},
      {"run no-such-scenario", "no-such-scenario"},
      {"run --reps 010", "--reps: expected an integer from 0 to 2147483647, got \"010\""},
      {"run --head-dims 0100", "expected an integer from 0 to 2147483647, got \"0100\""},
      {"run --head-dims 0x40", "expected an integer from 0 to 2147483647"},
      {"run --seed -1", "--seed: expected an integer from 0 to 18446744073709551615, got \"-1\""},
      {"run --seed 1e23", "expected an integer from 0 to 18446744073709551615, got \"1e23\""},
      {"run --reps 3000000000", "expected an integer from 0 to 2147483647, got \"3000000000\""},
      {"run --seed 100000000000000000000000", "--seed"},
  };
  for (const auto& [args, message] : cases) {
    const CliRun r = attnlab(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

TEST(Cli, BadTileExitsTwo) {
  for (const char* tile : {"64", "0x64", "64x64x2"}) {
    const CliRun r = attnlab(std::string("model --tile ") + tile);
    EXPECT_EQ(r.exit_code, 2) << tile;
    EXPECT_NE(r.err.find("--tile: expected BrxBc"), std::string::npos) << tile << ": " << r.err;
  }
  EXPECT_EQ(attnlab("model --format yaml").exit_code, 2);
}

// By default a newcomer reads the chain at a glance: its links, the measured steps and the distance
// to the article, in at most 40 lines of at most 120 columns, each link saying what its number rests on.
TEST(Cli, StepByDefaultIsTheChainAtAGlance) {
  for (const char* scenario : {"nanochat-d24", "nanochat-d24-web-mix", "nanochat-d24-no-window"}) {
    const CliRun r = attnlab(std::string("step ") + scenario);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    expect_at_a_glance(r.out);
    // A paragraph never parts a number from its unit ("2,513,358" at one line's end, "µs" the next).
    for (const std::string& line : split(r.out, '\n'))
      EXPECT_NE(line.rfind("\xC2\xB5s", 0), 0u) << scenario << ": " << line;
    const bool windowed = std::string(scenario) != "nanochat-d24-no-window";
    EXPECT_NE(r.out.find(windowed ? "what the window leaves" : "what the causal mask leaves (no window)"),
              std::string::npos)
        << r.out;
    for (const char* link : {"the article's count", "what tile quantization leaves",
                             "predicted step saving, from FLOPs", "the article's measured saving"})
      EXPECT_NE(r.out.find(link), std::string::npos) << scenario << ": " << link << "\n" << r.out;
    // Each measured setting's saving is its line of the measured table, a column per backend, not a
    // link of the chain again.
    EXPECT_NE(r.out.find("\nsetting "), std::string::npos) << r.out;
    EXPECT_GE(cli_run::measured_savings(cli_run::measured_line(r.out, "one GPU, AdamW")), 2u) << scenario << r.out;
    EXPECT_EQ(r.out.find("measured step saving"), std::string::npos) << r.out;
    for (const char* evidence : {"counted", "predicted", "measured", "reported"})
      EXPECT_NE(r.out.find(evidence), std::string::npos) << evidence;
    EXPECT_NE(r.out.find("From this step to the article's 1.80%"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nthe measured step on H100 80GB HBM3, ms"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("estimate_flops"), std::string::npos) << "the FLOPs are --details'";
  }
}

// The shipped data-parallel rows (results/h200/) pair up as measured: every setting of the folder
// with both layouts, the 8-GPU estimate from the most GPUs measured, and the chain still at a glance.
TEST(Cli, StepReadsTheShippedDataParallelRows) {
  const std::string env = "ATTNLAB_RESULTS='" + std::string(ATTNLAB_SOURCE_DIR) + "/results/h200'";
  const CliRun r = attnlab("step nanochat-d24-web-mix", env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  expect_at_a_glance(r.out);
  const std::size_t header = r.out.find("\nsetting ");
  ASSERT_NE(header, std::string::npos) << r.out;
  const std::string columns = r.out.substr(header, r.out.find('\n', header + 1) - header);
  EXPECT_LT(columns.find(" FA2 "), columns.find(" attnlab \xC2\xB7 wgmma-sm90")) << columns;
  // Both backends with both layouts measured on every line: a saving each.
  for (const std::string setting :
       {"one GPU, Muon", "2 GPUs, Muon, all-reduce after bwd", "2 GPUs, Muon, all-reduce during bwd",
        "2 GPUs, Muon, sharded optimizer", "4 GPUs, Muon, all-reduce after bwd", "4 GPUs, Muon, all-reduce during bwd",
        "4 GPUs, Muon, sharded optimizer"})
    EXPECT_EQ(cli_run::measured_savings(cli_run::measured_line(r.out, setting)), 2u) << setting << "\n" << r.out;
  EXPECT_NE(r.out.find("\n8 GPUs, estimated: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(4 GPUs, Muon, all-reduce after bwd, FA2, packed)"), std::string::npos) << r.out;
  // Another card's folder says so where its numbers are.
  EXPECT_NE(r.out.find("\nthe measured step on H200, ms (median): "), std::string::npos) << r.out;
  // nanochat-d24 measured in every multi-GPU setting; the distance to the article rests on nanochat's
  // own setting, the most GPUs with the sharded optimizer.
  const CliRun d24 = attnlab("step nanochat-d24", env);
  ASSERT_EQ(d24.exit_code, 0) << d24.err;
  expect_at_a_glance(d24.out);
  for (const std::string setting :
       {"2 GPUs, Muon, all-reduce after bwd", "2 GPUs, Muon, all-reduce during bwd",
        "4 GPUs, Muon, all-reduce after bwd", "4 GPUs, Muon, all-reduce during bwd", "4 GPUs, Muon, sharded optimizer"})
    EXPECT_EQ(cli_run::measured_savings(cli_run::measured_line(d24.out, setting)), 2u) << setting << "\n" << d24.out;
  EXPECT_NE(d24.out.find("of attention per step here"), std::string::npos) << d24.out;
  EXPECT_NE(d24.out.find("(4 GPUs, Muon, sharded optimizer, FA2)"), std::string::npos) << d24.out;
  // --details keeps each pair's spread, and the rows of nanochat-d24 measured on 4 GPUs.
  const CliRun details = attnlab("step nanochat-d24 --details", env);
  ASSERT_EQ(details.exit_code, 0) << details.err;
  EXPECT_NE(details.out.find("\nthe measured step on H200, ms (median, min-max) "), std::string::npos) << details.out;
  EXPECT_NE(details.out.find("\n4 GPUs, Muon, all-reduce after bwd, attnlab \xC2\xB7 wgmma-sm90 "), std::string::npos)
      << details.out;
}

// The chain as data: every link with its number, evidence and source, and each measured step.
TEST(Cli, StepJsonHoldsTheChainAndTheMeasuredSteps) {
  const CliRun r = attnlab("step nanochat-d24-web-mix --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"scenario\":\"nanochat-d24-web-mix\",\"tokens\":32768,\"chain\":[", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("{\"label\":\"the article's measured saving\",\"value\":\"1.80%\",\"number\":0.018"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"setting\":\"one GPU, AdamW, FA2\",\"source\":\"torch-step-fa2\""), std::string::npos);
  EXPECT_NE(r.out.find("\"distance\":\"From this step"), std::string::npos);
  EXPECT_EQ(split(r.out, '\n').size(), 1u);
}

TEST(Cli, StepDetailsShowEveryInputOfTheChain) {
  const CliRun r = attnlab("step nanochat-d24 --details");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  // nanochat's estimate for d24: 6 x 729,808,896 + 12 x 12 x 128 x (18 x 512 + 6 x 2048).
  EXPECT_NE(r.out.find("estimate_flops = 6 x 729808896 + 396361728 = 4775215104 FLOP per token"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("attention 8.30% of it"), std::string::npos) << r.out;
  for (const char* link : {"the article's count", "the same counting on both sides", "what the window leaves",
                           "what tile quantization leaves", "measured, attnlab", "measured, FA2",
                           "predicted step saving, from FLOPs", "the article's measured saving"})
    EXPECT_NE(r.out.find(link), std::string::npos) << link;
  EXPECT_NE(r.out.find("(a) from FLOPs: 3.56% (nanochat's full squares)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the article: 1.80%"), std::string::npos) << r.out;
  // Both families' backward rows ship (attnlab-bench-bwd.csv, peers-bwd.csv): each gets a
  // whole-step figure, a percentage, not "not measured".
  for (const char* family : {"attnlab ", "FA2 "}) {
    const std::size_t line = r.out.find(std::string("    ") + family);
    ASSERT_NE(line, std::string::npos) << family << r.out;
    const std::string text = r.out.substr(line, r.out.find('\n', line) - line);
    EXPECT_NE(text.find("whole step (forward and backward) "), std::string::npos) << text;
    EXPECT_EQ(text.find("not measured"), std::string::npos) << text;
    EXPECT_EQ(text.back(), '%') << text;
  }
}

TEST(Cli, StepCsvHasOneRowPerImplementation) {
  const CliRun r = attnlab("step nanochat-d24 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Csv csv = parse_csv(r.out);
  ASSERT_EQ(csv.rows.size(), 4u) << r.out;
  EXPECT_EQ(csv.cell("packed", "matrix_params"), "729808896");
  EXPECT_NEAR(std::stod(csv.cell("packed", "step_full")), 4775215104.0, 1.0);
  EXPECT_NEAR(std::stod(csv.cell("varlen", "attention_full")), 12.0 * 12 * 128 * 24 * 512, 1.0);
}

TEST(Cli, StepWithoutAModelTableExitsTwo) {
  const CliRun r = attnlab("step uniform-64x512");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(split(r.err, '\n').size(), 1u) << r.err;
  EXPECT_NE(r.err.find("uniform-64x512.toml: model: missing"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, StepWithoutResultsSaysNotMeasured) {
  const CliRun r = attnlab("step nanochat-d24", "ATTNLAB_RESULTS=/nonexistent");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no step row in the results measured these"), std::string::npos) << r.out;
  const CliRun details = attnlab("step nanochat-d24 --details", "ATTNLAB_RESULTS=/nonexistent");
  ASSERT_EQ(details.exit_code, 0) << details.err;
  EXPECT_NE(details.out.find("(b) from time: not measured (no GEMM time in the results folder)"), std::string::npos)
      << details.out;
}

// A refused command line is one printable line naming the program: argv may hold escape codes and line breaks.
TEST(Cli, RefusedArgumentsAreOnePrintableLine) {
  for (const char* args : {"model --format 'x\x1b[31m\nz'", "model --no-such-flag", "frobnicate", "model a b c"}) {
    const CliRun r = attnlab(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    ASSERT_FALSE(r.err.empty()) << args;
    EXPECT_EQ(r.err.rfind("attnlab: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  }
  EXPECT_EQ(attnlab("model --help").exit_code, 0);
}

// attnlab list keeps each scenario's name and why, not the scenario: six valid files of 2^24
// one-token documents (64 MiB of lengths each) are listed in about the memory of one. The peak
// is compared with listing one such file, so a sanitizer's own memory cancels out.
TEST(Cli, ListHoldsOneScenarioAtATime) {
  const auto peak_kib_listing = [](int files) {
    const fs::path folder = scratch_dir() / ("list-" + std::to_string(files));
    fs::create_directories(folder);
    for (int i = 0; i < files; ++i) write_huge_scenario(folder / ("s" + std::to_string(i) + ".toml"));
    // AddressSanitizer, where the tests run under it, holds freed memory back unless told not to.
    const CliRun r = attnlab("list",
                             "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0\" "
                             "ATTNLAB_SCENARIOS='" +
                                 folder.string() + "'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("s" + std::to_string(files - 1)), std::string::npos) << r.out;
    fs::remove_all(folder);
    rusage children{};
    ::getrusage(RUSAGE_CHILDREN, &children);  // the largest child so far: the first call's, then the larger
    return children.ru_maxrss;
  };
  const long one = peak_kib_listing(1);
  const long six = peak_kib_listing(6);
  EXPECT_LT(six, one * 3 / 2) << "KiB at peak listing six files against one";  // all six held took 6x
}

// A full results file (the most rows one file may hold, each its own configuration) is grouped
// into primary runs by sorting, not by comparing every row with every other (which took 152 s of
// CPU): the command stays far inside a CPU limit of a minute.
TEST(Cli, ResultsOfAFullFileStayInsideACpuLimit) {
  std::vector<ResultRow> rows;
  for (std::int64_t i = 0; i < max_results_rows; ++i)
    rows.push_back(our_row("varlen", 100, "", "s" + std::to_string(i)));
  const fs::path file = scratch_dir() / "full.csv";
  write_results_csv(file, rows);
  const CliRun r = attnlab("results '" + file.string() + "'", "ulimit -t 60;");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), max_results_rows + 2);  // the header and its rule
}

// GEMM rows are summed per scenario in one pass: a full GEMM file naming a scenario per row (its
// matching was quadratic in the names) keeps `step` far inside a CPU limit of a minute.
TEST(Cli, StepWithAFullGemmFileStaysInsideACpuLimit) {
  const fs::path results = scratch_dir() / "gemm-results";
  fs::create_directories(results / "gemms");
  std::ofstream gemms(results / "gemms" / "full.csv");
  gemms << "scenario,gpu,dtype,gemm,pass,m,n,k,per_step,median_us\n";
  for (std::int64_t i = 0; i < max_results_rows; ++i) gemms << "s" << i << ",G,bf16,lm_head,fwd,8,8,8,1,2.5\n";
  gemms.close();
  const CliRun r = attnlab("step nanochat-d24", "ulimit -t 60; ATTNLAB_RESULTS='" + results.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the chain, from scores to step time"), std::string::npos) << r.out;
}

// attnlab step matches measured runs by their cells, looking up only the scenarios rows name:
// six valid files of 2^24 one-token documents beside nanochat-d24 in the scenarios folder (each
// resolved, 793 MB for twelve) cost no more memory than the folder without them.
TEST(Cli, StepResolvesOnlyTheScenariosRowsName) {
  const auto peak_kib_stepping = [](int huge) {
    const fs::path folder = scratch_dir() / ("step-" + std::to_string(huge));
    write_step_scenarios(folder, huge);
    const CliRun r = attnlab("step nanochat-d24",
                             "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0\" "
                             "ATTNLAB_SCENARIOS='" +
                                 folder.string() + "'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    fs::remove_all(folder);
    rusage children{};
    ::getrusage(RUSAGE_CHILDREN, &children);  // the largest child so far
    return children.ru_maxrss;
  };
  const long without = peak_kib_stepping(0);
  const long with_six = peak_kib_stepping(6);
  EXPECT_LT(with_six, without * 3 / 2) << "KiB at peak with six huge scenarios against none";
}

// A scenario named with a comma stays one cell of the step's CSV.
TEST(Cli, StepCsvQuotesTheScenarioName) {
  const fs::path file = scratch_dir() / "a,b.toml";
  fs::copy_file(fs::path(ATTNLAB_SOURCE_DIR) / "scenarios" / "nanochat-d24.toml", file,
                fs::copy_options::overwrite_existing);
  const CliRun r = attnlab("step '" + file.string() + "' --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = split(r.out, '\n');
  ASSERT_GE(lines.size(), 2u);
  const auto cells = [](const std::string& line) {
    std::size_t n = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      n += c == ',' && !quoted;
    }
    return n;
  };
  EXPECT_EQ(lines[1].rfind("\"a,b\",", 0), 0u) << lines[1];
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (!lines[i].empty()) {
      EXPECT_EQ(cells(lines[i]), cells(lines[0])) << lines[i];
    }
  }
}

// cuBLAS is opened when naive first needs it: the attnlab binary does not name it among the
// libraries loaded at start, so --help, model and step never map it.
TEST(Cli, CublasIsNotLoadedAtStart) {
  const CliRun r = cli_run::run_program("readelf", std::string("-d '") + ATTNLAB_CLI + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(NEEDED)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libcublas"), std::string::npos) << r.out;
}

}  // namespace
