#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace attnlab::gui {

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
      const std::size_t space = std::min(paragraph.find(' ', at), paragraph.size());
      const std::string_view word = paragraph.substr(at, space - at);
      const std::string longer = line.empty() ? std::string(word) : line + " " + std::string(word);
      if (!line.empty() && measure(longer) > width) {
        lines.push_back(line);
        line = std::string(word);
      } else {
        line = longer;
      }
      at = space + 1;
    }
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

void wrapped_text_v(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string text(n > 0 ? std::size_t(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, args);
  const float width = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4);
  ImGui::BeginGroup();  // after SameLine, every line starts where the first does
  for (const std::string& line : wrap_at_spaces(
           text, width, [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; }))
    ImGui::TextUnformatted(line.c_str());
  ImGui::EndGroup();
}

void wrapped_text(const char* format, ...) {
  va_list args;
  va_start(args, format);
  wrapped_text_v(format, args);
  va_end(args);
}

}  // namespace attnlab::gui
