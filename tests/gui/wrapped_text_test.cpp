// Wrapped text breaks at spaces only: a number stays on one line, wherever the width falls.
#include <gtest/gtest.h>

#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {
namespace {

TEST(WrappedText, NumbersAreNeverCutInTwo) {
  const std::string text = "one layer: short 1.42x, long 2.38x; 1,170 \xC2\xB5s against 2,234 \xC2\xB5s (1.07G)";
  const auto measure = [](std::string_view s) { return float(s.size()) * 7.0f; };  // a monospaced font
  for (float width = 7; width < 7.0f * float(text.size()) + 14; width += 7) {
    const std::vector<std::string> lines = wrap_at_spaces(text, width, measure);
    std::string joined;
    for (const std::string& line : lines) {
      EXPECT_TRUE(measure(line) <= width || line.find(' ') == std::string::npos) << width << ": " << line;
      joined += (joined.empty() ? "" : " ") + line;
    }
    EXPECT_EQ(joined, text) << width;  // every break is a space of the text
  }
  EXPECT_EQ(wrap_at_spaces("a\nb c", 1000, measure), (std::vector<std::string>{"a", "b c"}));
  // A file name wider than the line breaks at its joints, never inside "sm80" or ".csv".
  EXPECT_EQ(wrap_at_spaces("x attnlab-bench-mma-sm80.csv", 7 * 19, measure),
            (std::vector<std::string>{"x", "attnlab-bench-mma-", "sm80.csv"}));
}

}  // namespace
}  // namespace attnlab::gui
