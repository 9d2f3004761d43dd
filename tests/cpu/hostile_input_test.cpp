// Regression tests for issue 14 (hostile input), one group per class of the issue: each
// bad file gives one printable line naming the file, the key or line, and the limit.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/ceilings.hpp"
#include "analysis/measured_gemms.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"
#include "core/io/toml_guard.hpp"
#include "core/results/results_csv.hpp"
#include "core/scenario/scenario_file.hpp"
#include "tests/cpu/test_folder.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

class HostileInput : public TestFolder {
 protected:
  HostileInput() : TestFolder("attnlab_hostile_") {}

  // The InputError message of `what` (a test fails if none is thrown).
  template <class F>
  static std::string error_of(F what) {
    try {
      what();
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError";
    return {};
  }
  std::string scenario_error(const std::string& text) const {
    const fs::path p = write("bad.toml", text);
    return error_of([&] { load_scenario(p.string()); });
  }
  std::string results_error(const std::string& text) const {
    const fs::path p = write("bad.csv", text);
    return error_of([&] { read_results_csv(p); });
  }
};

// One line of printable text that holds every piece.
void expect_line(const std::string& message, std::initializer_list<std::string> pieces) {
  EXPECT_EQ(printable(message, message.size()), message) << message;
  for (const std::string& piece : pieces)
    EXPECT_NE(message.find(piece), std::string::npos) << piece << " in: " << message;
}

const std::string valid_head =
    "why = \"A test scenario.\"\nheads = 16\nhead_dim = 128\ndtype = \"bf16\"\ncausal = true\n"
    "row_len = 4096\n";
std::string list_docs(const std::string& lengths) {
  return "[documents]\nsource = \"list\"\nlengths = [" + lengths + "]\n";
}
std::string with(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}
std::string repeated(const std::string& piece, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += piece;
  return s;
}

// ---- 1. nesting that overflowed toml++'s stack ---------------------------------------

TEST_F(HostileInput, DeepDottedKeysHeadersAndInlineTablesAreRefusedBeforeParsing) {
  const std::string parts = "more than 8 parts";
  expect_line(scenario_error("k" + repeated(".k", 250000) + " = 1\n"), {"bad.toml:1:", parts});
  expect_line(scenario_error("[a" + repeated(".a", 100000) + "]\n"), {"bad.toml:1:", parts});
  expect_line(scenario_error("[[a" + repeated(".a", 100000) + "]]\n"), {"bad.toml:1:", parts});
  expect_line(scenario_error("a = " + repeated("{b = ", 100000) + "1" + repeated("}", 100000) + "\n"),
              {"bad.toml:1:", "nested more than 8 deep"});
  expect_line(scenario_error("a = " + repeated("[", 100000) + repeated("]", 100000) + "\n"),
              {"nested more than 8 deep"});
  expect_line(scenario_error("\"" + repeated("k", 65) + "\" = 1\n"), {"bad.toml:1:1:", "a key longer than 64 bytes"});
}

TEST_F(HostileInput, TheGuardLetsValidTomlThrough) {
  const auto passes = [](const std::string& text) { EXPECT_NO_THROW(check_toml_text(text, "x.toml")) << text; };
  passes("a.b.c.d.e.f.g.h = 1\n");  // 8 parts: the limit
  passes("[a.b.c.d.e.f.g.h]\n[[x.y]]\n");
  passes("x = [1.5, 2.25, -3.0e10, 1979-05-27T07:32:00.999, 1979-05-27 07:32:00.5, inf, nan]\n");
  passes("s = \"dots . . . . . . . . . [[[[[[[[[ {{{{{{{{{ \\\" é\"\n");  // inside strings nothing counts
  passes("m = \"\"\"\nline \"\" . . . . . . . . .\n\"\"\"\"\"\nl = '''a . . . . . . . . .'''\n");
  passes("# ünïcödé comment . . . . . . . . . [[[[[[[[[\nwhy = 'café'\n");
  passes("t = {a.b = 1, c = [[[[1]]]], d = {e = 2}}\n");
  passes("\"quoted . key\".bare = 1\n");
  passes("[\"a\".'b']\nk . \"c\" = [\"d\", 'e', {f = \"g\"}]\n");
  passes("m = \"\"\"a\\\n  b \xc3\xa9\"\"\"\n");  // ASCII first after the line-ending backslash
  EXPECT_THROW(check_toml_text("x = \"a\" \"b\"\n", "x.toml"), InputError);
  EXPECT_THROW(check_toml_text("a.b.c.d.e.f.g.h.i = 1\n", "x.toml"), InputError);    // 9 parts
  EXPECT_THROW(check_toml_text("x = [[[[[[[[[1]]]]]]]]]\n", "x.toml"), InputError);  // 9 deep
}

// ---- 2. and 4. sizes that overflowed int64 or asked for gigabytes ----------------------

TEST_F(HostileInput, HugeShapesAndLayoutsAreRefusedWithTheirLimit) {
  expect_line(scenario_error(with(valid_head, "heads = 16", "heads = 2147483647") + list_docs("10")),
              {"bad.toml: heads: ", "at most 128, got 2147483647"});
  expect_line(scenario_error(with(valid_head, "head_dim = 128", "head_dim = 2147483647") + list_docs("10")),
              {"head_dim: ", "at most 256"});
  expect_line(scenario_error(valid_head + list_docs("22000000")),
              {"documents.lengths[0]: ", "at most 1048576, got 22000000"});
  expect_line(scenario_error(valid_head + "[documents]\nsource = \"uniform\"\ncount = 2147483647\nlength = 1\n"),
              {"documents.count: ", "at most 16777216, got 2147483647"});
  expect_line(scenario_error(valid_head + "[documents]\nsource = \"uniform\"\ncount = 65536\nlength = 512\n"),
              {"documents.count: ", "at most 16777216 tokens in all documents, got 65536 x 512"});
  expect_line(scenario_error(valid_head + "[documents]\nsource = \"lognormal\"\nmedian = 1.0\nsigma = 0.0\nmin = 1\n"
                                          "max = 1\ntoken_budget = 2000000000\nseed = 1\n"),
              {"documents.token_budget: ", "at most 16777216, got 2000000000"});
  expect_line(scenario_error(with(valid_head, "row_len = 4096", "row_len = 2147483647") + list_docs("1")),
              {"row_len: ", "at most 1048576, got 2147483647"});
  expect_line(scenario_error(valid_head + "window = 2147483647\n" + list_docs("1")),
              {"window: ", "at most 1048576 keys on a side, got [2147483647, 0]"});
  expect_line(scenario_error(valid_head + "pad_to = 1073741823\n" + list_docs("1")),
              {"pad_to: ", "at most 1048576, got 1073741823"});
  expect_line(scenario_error(valid_head + "pad_to = 1048576\n" + list_docs(repeated("1, ", 16) + "1")),
              {"documents: ", "at most 16777216 positions in the padded layout, got 17825792"});
  expect_line(scenario_error(with(valid_head, "row_len = 4096", "row_len = 1048576") +
                             "[documents]\nsource = \"uniform\"\ncount = 4097\nlength = 16\n"),
              {"row_len: ", "row_len x documents of at most 4294967296", "1048576 x 4097"});
}

// The largest scenarios the limits accept (all 2^24 positions in rows of 2^20 at 128 heads of
// 256 dims, and the most documents per packed row) model to non-negative, finite figures.
TEST_F(HostileInput, LargestValidScenariosModelToNonNegativeFiniteFigures) {
  const std::string head =
      "why = \"The largest scenario the limits accept.\"\nheads = 128\nhead_dim = 256\n"
      "dtype = \"bf16\"\ncausal = false\nrow_len = 1048576\n[documents]\nsource = \"uniform\"\n";
  const std::pair<std::string, std::string> cases[] = {{"count = 16\nlength = 1048576\n", "256x256"},
                                                       {"count = 4096\nlength = 4096\n", "64x64"}};
  for (const auto& [docs, tile] : cases) {
    const fs::path file = write("largest.toml", head + docs);
    const fs::path out = dir_ / "model.csv";
    const std::string command =
        "'" ATTNLAB_CLI "' model '" + file.string() + "' --format csv --tile " + tile + " >'" + out.string() + "'";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
    std::ifstream in(out);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    std::stringstream names(line);
    for (std::string name; std::getline(names, name, ',');) header.push_back(name);
    // Every column but these words and the window (-1: unbounded) is a count, FLOPs, bytes or a ratio.
    const std::set<std::string> not_figures = {"scenario", "implementation", "layout",       "tile",           "dtype",
                                               "causal",   "window_left",    "window_right", "dq_accumulation"};
    int rows = 0;
    while (std::getline(in, line)) {
      ++rows;
      std::stringstream cells(line);
      std::size_t column = 0;
      for (std::string cell; std::getline(cells, cell, ','); ++column) {
        ASSERT_LT(column, header.size()) << line;
        if (not_figures.count(header[column])) continue;
        const double value = std::stod(cell);
        EXPECT_TRUE(std::isfinite(value) && value >= 0) << header[column] << " of: " << line;
      }
      EXPECT_EQ(column, header.size()) << line;
    }
    EXPECT_EQ(rows, 4) << docs;
  }
}

// `attnlab run` reads its scenarios with the same loader, before it asks for a GPU: exit 2, not 3.
TEST_F(HostileInput, RunRefusesAHostileFileBeforeAskingForTheGpu) {
  const fs::path file = write("deep.toml", "k" + repeated(".k", 1000) + " = 1\n");
  const fs::path err = dir_ / "err";
  const std::string command = "'" ATTNLAB_CLI "' run '" + file.string() + "' >/dev/null 2>'" + err.string() + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::ifstream in(err);
  std::string line;
  std::getline(in, line);
  expect_line(line, {"deep.toml:1:", "more than 8 parts"});
}

// ---- 3. and 5. paths that are not regular files --------------------------------------

TEST_F(HostileInput, AFifoAsLengthsCsvIsRefusedWithoutWaiting) {
  ASSERT_EQ(::mkfifo((dir_ / "lengths.csv").c_str(), 0600), 0);
  expect_line(scenario_error(valid_head + "[documents]\nsource = \"csv\"\npath = \"lengths.csv\"\n"),
              {"bad.toml: documents.path: ", "lengths.csv: not a regular file (a FIFO, socket or device)"});
}

TEST_F(HostileInput, SymlinkLoopsLongPathsAndUnreadableFoldersAreOneLine) {
  fs::create_symlink("loop-b.toml", dir_ / "loop-a.toml");
  fs::create_symlink("loop-a.toml", dir_ / "loop-b.toml");
  expect_line(error_of([&] { load_scenario((dir_ / "loop-a.toml").string()); }),
              {"loop-a.toml: cannot read the scenario file (Too many levels of symbolic links)"});
  const std::string long_name = (dir_ / (std::string(300, 'x') + ".toml")).string();
  expect_line(error_of([&] { load_scenario(long_name); }),
              {"xxx", "cannot read the scenario file (File name too long)"});
  expect_line(error_of([&] { load_scenario(dir_.string() + "/"); }), {"a folder; expected a scenario file"});
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any folder";
  fs::create_directories(dir_ / "locked");
  write("locked/x.toml", valid_head + list_docs("1"));
  fs::permissions(dir_ / "locked", fs::perms::none);
  expect_line(error_of([&] { load_scenario((dir_ / "locked" / "x.toml").string()); }), {"Permission denied"});
  fs::permissions(dir_ / "locked", fs::perms::owner_all);
}

TEST_F(HostileInput, ASymlinkLoopAmongResultsCostsOneWarningAndTheModelStillPrints) {
  fs::create_directories(dir_ / "results");
  fs::create_symlink("b.csv", dir_ / "results" / "a.csv");
  fs::create_symlink("a.csv", dir_ / "results" / "b.csv");
  const fs::path out = dir_ / "out", err = dir_ / "err";
  const std::string command = "ATTNLAB_RESULTS='" + (dir_ / "results").string() +
                              "' '" ATTNLAB_CLI "' model uniform-64x512 >'" + out.string() + "' 2>'" + err.string() +
                              "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(err);
  std::string line;
  int warnings = 0;
  while (std::getline(in, line)) {
    ++warnings;
    expect_line(line, {"warning: results: ", "cannot read the results file (Too many levels of symbolic links)"});
  }
  EXPECT_EQ(warnings, 2);
  EXPECT_GT(fs::file_size(out), 0u);
}

// ---- 6. the toml++ 3.3.0 defects: non-ASCII outside strings, NUL -------------------------

TEST_F(HostileInput, NonAsciiOutsideStringsAndNulAreRefusedBeforeToml) {
  expect_line(scenario_error(with(valid_head, "heads = 16", "heads = 16\xc3\xa9") + list_docs("1")),
              {"bad.toml:2:11: not valid TOML: a non-ASCII byte outside a string or comment"});
  expect_line(scenario_error(std::string("[a\0b]\n", 6)), {"bad.toml:1:3: a NUL byte; expected text"});
  expect_line(scenario_error("why = \"caf\xe9\"\n"), {"bad.toml:1:", "not UTF-8"});
  // Found by scenario_fuzz: toml++ reads `2"...` as one bare value, so the bytes after the quote are
  // outside any string (UBSan: unreachable in toml++'s unicode_autogenerated.h).
  expect_line(scenario_error("why = 2\"A\xef\xb7\xbbQeewx (h"),
              {"bad.toml:1:8: not valid TOML: a quote where no key or value starts"});
  expect_line(scenario_error("x = 1.\"\xef\xb7\xbb\"\n"), {"bad.toml:1:7:", "a quote where no key or value starts"});
  expect_line(scenario_error("x = \"a\"\xef\xb7\xbb\n"), {"bad.toml:1:8:", "a non-ASCII byte outside a string"});
  // Found by scenario_fuzz in a Debug build: toml++ asserts on a header that cannot start with a key,
  // and on a '}' where an array's value starts.
  for (const char* header : {" [|\n", "[.a]\n", "[[[a]]]\n", "[=\n", "["})
    expect_line(scenario_error(header), {"bad.toml:1:", "a table header that does not start with a key"});
  expect_line(scenario_error("h.eahow= \t[\t[}y}}}\n"), {"bad.toml:1:14:", "a '}' that closes no inline table"});
  expect_line(scenario_error("x = [1]]\n"), {"bad.toml:1:8:", "a ']' that closes no array or table header"});
  expect_line(scenario_error("w=1.wh`d{='''\xef\xb3\xbbw"), {"bad.toml:1:9:", "a '{' inside a bare value"});
  // ... and tests the first character after a multi-line string's backslash with the same function.
  expect_line(scenario_error("x = \"\"\"a\\  \n\xef\xb7\xbb\"\"\"\n"),
              {"bad.toml:2:1:", "a non-ASCII character right after a backslash in a multi-line string"});
  // Non-ASCII inside strings and comments is TOML, and loads.
  const fs::path ok = write("ok.toml", with(valid_head, "A test scenario.", "Caf\xc3\xa9 \xe2\x80\x94 ok.") +
                                           "# \xc3\xbc"
                                           "ber\n" +
                                           list_docs("3"));
  EXPECT_EQ(load_scenario(ok.string()).why, "Caf\xc3\xa9 \xe2\x80\x94 ok.");
}

// ---- 7. messages stay one printable line --------------------------------------------------

TEST_F(HostileInput, ControlCharactersFromTheInputAreEscapedInMessages) {
  const std::string crlf = scenario_error("why = \"x\"\r\ncausal = tr\r\n");
  expect_line(crlf, {"bad.toml:2:"});
  EXPECT_NE(crlf.find("\\r"), std::string::npos) << crlf;
  expect_line(scenario_error(valid_head + "\"a\\nb\\u001b[2J\" = 1\n" + list_docs("1")),
              {"a\\nb\\x1b[2J: unknown key"});
  expect_line(scenario_error(with(valid_head, "\"A test scenario.\"", "\"clear \\u001b[2J\"") + list_docs("1")),
              {"why: expected one sentence on one line"});
  const std::string header =
      "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,"
      "max_us,useful_tflops,scores_computed,scores_useful,rel_l2_error\n";
  expect_line(results_error(header + "s,varlen,attnlab,H100,b\x1b[2Jf16,16,128,true,fwd,1,1,1,1,1,1,0\n"),
              {"bad.csv:2: dtype: expected bf16 or fp16, got \"b\\x1b[2Jf16\""});
}

TEST(Printable, EscapesControlsAndBrokenUtf8AndIsIdempotent) {
  EXPECT_EQ(printable("a\rb\nc\x1b[0m\x7f\td"), "a\\rb\\nc\\x1b[0m\\x7f\td");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");  // UTF-8 stays
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\xc2\\x9b2J");                                                           // a C1 control (CSI) does not
  EXPECT_EQ(printable("\xe9\xc0\xaf\xed\xa0\x80"), "\\xe9\\xc0\\xaf\\xed\\xa0\\x80");  // stray, overlong, surrogate
  EXPECT_EQ(printable(std::string(10, 'x'), 4), "xxxx...");
  const std::string once = printable("x\ny\x1b\xff");
  EXPECT_EQ(printable(once), once);
}

// ---- 8. results CSVs: not-a-number, infinite and negative values, a repeated header ------

TEST_F(HostileInput, ResultsRefuseNanInfNegativeAndARepeatedHeader) {
  const std::string header =
      "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,"
      "max_us,useful_tflops,scores_computed,scores_useful,rel_l2_error\n";
  const std::string good = "s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01\n";
  const auto row = [&](const std::string& median, const std::string& min) {
    return header + good + "s,varlen,attnlab,H100,bf16,16,128,true,fwd," + median + "," + min + ",1,1,10,5,0.01\n";
  };
  for (const char* bad : {"nan", "inf", "-inf", "-1", "1e400"})
    expect_line(results_error(row(bad, "1")),
                {"bad.csv:3: median_us: expected a number of \xC2\xB5s from 0.001 to 1e9, got \"" + std::string(bad)});
  expect_line(results_error(row("1", "-0.5")),
              {"bad.csv:3: min_us: expected a number of \xC2\xB5s from 0.001 to 1e9, got \"-0.5\""});
  expect_line(results_error(header + good + header + good), {"bad.csv:3: the header line again"});
}

// ---- 9. lengths CSVs: empty cells, blank lines, NUL, a folder -----------------------------

TEST_F(HostileInput, LengthsCsvNamesEmptyCellsBlankLinesNulAndFolders) {
  const std::string scenario = valid_head + "[documents]\nsource = \"csv\"\npath = \"lengths.csv\"\n";
  write("lengths.csv", "length\n5\n\n7\n");
  expect_line(scenario_error(scenario), {"bad.toml: documents.path: ", "lengths.csv:3: a blank line"});
  write("lengths.csv", "length,turns\n5,1\n,2\n");
  expect_line(scenario_error(scenario), {"lengths.csv:3: length: an empty cell"});
  write("lengths.csv", std::string("length\n5\0garbage\n", 17));
  expect_line(scenario_error(scenario), {"lengths.csv:2:2: a NUL byte"});
  write("lengths.csv", "length\n5 garbage\n");
  expect_line(scenario_error(scenario), {"lengths.csv:2: length: expected a positive integer", "got \"5 garbage\""});
  fs::remove(dir_ / "lengths.csv");
  fs::create_directories(dir_ / "lengths.csv");
  expect_line(scenario_error(scenario), {"lengths.csv: a folder; expected a lengths CSV"});
}

// ---- 10. writing: a target that is not a regular file is refused, not replaced ----------

TEST_F(HostileInput, WritingRefusesSymlinksFoldersAndDevicesAndLeavesThemAlone) {
  write("real.csv", "keep\n");
  fs::create_symlink("real.csv", dir_ / "link.csv");
  ASSERT_EQ(::mkfifo((dir_ / "fifo.csv").c_str(), 0600), 0);
  fs::create_directories(dir_ / "folder.csv");
  for (const char* name : {"link.csv", "fifo.csv", "folder.csv"}) {
    expect_line(error_of([&] { write_results_csv(dir_ / name, {}); }), {name, ": cannot write the results file ("});
  }
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.csv"));
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo.csv"));
  EXPECT_TRUE(fs::is_directory(dir_ / "folder.csv"));
  std::ifstream kept(dir_ / "real.csv");
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "keep");
  expect_line(error_of([] { check_replaceable_file("/dev/null", "results file"); }),
              {"/dev/null: cannot write the results file (it exists and is not a regular file"});
}

// ---- 11. every TOML file goes through the guarded reader: ceilings, odd dates, a byte-order mark ----

TEST_F(HostileInput, CeilingsFilesAreReadThroughTheGuardedReader) {
  const auto ceilings_error = [&](const std::string& text) {
    const fs::path p = write("ceilings.toml", text);
    return error_of([&] { read_ceilings(p); });
  };
  expect_line(ceilings_error("k" + repeated(".k", 20000) + " = 1\n"), {"ceilings.toml:1:", "more than 8 parts"});
  expect_line(ceilings_error("[gemm_bf16]\ntflops = 756\xc3\xa9\n"), {"ceilings.toml:2:", "non-ASCII byte"});
  expect_line(ceilings_error(std::string("[\0]\n", 4)), {"ceilings.toml:1:", "NUL byte"});
  expect_line(ceilings_error("[gemm_bf16\n]\n"), {"ceilings.toml:"});
  const std::string origin = "what = \"8192^3\"\ngpu = \"H100\"\ndate = \"2026-11-25\"\nsource = \"x\"\n";
  const std::string copy = "[copy]\ntbps = 3.0\n" + origin;
  expect_line(ceilings_error("[gemm_bf16]\ntflops = 756.0\n" + with(origin, "H100", "H100\\u001b[31m") + copy),
              {"ceilings.toml: gemm_bf16.gpu: expected one line of printable text"});
  EXPECT_EQ(read_ceilings(write("ceilings.toml", "[gemm_bf16]\ntflops = 756.0\n" + origin + copy)).tflops, 756.0);
}

TEST_F(HostileInput, ADateWithoutItsTimeIsRefusedBeforeToml) {
  expect_line(scenario_error("x=1979-05-27T:\n"),
              {"bad.toml:1:", "a date and time whose time does not follow the 'T'"});
}

TEST_F(HostileInput, ADateWithOneDigitAfterItsBlankIsRefusedBeforeToml) {
  for (const std::string value :
       {"1979-05-27 2", "[1979-05-27 0]", "{a = 1979-05-27 9}", "1979-05-27 2, 3", "1%79-06-27 0#"})
    expect_line(scenario_error("x = " + value + "\n"),
                {"bad.toml:1:", "a value, a blank and a digit: only a date's time follows a blank"});
  // A whole date and time with a blank still reads; so do a date alone and arrays with blanks.
  for (const std::string value : {"1979-05-27 07:32:00", "1979-05-27", "[ 1 , 2 ]", "[\n  1,\n  2\n]", "{ a = 1 }"})
    expect_line(scenario_error("x = " + value + "\n"), {"bad.toml: x: unknown key"});
}

TEST_F(HostileInput, AByteOrderMarkIsSkippedAsTomlSkipsIt) {
  const fs::path p = write("bom.toml", "\xEF\xBB\xBF" + valid_head + list_docs("5, 7"));
  EXPECT_EQ(load_scenario(p.string()).total_tokens(), 12);
}

// toml++ skips the mark, so a table header right after it starts a line: its first key is checked.
TEST_F(HostileInput, AHeaderRightAfterAByteOrderMarkIsChecked) {
  for (const std::string header : {"[.a]", "[[[a]]", " [|"})
    expect_line(scenario_error("\xEF\xBB\xBF" + header + "\n"),
                {"bad.toml:1:", "a table header that does not start with a key"});
}

// Best fit is bounded before it packs: the refusal says the figure is that bound, not the layout's size.
TEST_F(HostileInput, BestFitRefusalSaysItsBoundIsBeforePacking) {
  const std::string text = with(valid_head, "row_len = 4096", "row_len = 1024\npacking = \"best_fit\"") +
                           "[documents]\nsource = \"uniform\"\ncount = 32768\nlength = 512\n";
  expect_line(scenario_error(text),
              {"bad.toml: documents: expected at most 16777216 positions in the packed layout, got "
               "33554432 as bounded before packing"});
}

// Text cells reach the terminal and the GUI as read: control characters and bytes that are not
// UTF-8 are refused, and an implementation is one of the four.
TEST_F(HostileInput, ResultsTextCellsArePrintableAndImplementationsKnown) {
  const std::string header =
      "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,"
      "max_us,useful_tflops,scores_computed,scores_useful,rel_l2_error\n";
  const std::string row = "s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01\n";
  expect_line(results_error(header + with(row, "H100", "H100\x1b[31m\x07")),
              {"bad.csv:2: gpu: expected printable text of at most 256 bytes (no control character, UTF-8), got "
               "\"H100\\x1b[31m\\x07\""});
  expect_line(results_error(header + with(row, "attnlab", "at\xff")), {"bad.csv:2: source: expected printable text"});
  expect_line(results_error(header + with(row, "s,varlen", "s\r,varlen")), {"bad.csv:2: scenario: expected printable"});
  expect_line(results_error(header + with(row, "varlen", "anything")),
              {"bad.csv:2: implementation: expected naive, padded, packed or varlen, got \"anything\""});
}

// A text cell is bounded (tables pad every row to the widest cell: one cell of 32 MiB asked for
// gigabytes), and so are the cells of one record, in every CSV attnlab reads (a line of 64 M
// empty cells asked for 2 GB).
TEST_F(HostileInput, CsvCellsAndTextCellsAreBounded) {
  const std::string header =
      "scenario,implementation,source,gpu,dtype,heads,head_dim,causal,pass,median_us,min_us,"
      "max_us,useful_tflops,scores_computed,scores_useful,rel_l2_error\n";
  const std::string row = "s,varlen,attnlab,H100,bf16,16,128,true,fwd,1,1,1,1,10,5,0.01\n";
  const std::string longest(256, 'a');
  EXPECT_EQ(read_results_csv(write("ok.csv", header + with(row, "attnlab", longest)))[0].source, longest);
  expect_line(results_error(header + with(row, "attnlab", longest + "a")),
              {"bad.csv:2: source: expected printable text of at most 256 bytes"});
  expect_line(results_error(header + with(row, "0.01", "0.01" + std::string(1024 - 16, ','))),
              {"bad.csv:2: more cells than the header has columns"});
  expect_line(results_error(header + with(row, "0.01", "0.01" + std::string(1024 - 15, ','))),
              {"bad.csv:2: more than 1024 cells in one record"});
  expect_line(results_error(std::string(std::size_t{1} << 20, ',') + "\n"),
              {"bad.csv:1: more than 1024 cells in one record"});
  write("commas.csv", "length\n5" + std::string(std::size_t{1} << 20, ',') + "\n");
  expect_line(scenario_error(valid_head + "[documents]\nsource = \"csv\"\npath = \"commas.csv\"\n"),
              {"commas.csv:2: cannot read the lengths CSV: more than 1024 cells in one record"});
  write("gemms.csv",
        "scenario,gpu,dtype,gemm,pass,m,n,k,per_step,median_us\n" + longest + "a,G,bf16,lm_head,fwd,8,8,8,1,2.5\n");
  expect_line(error_of([&] { read_gemms_csv(dir_ / "gemms.csv"); }),
              {"gemms.csv:2: scenario: expected printable text of at most 256 bytes"});
}

}  // namespace
}  // namespace attnlab
