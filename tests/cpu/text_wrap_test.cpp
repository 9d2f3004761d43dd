// Text wraps at spaces only, in the GUI's pixels and the CLI's columns alike: a number stays on
// one line, wherever the width falls.
#include <gtest/gtest.h>

#include <cctype>

#include "analysis/text_wrap.hpp"

namespace attnlab {
namespace {

TEST(WrappedText, NumbersAreNeverCutInTwo) {
  const std::string text = "one layer: short 1.42x, long 2.38x; 1,170 \xC2\xB5s against 2,234 \xC2\xB5s (1.07G)";
  const auto measure = [](std::string_view s) { return float(s.size()) * 7.0f; };  // a monospaced font
  for (float width = 7; width < 7.0f * float(text.size()) + 14; width += 7) {
    const std::vector<std::string> lines = wrap_at_spaces(text, width, measure);
    std::string joined;
    for (const std::string& line : lines) {
      // Wider than the line only where it cannot be cut: one word, or a number and its unit.
      const bool whole =
          line.find(' ') == std::string::npos ||
          (line.find(' ') == line.rfind(' ') && std::isdigit(static_cast<unsigned char>(line[line.find(' ') - 1])));
      EXPECT_TRUE(measure(line) <= width || whole) << width << ": " << line;
      joined += (joined.empty() ? "" : " ") + line;
    }
    EXPECT_EQ(joined, text) << width;  // every break is a space of the text
  }
  EXPECT_EQ(wrap_at_spaces("a\nb c", 1000, measure), (std::vector<std::string>{"a", "b c"}));
  // A file name wider than the line breaks at its joints, never inside "sm80" or ".csv".
  EXPECT_EQ(wrap_at_spaces("x attnlab-bench-mma-sm80.csv", 7 * 19, measure),
            (std::vector<std::string>{"x", "attnlab-bench-mma-", "sm80.csv"}));
}

// A number and its unit stay on one line: "(1.07 / G against 134 M)" and "319,937 / µs" were cut
// between them at 1280x720.
TEST(WrappedText, ANumberKeepsItsUnit) {
  const std::string text =
      "packed (1.07 G against 134 M) took 319,937 \xC2\xB5s, ncu 56.2 GiB; 85.9 GFLOP at 756 TFLOP/s";
  const auto measure = [](std::string_view s) { return float(s.size()) * 7.0f; };
  for (float width = 7; width < 7.0f * float(text.size()) + 14; width += 7)
    for (const std::string& line : wrap_at_spaces(text, width, measure))
      for (const std::string number : {"1.07", "134", "319,937", "56.2", "85.9", "756"}) {
        const bool ends_in_it = line.size() >= number.size() && line.substr(line.size() - number.size()) == number;
        EXPECT_FALSE(ends_in_it) << width << ": \"" << line << "\"";
      }
  // A number before an ordinary word may end a line.
  EXPECT_EQ(wrap_at_spaces("rows of 2048 tokens", 7 * 12, measure),
            (std::vector<std::string>{"rows of 2048", "tokens"}));
}

// A kernel's name keeps its middle dot with its first word: "attnlab" ended a line of attnlab
// step's paragraph and "· wgmma-sm90" began the next.
TEST(WrappedText, ANameKeepsItsMiddleDot) {
  const std::string text = "varlen saved 8,364 \xC2\xB5s (one GPU, Muon, attnlab \xC2\xB7 wgmma-sm90) of attention";
  const auto measure = [](std::string_view s) { return float(s.size()) * 7.0f; };
  for (float width = 7; width < 7.0f * float(text.size()) + 14; width += 7) {
    std::string joined;
    for (const std::string& line : wrap_at_spaces(text, width, measure)) {
      EXPECT_NE(line.rfind("\xC2\xB7", 0), 0u) << width << ": \"" << line << "\"";
      EXPECT_FALSE(line.size() >= 7 && line.substr(line.size() - 7) == "attnlab") << width << ": \"" << line << "\"";
      joined += line;
    }
    // Every character kept, in order (a line narrower than a word cuts it at a hyphen).
    std::string letters = text;
    std::erase(letters, ' ');
    std::erase(joined, ' ');
    EXPECT_EQ(joined, letters) << width;
  }
}

}  // namespace
}  // namespace attnlab
