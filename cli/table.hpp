#pragma once
// Plain-text tables and the number formats the CLI prints in them. Units as the GUI
// shows them: bytes in powers of 1024 (KiB, MiB, GiB), times in µs.
#include <cstdint>
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
std::string si_count(double value);         // 3 significant digits and a k/M/G/T/P suffix: "34.4 M"
std::string binary_bytes(double bytes);     // "1.50 GiB"
std::string times(double ratio);            // "7.99x"
std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace attnlab::cli
