// Which run of a configuration the GUI shows, and each source's own ratios, on the
// shipped results against the tables `python -m attnlab.tables` wrote (results/h100/TABLE.md,
// the README's summary), so the GUI and the documents show the same runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "analysis/primary_runs.hpp"
#include "analysis/results_order.hpp"
#include "analysis/source_ratios.hpp"
#include "core/layout/tile_name.hpp"
#include "core/scenario/scenario_file.hpp"
#include "gui/app/live_run.hpp"
#include "gui/app/scenario_model.hpp"
#include "shipped_results.hpp"
#include "temp_path.hpp"
#include "tests/test_rows.hpp"

namespace attnlab::gui {
namespace {

std::string times(double r) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f\xC3\x97", r);  // TABLE.md's "7.22×"
  return text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The configuration a TABLE.md label names: "`uniform-64x512`" is the scenario's own,
// "`uniform-64x512` (fp16, d64)" another dtype and head dim.
Configuration configuration_named(const std::string& name, const std::string& dtype, const std::string& head_dim) {
  Configuration c = own_configuration(load_scenario(name));
  if (!dtype.empty()) c.dtype = *parse_dtype(dtype);
  if (!head_dim.empty()) c.head_dim = std::stoi(head_dim);
  return c;
}

// A row of TABLE.md's "Measured ratios against the model": scenario, dtype, head dim,
// implementation, the model's two ratios, attnlab's, PyTorch's.
const std::regex ratio_row(
    R"(\| `([^`]+)`(?: \((\w+), d(\d+)\))? \| (\w+)/varlen \| ([^|]*) \| ([^|]*) \| ([^|]*) \| ([^|]*) \|)");

// TABLE.md's "Measured ratios against the model": every row's attnlab and PyTorch
// (FlashAttention-2 for padded and packed) ratios, and the model's, are the GUI's.
TEST(ShippedResults, EachSourcesRatioIsTheOneTheResultsTableShows) {
  const LoadedResults results = shipped_results();
  const std::string table = read_text(shipped_results_folder + "/TABLE.md");
  const std::regex& row = ratio_row;
  std::map<std::string, ScenarioModel> models;
  int checked = 0;
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    SCOPED_TRACE(m.str(0));
    const std::string name = m[1], impl_name = m[4];
    const Implementation impl = *parse_implementation(impl_name);
    const Configuration c = configuration_named(name, m[2], m[3]);
    const auto model_at = [&](TileShape tile) -> const ScenarioModel& {
      const std::string key = name + "@" + tile_name(tile);
      if (!models.count(key)) models.emplace(key, build_model(load_scenario(name), tile));
      return models.at(key);
    };
    const ScenarioModel& square = model_at({64, 64});  // padded = varlen does not depend on the tile
    const std::vector<SourceRatios> ratios = source_ratios(
        results, c, square.costs[Implementation::padded].scores == square.costs[Implementation::varlen].scores);
    const SourceRatios* ours = ratios_of(ratios, ours_family);
    // The table's model is at the tile of the kernel that ran our rows (their tile column).
    const std::optional<TileShape> tile =
        ours && ours->varlen() ? parse_tile_name(ours->varlen()->primary.row->tile) : std::nullopt;
    const ScenarioModel& model = model_at(tile.value_or(TileShape{64, 64}));
    EXPECT_EQ(times(model.costs[impl].computed_vs_varlen), std::string(m[5]));
    EXPECT_EQ(times(model.costs[impl].attended_vs_varlen), std::string(m[6]));
    const std::string ours_text = ours && ours->vs_varlen(impl) ? times(*ours->vs_varlen(impl)) : "";
    EXPECT_EQ(ours_text, std::string(m[7]));
    if (impl != Implementation::naive) {  // the table's naive column is PyTorch eager over FlashAttention-2's varlen
      const SourceRatios* fa2 = ratios_of(ratios, fa2_family);
      const std::string fa2_text = fa2 && fa2->vs_varlen(impl) ? times(*fa2->vs_varlen(impl)) : "";
      EXPECT_EQ(fa2_text, std::string(m[8]));
    }
    ++checked;
  }
  EXPECT_GE(checked, 24);  // 10 scenario shapes x 3 ratios
}

// The tables (python -m attnlab.tables) take one flash kernel's runs per shape, as the GUI's first
// kernel (our_flash_kernels): where the Hopper kernel ran varlen alone (as the ladder
// runs it) before the teaching kernel ran every implementation, neither shows a packed
// ratio of ours (not 2234 / 230, the teaching kernel's packed over the Hopper kernel's
// varlen), and both show naive's cuBLAS over the Hopper kernel's varlen.
TEST(ResultsTable, TakesTheFirstKernelsRunsAsTheGuiDoes) {
  const std::filesystem::path cli = attnlab_cli();
  if (cli.empty() || !std::filesystem::exists(cli)) GTEST_SKIP() << "no attnlab CLI built beside the GUI";
  if (std::system("python3 --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const auto folder = unique_temp_path("results-table");
  std::filesystem::remove_all(folder);
  write_results_csv(
      folder / "attnlab-bench.csv",
      {our_row("varlen", 230, "wgmma-sm90"), our_row("naive", 1749, "cublas"), our_row("padded", 380, "mma-sm80"),
       our_row("packed", 2234, "mma-sm80"), our_row("varlen", 376, "mma-sm80")});
  const std::string out = (folder / "TABLE.md").string();
  const std::string command = "cd " + std::string(ATTNLAB_SOURCE_DIR) + " && python3 -m attnlab.tables --bench " +
                              (folder / "attnlab-bench.csv").string() + " --attnlab " + cli.string() + " --out " + out;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  LoadedResults results;
  load_results_folder(results, folder);
  const Configuration own = own_configuration(load_scenario("uniform-64x512"));
  const std::vector<SourceRatios> ratios = source_ratios(results, own, true);
  const SourceRatios* ours = ratios_of(ratios, ours_family);
  ASSERT_TRUE(ours);
  EXPECT_EQ(ours->kernel, "wgmma-sm90");
  const std::string table = read_text(out);
  std::map<std::string, std::string> table_ratio;
  for (auto it = std::sregex_iterator(table.begin(), table.end(), ratio_row); it != std::sregex_iterator(); ++it)
    table_ratio[(*it)[4]] = (*it)[7];
  ASSERT_EQ(table_ratio.size(), 3u);  // packed, padded, naive
  for (Implementation i : {Implementation::packed, Implementation::padded, Implementation::naive}) {
    SCOPED_TRACE(implementation_name(i));
    const std::optional<double> gui = ours->vs_varlen(i);
    EXPECT_EQ(gui ? times(*gui) : "", table_ratio[implementation_name(i)]);
  }
  EXPECT_EQ(table_ratio["naive"], times(1749.0 / 230.0));
  EXPECT_EQ(table_ratio["packed"], "");
  std::filesystem::remove_all(folder);
}

// The README's summary: our varlen time and FlashAttention-2's, per scenario shape, are
// the primary runs the GUI shows (uniform-64x512's 376 µs, not another run's 379 µs).
TEST(ShippedResults, PrimaryRunsAreTheOnesTheReadmeTableShows) {
  const LoadedResults results = shipped_results();
  const std::string readme = read_text(std::string(ATTNLAB_SOURCE_DIR) + "/README.md");
  const std::regex row(R"(\| `([^`]+)`(?: \((\w+), d(\d+)\))? \| ([0-9,.]+) \(\d+\) \| ([0-9,.]+) \(\d+\)( ¹)? \|)");
  const auto us = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", v);
    std::string digits = text, out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  };
  int checked = 0;
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), row); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    SCOPED_TRACE(m.str(0));
    const Configuration c = configuration_named(m[1], m[2], m[3]);
    const std::vector<SourceRatios> ratios = source_ratios(results, c, false);
    const SourceRatios* ours = ratios_of(ratios, ours_family);
    const SourceRatios* fa2 = ratios_of(ratios, fa2_family);
    ASSERT_TRUE(ours && ours->varlen() && fa2 && fa2->varlen());
    EXPECT_EQ(us(*ours->varlen()->primary.row->median_us), std::string(m[4]));
    EXPECT_EQ(us(*fa2->varlen()->primary.row->median_us), std::string(m[5]));
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

// The first row, in the shipped files read in name order here (not through the loader),
// of `source` and `implementation` in `c` (of `kernel` where given), and the file it is in.
std::pair<std::optional<double>, std::string> first_row(const Configuration& c, const std::string& source,
                                                        const std::string& implementation,
                                                        std::optional<std::string> kernel = std::nullopt) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(shipped_results_folder))
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end(), results_file_order);
  for (const auto& file : files)
    for (const ResultRow& r : read_results_csv(file))
      if (c.holds(r) && r.source == source && r.implementation == implementation && r.median_us &&
          (!kernel || r.kernel == *kernel))
        return {r.median_us, file.filename().string()};
  return {std::nullopt, ""};
}

// The article's case on the shipped files: the view opens on its own shape, our packed run
// is the first file's row (with the others' spread), and cuDNN's own ratio is taken from
// the first file's rows of each of its layouts.
TEST(ShippedResults, TheArticlesCaseShowsTheFirstFilesRunAndTheSpreadOfTheOthers) {
  const LoadedResults results = shipped_results();
  const Configuration own = own_configuration(load_scenario("uniform-64x512"));
  const std::vector<Configuration> shapes = measured_configurations(
      primary_runs(results, [](const ResultRow& r) { return r.scenario == "uniform-64x512" && r.pass == Pass::fwd; }),
      own);
  ASSERT_FALSE(shapes.empty());
  EXPECT_EQ(shapes.front(), own);
  const auto packed = find_run(results, own, "attnlab", "packed");
  ASSERT_TRUE(packed);
  const auto [median, file] = first_row(own, "attnlab", "packed", packed->primary.row->kernel);
  EXPECT_EQ(packed->primary.row->median_us, median);
  EXPECT_EQ(file_name(packed->primary), file);
  for (const attnlab::Run& other : packed->others) EXPECT_TRUE(results_file_order(*packed->primary.file, *other.file));
  const auto cudnn_packed = first_row(own, "torch-sdpa-cudnn-packed", "packed").first;
  const auto cudnn_padded = first_row(own, "torch-sdpa-cudnn-padded", "padded").first;
  ASSERT_TRUE(cudnn_packed && cudnn_padded);
  const std::vector<SourceRatios> ratios = source_ratios(results, own, true);
  const SourceRatios* cudnn = ratios_of(ratios, "cuDNN");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_DOUBLE_EQ(*cudnn->vs_varlen(Implementation::packed), *cudnn_packed / *cudnn_padded);
}

// The windowed scenarios' peers ran varlen_attn and FlexAttention on the packed rows
// (torch-varlen_attn-packed, torch-flex-packed): their packed/varlen ratios are measured,
// each the two primary runs' medians, never "not measured".
TEST(ShippedResults, PeersPackedRatiosOfTheWindowedScenarios) {
  const LoadedResults results = shipped_results();
  for (const char* name : {"uniform-64x512-rows-2048-window512", "web-mix-2048-window512"})
    for (const char* family : {"FlashAttention-2", "FlexAttention"}) {
      SCOPED_TRACE(std::string(name) + " " + family);
      const std::vector<SourceRatios> ratios = source_ratios(results, own_configuration(load_scenario(name)), false);
      const SourceRatios* r = ratios_of(ratios, family);
      ASSERT_TRUE(r);
      ASSERT_TRUE(r->vs_varlen(Implementation::packed));
      EXPECT_EQ(*r->vs_varlen(Implementation::packed),
                *r->run(Implementation::packed)->primary.row->median_us / *r->varlen()->primary.row->median_us);
    }
}

}  // namespace
}  // namespace attnlab::gui
