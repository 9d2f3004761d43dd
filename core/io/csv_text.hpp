#pragma once
// The CSV reading both kinds of input file share (a results CSV, a lengths CSV): records
// split from text already read whole and bounded by read_input_file, one line at a time,
// holding only the current record's cells, so memory follows what the caller keeps.
//  - a UTF-8 byte-order mark (as spreadsheets save one) is skipped; CRLF line ends read as LF;
//  - cells are split at commas and trimmed of the dialect's blanks; with quotes on, a cell
//    that starts with '"' runs to the next lone '"' (a doubled "" is one quote) and may hold
//    commas but no line break;
//  - with a comment character, lines that start with it are skipped;
//  - a record of more than max_csv_cells cells (core/io/input_limits.hpp) is a syntax error, found
//    before more cells are kept.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

struct CsvDialect {
  std::string_view blanks = " ";  // trimmed from both ends of every cell
  bool quotes = true;
  char comment = '\0';  // '\0': no comment lines
};

// A record the reader cannot split; line counts from 1.
struct CsvSyntaxError : std::runtime_error {
  CsvSyntaxError(int at_line, const std::string& what) : std::runtime_error(what), line(at_line) {}
  int line;
};

class CsvRecords {
 public:
  CsvRecords(std::string_view text, CsvDialect dialect);

  // The next record's cells, false at the end of the text. Throws CsvSyntaxError.
  bool next(std::vector<std::string>& cells);
  // The line of the record next() returned last (from 1), and its text without the line end.
  int line() const { return line_; }
  std::string_view line_text() const { return line_text_; }

 private:
  std::string_view text_;
  CsvDialect dialect_;
  std::size_t at_ = 0;
  int line_ = 0;
  std::string_view line_text_;
};

// The header's columns that a reader wants, by position: column_of[i] is the cell index of
// wanted[i] in every record, or -1 where the header lacks it. Throws CsvSyntaxError when a
// wanted column appears twice.
struct CsvHeader {
  CsvHeader(const std::vector<std::string>& header, const std::vector<std::string_view>& wanted, int line);
  std::vector<int> column_of;
  std::size_t cells = 0;  // cells every record must have
};

}  // namespace attnlab
