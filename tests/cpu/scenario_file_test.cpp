#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "core/io/input_error.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/test_folder.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

class ScenarioFileTest : public TestFolder {
 protected:
  ScenarioFileTest() : TestFolder("attnlab_scenarios_") {}

  // Loads `text` as bad.toml and returns the InputError's message (empty if none was thrown).
  std::string load_error(const std::string& text) const {
    const fs::path p = write("bad.toml", text);
    try {
      load_scenario(p.string());
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

// A valid scenario; tests replace one line of it at a time.
const std::string valid_head = R"(why = "A test scenario."
heads = 16
head_dim = 128
dtype = "bf16"
causal = true
row_len = 4096
)";
const std::string uniform_docs = "\n[documents]\nsource = \"uniform\"\ncount = 4\nlength = 512\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// The message is one line naming the file, the key and what was expected.
void expect_names(const std::string& message, const fs::path& file, const std::string& key,
                  const std::string& expected) {
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find(key), std::string::npos) << message;
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_F(ScenarioFileTest, ParsesEveryShippedScenario) {
  const std::vector<Scenario> all = list_scenarios();
  std::vector<std::string> names;
  for (const Scenario& s : all) {
    names.push_back(s.name);
    EXPECT_FALSE(s.why.empty()) << s.name;
    EXPECT_FALSE(s.doc_lengths.empty()) << s.name;
    EXPECT_EQ(s.heads % s.kv_heads, 0) << s.name;
  }
  for (const char* expected : {"uniform-64x512", "uniform-16x2048", "web-mix-2048", "web-mix-2048-bestfit", "long-tail",
                               "one-doc-16384", "sft-chats"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}

TEST_F(ScenarioFileTest, DefaultScenarioIsTheArticlesCase) {
  const Scenario s = load_scenario(default_scenario_name);
  EXPECT_EQ(s.name, "uniform-64x512");
  EXPECT_EQ(s.doc_lengths, std::vector<int>(64, 512));
  EXPECT_EQ(s.row_len, 4096);
  EXPECT_EQ(s.heads, 16);
  EXPECT_EQ(s.kv_heads, 16);  // defaults to heads
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.dtype, DType::bf16);
  EXPECT_TRUE(s.causal);
  EXPECT_FALSE(s.pad_to.has_value());
  EXPECT_EQ(s.padded_length(), 512);
  EXPECT_EQ(s.length_source, LengthSource(UniformLengths{64, 512}));
}

TEST_F(ScenarioFileTest, CsvSourceReadsTheLengthColumnRelativeToTheScenarioFile) {
  const Scenario s = load_scenario("sft-chats");
  ASSERT_EQ(s.doc_lengths.size(), 40u);
  EXPECT_EQ(s.doc_lengths.front(), 812);
  EXPECT_EQ(s.doc_lengths.back(), 1010);
  EXPECT_EQ(s.kv_heads, 4);

  write("lengths.csv", "# a comment line\nid,length\n0,7\n1, 9\n");
  const Scenario mine = load_scenario(
      write("mine.toml", valid_head + "\n[documents]\nsource = \"csv\"\npath = \"lengths.csv\"\n").string());
  EXPECT_EQ(mine.doc_lengths, (std::vector<int>{7, 9}));
  write("marked.csv", "\xEF\xBB\xBFlength\n5\n");  // a spreadsheet's UTF-8 byte-order mark first
  const Scenario marked = load_scenario(
      write("marked.toml", valid_head + "\n[documents]\nsource = \"csv\"\npath = \"marked.csv\"\n").string());
  EXPECT_EQ(marked.doc_lengths, (std::vector<int>{5}));
}

TEST_F(ScenarioFileTest, ExplicitListAndFixedPadding) {
  const Scenario s = load_scenario(
      write(
          "list.toml",
          valid_head + "pad_to = 700\npacking = \"best_fit\"\n[documents]\nsource = \"list\"\nlengths = [3, 600, 5]\n")
          .string());
  EXPECT_EQ(s.doc_lengths, (std::vector<int>{3, 600, 5}));
  EXPECT_EQ(s.padded_length(), 700);
  EXPECT_EQ(s.packing, PackingPolicy::best_fit);
}

TEST_F(ScenarioFileTest, NonexistentNameNamesTheFileLookedFor) {
  try {
    load_scenario("no-such-scenario");
    FAIL() << "no error";
  } catch (const InputError& e) {
    expect_names(e.what(), scenarios_folder() / "no-such-scenario.toml", "no such scenario file", "attnlab list");
  }
  EXPECT_THROW(load_scenario((dir_ / "missing.toml").string()), InputError);
}

TEST_F(ScenarioFileTest, UnknownKey) {
  expect_names(load_error(valid_head + "head = 3\n" + uniform_docs), dir_ / "bad.toml", "head: unknown key",
               "expected one of why, heads");
  expect_names(load_error(valid_head + uniform_docs + "seed = 3\n"), dir_ / "bad.toml", "documents.seed: unknown key",
               "expected one of source, count, length");
}

TEST_F(ScenarioFileTest, MissingKey) {
  expect_names(load_error(replaced(valid_head, "head_dim = 128\n", "") + uniform_docs), dir_ / "bad.toml",
               "head_dim: missing", "expected a positive integer");
  expect_names(load_error(valid_head), dir_ / "bad.toml", "documents: missing", "expected a [documents] table");
  expect_names(load_error(valid_head + replaced(uniform_docs, "length = 512\n", "")), dir_ / "bad.toml",
               "documents.length: missing", "positive integer");
}

TEST_F(ScenarioFileTest, WrongType) {
  expect_names(load_error(replaced(valid_head, "heads = 16", "heads = \"sixteen\"") + uniform_docs), dir_ / "bad.toml",
               "heads: expected a positive integer", "got \"sixteen\"");
  expect_names(load_error(replaced(valid_head, "causal = true", "causal = 1") + uniform_docs), dir_ / "bad.toml",
               "causal: expected true or false", "got 1");
  expect_names(load_error(replaced(valid_head, "\"bf16\"", "\"fp8\"") + uniform_docs), dir_ / "bad.toml", "dtype",
               R"(expected "bf16" or "fp16", got "fp8")");
  expect_names(load_error(valid_head + "pad_to = \"longer\"\n" + uniform_docs), dir_ / "bad.toml", "pad_to",
               R"(expected "longest" or a positive integer, got "longer")");
  expect_names(load_error(valid_head + replaced(uniform_docs, "\"uniform\"", "\"zipf\"")), dir_ / "bad.toml",
               "documents.source", R"("csv", got "zipf")");
  expect_names(load_error(valid_head + replaced(uniform_docs, "length = 512", "length = 5.5")), dir_ / "bad.toml",
               "documents.length", "expected a positive integer, got 5.5");
  expect_names(load_error(replaced(valid_head, "\"A test scenario.\"", "\"\"\"Two\nlines\"\"\"") + uniform_docs),
               dir_ / "bad.toml", "why", "expected one sentence on one line");
}

TEST_F(ScenarioFileTest, ZeroOrNegativeLengthOrCount) {
  expect_names(load_error(valid_head + replaced(uniform_docs, "length = 512", "length = 0")), dir_ / "bad.toml",
               "documents.length", "expected a positive integer of at most 1048576, got 0");
  expect_names(load_error(valid_head + replaced(uniform_docs, "count = 4", "count = -3")), dir_ / "bad.toml",
               "documents.count", "expected a positive integer of at most 16777216, got -3");
  expect_names(load_error(valid_head + "[documents]\nsource = \"list\"\nlengths = [5, -1]\n"), dir_ / "bad.toml",
               "documents.lengths[1]", "expected a positive integer of at most 1048576, got -1");
  expect_names(load_error(replaced(valid_head, "heads = 16", "heads = 0") + uniform_docs), dir_ / "bad.toml", "heads",
               "expected a positive integer of at most 128, got 0");
}

TEST_F(ScenarioFileTest, ValuesThatContradictEachOther) {
  expect_names(load_error(valid_head + "kv_heads = 5\n" + uniform_docs), dir_ / "bad.toml", "kv_heads",
               "expected a positive divisor of heads (16), got 5");
  expect_names(load_error(valid_head + "pad_to = 100\n" + uniform_docs), dir_ / "bad.toml", "pad_to",
               "the longest document (512), got 100");
}

// Every layout must fit max_layout_positions; the packed bound is the real row count for
// concatenate (here 10 rows), and for best fit ceil(2 x tokens / row_len) (here 20 rows, not one per document).
TEST_F(ScenarioFileTest, LayoutsMustFitThePositionLimit) {
  const std::string head = replaced(valid_head, "row_len = 4096", "row_len = 65536");
  const std::string docs = "\n[documents]\nsource = \"uniform\"\ncount = 40000\nlength = 16\n";
  EXPECT_EQ(load_scenario(write("many.toml", head + docs).string()).packed_rows_bound(), 10);
  const Scenario best_fit = load_scenario(write("best.toml", head + "packing = \"best_fit\"\n" + docs).string());
  EXPECT_EQ(best_fit.packed_rows_bound(), 20);
  EXPECT_LE(best_fit.packed_layout().num_rows(), 20);
  expect_names(load_error(head + "pad_to = 1048576\n" + replaced(docs, "count = 40000", "count = 17")),
               dir_ / "bad.toml", "documents",
               "expected at most 16777216 positions in the padded layout, got 17825792");
}

TEST_F(ScenarioFileTest, BudgetThatYieldsNoDocument) {
  const std::string docs =
      "[documents]\nsource = \"lognormal\"\nmedian = 400.0\nsigma = 1.0\nmin = 32\nmax = 2048\ntoken_budget = 10\nseed "
      "= 1\n";
  expect_names(load_error(valid_head + docs), dir_ / "bad.toml", "documents.token_budget",
               "expected at least min (32) tokens so that one document fits");
}

TEST_F(ScenarioFileTest, UnreadableOrMalformedCsv) {
  const std::string docs = "[documents]\nsource = \"csv\"\npath = \"lengths.csv\"\n";
  expect_names(load_error(valid_head + docs), dir_ / "bad.toml", "documents.path", "cannot read the lengths CSV");
  write("lengths.csv", "length\n12\ntwelve\n");
  expect_names(load_error(valid_head + docs), dir_ / "bad.toml", "documents.path", "twelve");
  write("lengths.csv", "size\n12\n");
  expect_names(load_error(valid_head + docs), dir_ / "bad.toml", "documents.path", "no column named length");
  write("lengths.csv", "length\n12\n0\n");
  expect_names(load_error(valid_head + docs), dir_ / "bad.toml", "documents.path",
               "lengths.csv:3: length: expected a positive integer of at most 1048576, got \"0\"");
  write("lengths.csv", "length\n");
  expect_names(load_error(valid_head + docs), dir_ / "bad.toml", "documents.path", "expected at least one length");
}

TEST_F(ScenarioFileTest, TomlSyntaxErrorNamesTheLine) {
  const std::string message = load_error(valid_head + "heads = [1, 2\n" + uniform_docs);
  expect_names(message, dir_ / "bad.toml", "bad.toml:7:", "not valid TOML");
}

TEST_F(ScenarioFileTest, LogNormalLengthsAreFixedByTheSeed) {
  // Drawn once by our splitmix64 + Box-Muller generator and written down: a change to the
  // generator (or to the platform's arithmetic) that moves any length fails here.
  const LogNormalLengths web{400.0, 1.0, 32, 2048, 32768, 2};
  const std::vector<int> lengths = lognormal_lengths(web);
  ASSERT_EQ(lengths.size(), 71u);
  EXPECT_EQ(std::vector<int>(lengths.begin(), lengths.begin() + 8),
            (std::vector<int>{398, 441, 167, 379, 317, 103, 187, 446}));
  EXPECT_EQ(std::accumulate(lengths.begin(), lengths.end(), 0), 32768);  // the last document is cut to the budget
  EXPECT_EQ(lognormal_lengths(web), lengths);
  EXPECT_NE(lognormal_lengths({400.0, 1.0, 32, 2048, 32768, 3}), lengths);
  for (int len : lengths) {
    EXPECT_GE(len, 32);
    EXPECT_LE(len, 2048);
  }
  // A remainder below min is dropped, never emitted as a too-short document.
  const std::vector<int> capped = lognormal_lengths({1000.0, 0.0, 600, 1000, 1500, 9});
  EXPECT_EQ(capped, (std::vector<int>{1000}));
}

void expect_same_scenario(const Scenario& a, const Scenario& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.why, b.why);
  EXPECT_EQ(a.heads, b.heads);
  EXPECT_EQ(a.kv_heads, b.kv_heads);
  EXPECT_EQ(a.head_dim, b.head_dim);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.causal, b.causal);
  EXPECT_EQ(a.row_len, b.row_len);
  EXPECT_EQ(a.packing, b.packing);
  EXPECT_EQ(a.pad_to, b.pad_to);
  EXPECT_EQ(a.length_source.index(), b.length_source.index());
  if (!std::holds_alternative<CsvLengths>(a.length_source)) {
    EXPECT_EQ(a.length_source, b.length_source);
  }
  EXPECT_EQ(a.doc_lengths, b.doc_lengths);
}

TEST_F(ScenarioFileTest, SaveThenLoadGivesTheSameScenario) {
  for (const Scenario& shipped : list_scenarios()) {
    const fs::path copy = dir_ / (shipped.name + ".toml");
    save_scenario(shipped, copy);
    expect_same_scenario(load_scenario(copy.string()), shipped);
  }
  // Awkward values: quotes and a backslash in why, floats with no short decimal form, a fixed pad_to.
  Scenario edited = load_scenario("web-mix-2048");
  edited.name = "edited";
  edited.why = "Quotes \" and \\ backslashes\tand a tab.";
  edited.length_source = LogNormalLengths{0.1 + 0.2, 1.0 / 3.0, 16, 4000, 20000, 123456789};
  edited.pad_to = 4096;
  edited.causal = false;
  edited.dtype = DType::fp16;
  edited.resolve();
  save_scenario(edited, dir_ / "edited.toml");
  expect_same_scenario(load_scenario((dir_ / "edited.toml").string()), edited);
  EXPECT_FALSE(fs::exists(dir_ / "edited.toml.tmp"));
}

TEST_F(ScenarioFileTest, ScenariosFolderComesFromTheEnvironment) {
  write("only-one.toml", valid_head + uniform_docs);
  ASSERT_EQ(setenv("ATTNLAB_SCENARIOS", dir_.c_str(), 1), 0);
  const std::vector<Scenario> all = list_scenarios();
  const Scenario by_name = load_scenario("only-one");
  unsetenv("ATTNLAB_SCENARIOS");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].name, "only-one");
  EXPECT_EQ(by_name.doc_lengths, std::vector<int>(4, 512));
}

}  // namespace
}  // namespace attnlab
