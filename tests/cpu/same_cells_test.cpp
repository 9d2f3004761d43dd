// Measured rows stand for a scenario by the cells they computed: the row's own columns (mask,
// window, shape, tokens) and the documents of the scenario its name leads to, looked up only for
// rows whose columns agree, each name once.
#include "analysis/same_cells.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/scenario/scenario_file.hpp"
#include "tests/test_rows.hpp"

namespace attnlab {
namespace {

// 64 documents of 512 in rows of 2048, 16 heads of 128, causal, under a window of `left` keys.
Scenario uniform(const std::string& name, int left = -1) {
  Scenario s;
  s.name = name;
  s.heads = s.kv_heads = 16;
  s.head_dim = 128;
  s.row_len = 2048;
  s.window = {left, left < 0 ? -1 : 0};
  s.length_source = UniformLengths{64, 512};
  s.resolve();
  return s;
}

// A row of `name`'s run of `implementation` as its writer fills it.
ResultRow row_of(const Scenario& ran, const char* implementation) {
  ResultRow r = our_row(implementation, 100, "wgmma-sm90", ran.name);
  r.kv_heads = ran.kv_heads;
  r.tokens = ran.total_tokens();
  r.window_left = ran.window.left;
  r.window_right = ran.window.right;
  return r;
}

// A lookup of `defined` that counts what it was asked.
struct CountedLookup {
  std::vector<Scenario> defined;
  std::map<std::string, int> asked;
  ScenarioLookup lookup() {
    return [this](const std::string& name) {
      ++asked[name];
      return lookup_in(defined)(name);
    };
  }
};

TEST(SameCells, ARowStandsForTheCellsItsWindowAndItsNamedDocumentsCompute) {
  const Scenario shipped = uniform("shipped"), windowed = uniform("windowed", 256);
  CountedLookup files{{shipped, windowed}};
  RunCells cells(files.lookup());
  const ScenarioCells copy(uniform("my-copy")), copy_windowed(uniform("my-windowed", 256));
  for (Implementation i : {Implementation::padded, Implementation::packed, Implementation::varlen}) {
    EXPECT_TRUE(cells.computes(copy, i, row_of(shipped, implementation_name(i))));
    EXPECT_TRUE(cells.computes(copy_windowed, i, row_of(windowed, implementation_name(i))));
    // The window is the row's: a row of the windowed file that says no window ran none.
    ResultRow unwindowed = row_of(windowed, implementation_name(i));
    unwindowed.window_left = unwindowed.window_right = -1;
    EXPECT_FALSE(cells.computes(copy_windowed, i, unwindowed));
    EXPECT_TRUE(cells.computes(copy, i, unwindowed));
  }
  // A window as long as the rows is none: 2047 keys back covers every row of 2048.
  EXPECT_TRUE(
      cells.computes(ScenarioCells(uniform("long-window", 2047)), Implementation::packed, row_of(shipped, "packed")));
  // varlen's documents are not packed's rows.
  EXPECT_FALSE(cells.computes(copy, Implementation::varlen, row_of(shipped, "packed")));
  // A row from before the window columns stands for nothing.
  ResultRow old = row_of(shipped, "varlen");
  old.window_left = old.window_right = std::nullopt;
  EXPECT_FALSE(cells.computes(copy, Implementation::varlen, old));
  EXPECT_EQ(files.asked, (std::map<std::string, int>{{"shipped", 1}, {"windowed", 1}}));  // each name once
}

// The row's own columns are read first: a row of another shape, mask or token count never
// leads to its scenario file.
TEST(SameCells, ARowOfAnotherShapeIsNeverLookedUp) {
  const Scenario shipped = uniform("shipped");
  CountedLookup files{{shipped}};
  RunCells cells(files.lookup());
  const ScenarioCells target(shipped);
  std::vector<ResultRow> others(5, row_of(shipped, "varlen"));
  others[0].head_dim = 64;
  others[1].causal = false;
  others[2].dtype = DType::fp16;
  others[3].tokens = shipped.total_tokens() + 1;
  others[4].kv_heads = 4;  // 4 query heads a K/V head
  for (const ResultRow& r : others) EXPECT_FALSE(cells.computes(target, Implementation::varlen, r));
  EXPECT_TRUE(files.asked.empty());
}

// What is held stays bounded: at most max_held names' row shapes, then they are looked up again.
TEST(SameCells, AtMostMaxHeldNamesAreHeld) {
  std::vector<Scenario> defined;
  for (std::size_t i = 0; i <= RunCells::max_held; ++i) defined.push_back(uniform("s" + std::to_string(i)));
  CountedLookup files{defined};
  RunCells cells(files.lookup());
  const ScenarioCells target(defined[0]);
  for (const Scenario& s : defined) EXPECT_TRUE(cells.computes(target, Implementation::varlen, row_of(s, "varlen")));
  EXPECT_TRUE(cells.computes(target, Implementation::varlen, row_of(defined[0], "varlen")));
  EXPECT_EQ(files.asked["s0"], 2);
  EXPECT_EQ(files.asked["s1"], 1);
}

// A results cell never opens a path: only a plain name of the scenarios folder is looked up.
TEST(SameCells, OnlyPlainNamesOfTheScenariosFolderAreLookedUp) {
  EXPECT_TRUE(scenario_named("uniform-64x512"));
  for (const char* name :
       {"", "../scenarios/uniform-64x512", "uniform-64x512.toml", "/etc/passwd", ".hidden", "no-such-scenario"})
    EXPECT_FALSE(scenario_named(name)) << name;
}

// The name whose rows describe a scenario: its own first, then any whose rows computed its cells
// in every implementation; none for an edit no row's scenario matches.
TEST(SameCells, MeasuredAsFindsTheRowsOfACopyUnderAnotherName) {
  const Scenario shipped = uniform("shipped");
  LoadedResults results;
  const std::filesystem::path file = "a.csv";
  results.files.push_back(
      {file,
       {row_of(shipped, "naive"), row_of(shipped, "padded"), row_of(shipped, "packed"), row_of(shipped, "varlen")},
       {}});
  RunCells cells(lookup_in(std::span(&shipped, 1)));
  EXPECT_EQ(measured_as(uniform("my-copy"), results, cells), "shipped");
  EXPECT_EQ(measured_as(uniform("my-copy", 256), results, cells), std::nullopt);  // a window the rows ran without
  Scenario fewer = uniform("fewer");
  fewer.length_source = UniformLengths{32, 1024};
  fewer.resolve();
  EXPECT_EQ(measured_as(fewer, results, cells), std::nullopt);  // the same tokens in other documents
}

}  // namespace
}  // namespace attnlab
