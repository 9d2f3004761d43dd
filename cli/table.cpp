#include "cli/table.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace attnlab::cli {

std::string printf_string(const char* format, ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  std::string out(std::vsnprintf(nullptr, 0, format, args), '\0');
  std::vsnprintf(out.data(), out.size() + 1, format, again);
  va_end(again);
  va_end(args);
  return out;
}

std::size_t display_width(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;  // UTF-8 continuation bytes add no column
  return n;
}

std::string TextTable::render() const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], display_width(row[i]));
  };
  widen(header_);
  for (const auto& row : rows_) widen(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const std::string pad(width[i] - display_width(cell), ' ');
      if (i > 0) out += "  ";
      out += i < left_aligned_ ? cell + pad : pad + cell;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  std::size_t total = 0;
  for (std::size_t w : width) total += w + 2;
  out += std::string(total - 2, '-') + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace attnlab::cli
