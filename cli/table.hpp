#pragma once
// Plain-text tables for the CLI's output; the numbers in them are formatted by
// analysis/number_format.hpp, as the GUI's are.
#include <string>
#include <vector>

namespace attnlab::cli {

// Columns padded to their widest cell: the first `left_aligned` left-aligned (labels, text),
// the rest right-aligned (numbers).
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::size_t left_aligned = 1)
      : header_(std::move(header)), left_aligned_(left_aligned) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::size_t left_aligned_;
  std::vector<std::vector<std::string>> rows_;
};

// Columns a UTF-8 string takes in a terminal ("µs" is two), for characters one column wide.
std::size_t display_width(const std::string& text);
std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace attnlab::cli
