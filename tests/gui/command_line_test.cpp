// attnlab-gui's arguments: bad ones exit with code 2 and one clear line, before any window opens.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/io/input_error.hpp"
#include "gui/platform/command_line.hpp"
#include "gui/platform/window_size.hpp"

namespace attnlab::gui {
namespace {

struct Outcome {
  int exit_code;
  std::string output;
};

Outcome run_gui(const std::string& args) {
  const std::string command = std::string(ATTNLAB_GUI_EXE) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[256];
  while (fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(CommandLine, BadArgumentsExitTwoNamingTheirFlag) {
  const struct {
    const char* args;
    const char* named;
  } cases[] = {
      {"--view nope", "--view"},
      {"--view masks --size 12", "--size"},
      {"--view masks --scenario no-such-scenario", "no-such-scenario"},
      {"--view masks --mouse 10x20", "--mouse"},
      {"--view masks --text-scale 9", "--text-scale"},
      {"--view costs --pass both", "--pass"},
      {"--view masks --text-scale nan", "--text-scale"},
      {"--view masks --results /nonexistent-attnlab-results", "--results: /nonexistent-attnlab-results: not a folder"},
  };
  for (const auto& c : cases) {
    const Outcome o = run_gui(std::string("--screenshot /tmp/never-written.png ") + c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args;
    EXPECT_NE(o.output.find(c.named), std::string::npos) << c.args << ": " << o.output;
  }
}

// Numeric flags are decimal, finite and in range: no octal ("010" is not step 8), no hex, no
// NaN or infinity, no exponent; the message quotes the text given, never a 309-digit number.
TEST(CommandLine, NumericFlagsAreStrictDecimal) {
  const struct {
    const char* args;
    const char* named;
  } cases[] = {
      {"--story-step 010", "--story-step: expected an integer from 1 to 10, got \"010\""},
      {"--story-step 0x1", "--story-step"},
      {"--story-step +3", "--story-step"},
      {"--story-step 3.0", "--story-step"},
      {"--view masks --mask-cells 0x10", "--mask-cells: expected an integer from 1 to"},
      {"--view masks --mask-cells nan", "--mask-cells"},
      {"--view masks --mask-cells inf", "got \"inf\""},
      {"--view masks --mask-cells 1e3", "--mask-cells"},
      {"--view masks --mask-cells 0", "--mask-cells"},
      {"--view masks --text-scale 0x1", "--text-scale: expected a number from 0.75 to 3, got \"0x1\""},
      {"--view masks --text-scale 1e0", "--text-scale"},
      {"--view masks --text-scale .5", "--text-scale"},
      {"--view masks --size 01280x800", "--size"},
      {"--view masks --mouse 0x10,5", "--mouse"},
  };
  for (const auto& c : cases) {
    const Outcome o = run_gui(std::string("--screenshot /tmp/never-written.png ") + c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args;
    EXPECT_NE(o.output.find(c.named), std::string::npos) << c.args << ": " << o.output;
    EXPECT_LT(o.output.size(), 200u) << c.args << ": " << o.output;
    EXPECT_EQ(o.output.find('\n'), o.output.size() - 1) << c.args << ": one line";
  }
}

// A flag the view shown would not read is refused, not dropped: --story-step 5 with
// --scenario used to render Masks, and --view story used to replace --scenario in silence.
TEST(CommandLine, FlagsTheViewWouldIgnoreAreRefused) {
  const struct {
    const char* args;
    const char* named;
  } cases[] = {
      {"--story-step 5 --scenario web-mix-2048", "--scenario: the Story opens each step's own scenario"},
      {"--view story --scenario long-tail", "--scenario"},
      {"--view masks --story-step 3", "--story-step: a step of the Story (--view story), not of --view masks"},
      {"--view story --mask-cells 96", "--mask-cells"},
      {"--view masks --pass bwd", "--pass"},
  };
  for (const auto& c : cases) {
    const Outcome o = run_gui(std::string("--screenshot /tmp/never-written.png ") + c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args;
    EXPECT_NE(o.output.find(c.named), std::string::npos) << c.args << ": " << o.output;
  }
  const Outcome mouse = run_gui("--view masks --mouse 10,10");
  EXPECT_EQ(mouse.exit_code, 2) << mouse.output;
  EXPECT_NE(mouse.output.find("--mouse: only with --screenshot"), std::string::npos) << mouse.output;
  EXPECT_NO_THROW(check_flags_fit_view(View::story, {true, false, false, false, false, false}));
  EXPECT_NO_THROW(check_flags_fit_view(View::scenario, {false, true, true, false, false, false}));
  EXPECT_NO_THROW(check_flags_fit_view(View::timings, {false, true, false, true, true, true}));
}

TEST(CommandLine, AnEmptyScreenshotPathIsRefusedNotAWindow) {
  const Outcome o = run_gui("--screenshot '' --view masks");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("--screenshot: expected the path of a PNG file"), std::string::npos) << o.output;
}

// The screenshot goes through the one atomic writer: special files and symlinks are refused and
// left as they are, a symlink planted at the old temp name is not followed, a folder is named.
TEST(CommandLine, ScreenshotTargetsThatAreNotPlainFilesAreRefusedAndLeftAlone) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attnlab_gui_screenshot_targets";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path fifo = dir / "fifo.png", link = dir / "link.png", victim = dir / "victim.txt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  { std::ofstream(victim) << "precious"; }
  std::filesystem::create_symlink(victim, link);
  for (const std::filesystem::path& target : {fifo, link, dir}) {
    const Outcome o = run_gui("--screenshot '" + target.string() + "' --view masks");
    EXPECT_EQ(o.exit_code, 2) << target << ": " << o.output;
    EXPECT_NE(o.output.find(target.string() + ": cannot write the PNG ("), std::string::npos) << o.output;
  }
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  std::ifstream kept(victim);
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "precious");
  std::filesystem::remove_all(dir);
}

TEST(CommandLine, UnknownFlagExitsTwo) { EXPECT_EQ(run_gui("--frobnicate").exit_code, 2); }

TEST(WindowSize, ParsesAndRejects) {
  const WindowSize s = parse_window_size("1920x1080");
  EXPECT_EQ(s.width, 1920);
  EXPECT_EQ(s.height, 1080);
  for (const char* bad : {"", "1920", "1920x", "x1080", "1920x1080x", "10x10", "99999x100", "12ax40"})
    EXPECT_THROW(parse_window_size(bad), InputError) << bad;
  EXPECT_EQ(parse_screen_point("640,400").x, 640);
  EXPECT_EQ(parse_screen_point("640,400").y, 400);
  for (const char* bad : {"", "640", "640,", "-1,5", "640,400,1", "640x400"})
    EXPECT_THROW(parse_screen_point(bad), InputError) << bad;
}

}  // namespace
}  // namespace attnlab::gui
