#pragma once
// Plain-text tables for the CLI's output; the numbers in them are formatted by
// analysis/number_format.hpp, as the GUI's are.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::cli {

// Columns padded to their widest cell: the first `left_aligned` left-aligned (labels, text),
// the rest right-aligned (numbers).
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::size_t left_aligned = 1);
  void add_row(std::vector<std::string> cells) {
    widen(cells);
    rows_.push_back(std::move(cells));
  }
  std::string render() const;

  // A table of as many rows as a results folder holds is not kept: widen() with every row, then
  // print the header and each row again in turn; only the column widths are held.
  void widen(const std::vector<std::string>& row);
  void print_header(std::FILE* out) const;
  void print_row(std::FILE* out, const std::vector<std::string>& row) const;

 private:
  std::string line(const std::vector<std::string>& row) const;
  std::string rule() const;

  std::vector<std::string> header_;
  std::size_t left_aligned_;
  std::vector<std::size_t> width_;
  std::vector<std::vector<std::string>> rows_;
};

// Columns a UTF-8 string takes in a terminal ("µs" is two), for characters one column wide.
std::size_t display_width(std::string_view text);
// Words filled into lines of at most `width` columns by analysis/text_wrap.hpp's rule (a number
// keeps its unit; a word longer than the line is cut at a '-', '_' or '/', else stands alone).
std::string wrapped(const std::string& text, std::size_t width);
std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
// µs written as ms to a tenth, without the unit (its heading names it): 365210 -> "365.2".
std::string ms_figure(double us);

}  // namespace attnlab::cli
