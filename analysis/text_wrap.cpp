#include "analysis/text_wrap.hpp"

#include <algorithm>

namespace attnlab {

namespace {

// A word wider than the line cut after a '-', '_' or '/' (a file name's joints), as late as
// fits; never at '.' or ',', so a number stays whole. Its last piece is returned.
std::string cut_long_word(std::string word, float width, const std::function<float(std::string_view)>& measure,
                          std::vector<std::string>& lines) {
  while (measure(word) > width) {
    std::size_t cut = std::string::npos;
    for (std::size_t i = 1; i + 1 < word.size(); ++i)
      if ((word[i] == '-' || word[i] == '_' || word[i] == '/') &&
          measure(std::string_view(word).substr(0, i + 1)) <= width)
        cut = i + 1;
    if (cut == std::string::npos) break;
    lines.push_back(word.substr(0, cut));
    word.erase(0, cut);
  }
  return word;
}

// A unit the formatter writes after a number and a space: SI prefixes, bytes, times, rates.
bool is_unit(std::string_view word) {
  static constexpr std::string_view units[] = {"k",   "M",   "G",   "T",         "P",  "B",       "KiB", "MiB",
                                               "GiB", "TiB", "PiB", "\xC2\xB5s", "ms", "TFLOP/s", "TB/s"};
  for (std::string_view u : units)
    if (word == u ||
        (word.size() > u.size() && word.substr(0, u.size()) == u &&
         (word[u.size()] == ',' || word[u.size()] == ')' || word[u.size()] == ';' || word[u.size()] == '.')))
      return true;
  return word.size() >= 5 && std::string_view("kMGTP").find(word[0]) != std::string_view::npos &&
         word.substr(1, 4) == "FLOP";  // "85.9 GFLOP"
}

constexpr std::string_view middle_dot = "\xC2\xB7";  // between a kernel family and its kernel

bool ends_in_digit(std::string_view word) { return !word.empty() && word.back() >= '0' && word.back() <= '9'; }

}  // namespace

std::vector<std::string> wrap_at_spaces(std::string_view text, float width,
                                        const std::function<float(std::string_view)>& measure) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view paragraph = text.substr(start, end - start);
    std::string line;
    std::size_t at = 0;
    while (at <= paragraph.size()) {
      std::size_t space = std::min(paragraph.find(' ', at), paragraph.size());
      // A number and its unit are one word: "1.07 G" never ends a line at "1.07". A name's middle
      // dot stays with the word before it, as a hyphen would: "attnlab ·" may end a line, "·" never
      // starts one (a narrow table cell still breaks the name there).
      while (space < paragraph.size()) {
        const std::size_t next = std::min(paragraph.find(' ', space + 1), paragraph.size());
        const std::string_view following = paragraph.substr(space + 1, next - space - 1);
        if (following != middle_dot && !(ends_in_digit(paragraph.substr(at, space - at)) && is_unit(following))) break;
        space = next;
      }
      const std::string_view word = paragraph.substr(at, space - at);
      const std::string longer = line.empty() ? std::string(word) : line + " " + std::string(word);
      if (measure(longer) <= width) {
        line = longer;
      } else {
        if (!line.empty()) lines.push_back(line);
        line = cut_long_word(std::string(word), width, measure, lines);
      }
      at = space + 1;
    }
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

}  // namespace attnlab
