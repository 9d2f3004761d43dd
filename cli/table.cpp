#include "cli/table.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string_view>

#include "analysis/text_wrap.hpp"

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

std::string ms_figure(double us) { return printf_string("%.1f", us / 1000); }

std::size_t display_width(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;  // UTF-8 continuation bytes add no column
  return n;
}

std::string wrapped(const std::string& text, std::size_t width) {
  std::string out;
  const auto columns = [](std::string_view s) { return float(display_width(s)); };
  for (const std::string& line : wrap_at_spaces(text, float(width), columns)) out += line + "\n";
  return out;
}

TextTable::TextTable(std::vector<std::string> header, std::size_t left_aligned)
    : header_(std::move(header)), left_aligned_(left_aligned), width_(header_.size(), 0) {
  widen(header_);
}

void TextTable::widen(const std::vector<std::string>& row) {
  for (std::size_t i = 0; i < row.size() && i < width_.size(); ++i)
    width_[i] = std::max(width_[i], display_width(row[i]));
}

std::string TextTable::line(const std::vector<std::string>& row) const {
  std::string out;
  for (std::size_t i = 0; i < width_.size(); ++i) {
    const std::string cell = i < row.size() ? row[i] : "";
    const std::string pad(width_[i] - std::min(width_[i], display_width(cell)), ' ');
    if (i > 0) out += "  ";
    out += i < left_aligned_ ? cell + pad : pad + cell;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\n";
}

std::string TextTable::rule() const {
  std::size_t total = 0;
  for (std::size_t w : width_) total += w + 2;
  return std::string(total - 2, '-') + "\n";
}

std::string TextTable::render() const {
  std::string out = line(header_) + rule();
  for (const auto& row : rows_) out += line(row);
  return out;
}

void TextTable::print_header(std::FILE* out) const { std::fputs((line(header_) + rule()).c_str(), out); }

void TextTable::print_row(std::FILE* out, const std::vector<std::string>& row) const {
  std::fputs(line(row).c_str(), out);
}

}  // namespace attnlab::cli
