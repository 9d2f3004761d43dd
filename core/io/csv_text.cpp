#include "core/io/csv_text.hpp"

#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"

namespace attnlab {

CsvRecords::CsvRecords(std::string_view text, CsvDialect dialect) : text_(text), dialect_(dialect) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") at_ = 3;
}

bool CsvRecords::next(std::vector<std::string>& cells) {
  while (at_ < text_.size()) {
    const std::size_t end = std::min(text_.find('\n', at_), text_.size());
    std::string_view line = text_.substr(at_, end - at_);
    at_ = end + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (dialect_.comment != '\0' && !line.empty() && line.front() == dialect_.comment) continue;
    line_text_ = line;
    cells.clear();
    std::size_t i = 0;
    while (true) {
      while (i < line.size() && dialect_.blanks.find(line[i]) != std::string_view::npos) ++i;
      std::string cell;
      if (dialect_.quotes && i < line.size() && line[i] == '"') {
        for (++i;; ++i) {
          if (i >= line.size()) throw CsvSyntaxError(line_, "a quoted cell is not closed");
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
              cell += '"';
              ++i;
              continue;
            }
            ++i;
            break;
          }
          cell += line[i];
        }
        while (i < line.size() && dialect_.blanks.find(line[i]) != std::string_view::npos) ++i;
        if (i < line.size() && line[i] != ',') throw CsvSyntaxError(line_, "text after a quoted cell's closing quote");
      } else {
        const std::size_t comma = std::min(line.find(',', i), line.size());
        cell = line.substr(i, comma - i);
        while (!cell.empty() && dialect_.blanks.find(cell.back()) != std::string_view::npos) cell.pop_back();
        i = comma;
      }
      if (static_cast<std::int64_t>(cells.size()) == max_csv_cells)
        throw CsvSyntaxError(line_, "more than " + std::to_string(max_csv_cells) + " cells in one record");
      cells.push_back(std::move(cell));
      if (i >= line.size()) break;
      ++i;  // the comma
    }
    return true;
  }
  return false;
}

CsvHeader::CsvHeader(const std::vector<std::string>& header, const std::vector<std::string_view>& wanted, int line)
    : column_of(wanted.size(), -1), cells(header.size()) {
  for (std::size_t cell = 0; cell < header.size(); ++cell)
    for (std::size_t w = 0; w < wanted.size(); ++w) {
      if (header[cell] != wanted[w]) continue;
      if (column_of[w] >= 0)
        throw CsvSyntaxError(line, "column " + printable(header[cell]) + " appears twice in the header");
      column_of[w] = static_cast<int>(cell);
    }
}

}  // namespace attnlab
