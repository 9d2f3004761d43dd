#include "core/io/toml_guard.hpp"

#include <vector>

#include "core/io/input_error.hpp"
#include "core/io/input_file.hpp"
#include "core/io/input_limits.hpp"

namespace attnlab {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A character a bare value may end with: neither a blank nor a separator nor a quote.
bool ends_a_value(char c) {
  return c != ' ' && c != '\t' && c != '\n' && c != '\r' &&
         std::string_view("=,[]{}#\"'").find(c) == std::string_view::npos;
}

bool is_bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// Walks the text once. A "run" is what could be one key: bare words, quoted strings, dots
// and blanks between two separators (= , [ ] { } newline, comment). Every dot of a run
// counts as a key part, whether toml++ reads it as a key or not: a valid value holds at most
// one dot outside its strings (1.5, a time's fraction), far below max_key_parts - 1.
class TomlGuard {
 public:
  TomlGuard(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  void run() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = begin_ = 3;  // a byte-order mark, which toml++ skips
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (static_cast<unsigned char>(c) >= 0x80)
        fail("a non-ASCII byte outside a string or comment; TOML allows them only inside strings and comments");
      if (c == '#') {
        in_bare_value_ = false;
        comment();
      } else if (c == '"' || c == '\'') {
        // toml++ reads a quote as a string only where a key or value starts; elsewhere (`2"é"`,
        // `1."é"`) it reads on as a bare value and meets the non-ASCII bytes outside any string.
        if (!string_may_start())
          fail("a quote where no key or value starts; a string follows =, [, {, a comma, a line start or a key's dot");
        string(c);
      } else if (c == '.') {
        last_ = c;
        in_bare_value_ = in_bare_value_ || !in_key_;
        if (++run_dots_ >= max_key_parts)
          fail("a dotted key or table header of more than " + std::to_string(max_key_parts) + " parts");
        part_bytes_ = 0;
        ++i_;
      } else if (is_bare_key_char(c)) {
        // toml++ 3.3.0 asserts on a date whose 'T' is followed by no time (`1979-05-27T:`).
        if (in_bare_value_ && (c == 'T' || c == 't') && i_ > 0 && is_digit(text_[i_ - 1]) &&
            !(i_ + 1 < text_.size() && is_digit(text_[i_ + 1])))
          fail("a date and time whose time does not follow the 'T'");
        // It reads a digit after a value and one blank as a date's time, checking the date
        // loosely, and asserts when one digit ends there (`1979-05-27 2`, `1%79-06-27 0`). In
        // valid TOML only a date's time follows a value's blank, and it starts with hh:.
        if (!in_key_ && is_digit(c) && i_ > 1 && text_[i_ - 1] == ' ' && ends_a_value(text_[i_ - 2]) &&
            !(i_ + 2 < text_.size() && is_digit(text_[i_ + 1]) && text_[i_ + 2] == ':'))
          fail("a value, a blank and a digit: only a date's time follows a blank, and it starts with hh:");
        last_ = c;
        in_bare_value_ = in_bare_value_ || !in_key_;
        if (in_key_ && ++part_bytes_ > max_key_bytes)
          fail("a key longer than " + std::to_string(max_key_bytes) + " bytes");
        ++i_;
      } else if (c == ' ' || c == '\t') {
        in_bare_value_ = false;
        part_bytes_ = 0;
        ++i_;
      } else {
        separator(c);
        ++i_;
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(file_ + ":" + line_and_column(text_, i_) + ": not valid TOML: " + what);
  }

  bool string_may_start() const {
    return last_ == '\n' || last_ == '=' || last_ == '[' || last_ == '{' || last_ == ',' || (last_ == '.' && in_key_);
  }

  void end_run() {
    run_dots_ = 0;
    part_bytes_ = 0;
  }

  // Brackets, '=', ',' and line ends: they end a run and say whether a key comes next.
  void separator(char c) {
    end_run();
    last_ = c;
    // toml++ reads a bare value (a number, a date, true) on to the next blank, comma, bracket
    // close, comment or line end; a '[', '{' or '=' inside it would make this pass see a table
    // or a string where toml++ sees none (`w=1.x{='''é`).
    if (in_bare_value_ && (c == '[' || c == '{' || c == '='))
      fail(std::string("a '") + c +
           "' inside a bare value; values end at a blank, a comma, a closing bracket or a line end");
    if (c == ',' || c == ']' || c == '}' || c == '\n')
      in_bare_value_ = false;
    else if (!in_key_ && c != '[' && c != '{' && c != '=')
      in_bare_value_ = true;
    const bool line_start = at_line_start();
    if (c == '[' || c == '{') {
      if (static_cast<int>(open_.size()) >= max_toml_nesting)
        fail("arrays, inline tables and table headers nested more than " + std::to_string(max_toml_nesting) + " deep");
      // A table header's key follows '[' (or '[[') at the start of a line; an inline table's keys follow '{'.
      if (c == '[' && line_start) header_starts_with_a_key();
      const bool second_header_bracket = in_key_ && open_.size() == 1 && open_.back() == '[' && text_[i_ - 1] == '[';
      in_key_ = c == '{' || (c == '[' && (line_start || second_header_bracket));
      open_.push_back(c);
    } else if (c == ']' || c == '}') {
      // Brackets must pair: toml++ 3.3.0 asserts on `[}` where an array's value starts.
      if (open_.empty() || open_.back() != (c == ']' ? '[' : '{'))
        fail(c == ']' ? "a ']' that closes no array or table header" : "a '}' that closes no inline table");
      open_.pop_back();
      in_key_ = false;
    } else if (c == '=') {
      in_key_ = false;
    } else if (c == ',') {
      in_key_ = !open_.empty() && open_.back() == '{';
    } else if (c == '\n') {
      in_key_ = open_.empty();
    }
  }

  // toml++ 3.3.0 asserts (and reads on in a release build) when a table header's first
  // character, past '[' or '[[' and blanks, cannot start a key: ` [|`, `[.a]`, `[[[`.
  void header_starts_with_a_key() const {
    std::size_t j = i_ + 1;
    if (j < text_.size() && text_[j] == '[') ++j;
    while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t')) ++j;
    if (j == text_.size() || !(is_bare_key_char(text_[j]) || text_[j] == '"' || text_[j] == '\'' || text_[j] == ']'))
      fail("a table header that does not start with a key");
  }

  // Only blanks since the last line end, and no bracket open: where a table header may start.
  bool at_line_start() const {
    if (!open_.empty()) return false;
    for (std::size_t k = i_; k-- > begin_;) {
      if (text_[k] == '\n') return true;
      if (text_[k] != ' ' && text_[k] != '\t') return false;
    }
    return true;
  }

  // A byte inside a comment or string: NUL was refused when the file was read; text must be UTF-8.
  void inside_byte() {
    if (static_cast<unsigned char>(text_[i_]) < 0x80) {
      ++i_;
      return;
    }
    const std::size_t n = utf8_length(text_, i_);
    if (n == 0) fail("a byte that is not UTF-8 inside a string or comment");
    i_ += n;
  }

  void comment() {
    while (i_ < text_.size() && text_[i_] != '\n') inside_byte();
  }

  // A basic ("...", """...""") or literal ('...', '''...''') string. One-line strings end
  // at their line's end even when unclosed (toml++ then reports it); multi-line ones end at
  // three quotes, which may be followed by up to two more belonging to the string.
  void string(char quote) {
    const bool multi_line = text_.substr(i_, 3) == std::string(3, quote);
    const std::size_t start = i_;
    i_ += multi_line ? 3 : 1;
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == quote && (!multi_line || text_.substr(i_, 3) == std::string(3, quote))) {
        i_ += multi_line ? 3 : 1;
        for (int extra = 0; multi_line && extra < 2 && i_ < text_.size() && text_[i_] == quote; ++extra) ++i_;
        break;
      }
      if (c == '\n' && !multi_line) break;
      if (c == '\\' && quote == '"') {
        // toml++ 3.3.0 tests the first character after a multi-line string's backslash and the
        // blanks and line ends after it with the same defective function: it must be ASCII.
        std::size_t next = i_ + 1;
        while (multi_line && next < text_.size() &&
               (text_[next] == ' ' || text_[next] == '\t' || text_[next] == '\r' || text_[next] == '\n'))
          ++next;
        if (multi_line && next < text_.size() && static_cast<unsigned char>(text_[next]) >= 0x80) {
          i_ = next;
          fail("a non-ASCII character right after a backslash in a multi-line string");
        }
        if (i_ + 1 < text_.size() && static_cast<unsigned char>(text_[i_ + 1]) < 0x80)
          ++i_;  // an escaped character (\" does not close the string)
      }
      inside_byte();
    }
    last_ = quote;
    if (in_key_ && i_ - start > static_cast<std::size_t>(max_key_bytes) + 2) {
      i_ = start;
      fail("a key longer than " + std::to_string(max_key_bytes) + " bytes");
    }
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t begin_ = 0;  // the first byte past a byte-order mark
  std::size_t i_ = 0;
  std::vector<char> open_;  // the brackets open now, innermost last
  bool in_key_ = true;      // a key may come next (the start of a line, after '{' or ',' in an inline table)
  int run_dots_ = 0;
  int part_bytes_ = 0;
  bool in_bare_value_ = false;  // inside a value that is not a string, array or inline table
  char last_ = '\n';            // the last character outside strings and comments that is not a blank
};

}  // namespace

void check_toml_text(std::string_view text, const std::string& file) { TomlGuard(text, file).run(); }

toml::table read_toml_file(const std::filesystem::path& file, std::string_view what, std::int64_t max_bytes) {
  const std::string text = read_input_file(file, what, max_bytes);
  const std::string name = printable(file.string(), 4096);
  check_toml_text(text, name);
  try {
    return toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(name + ":" + std::to_string(e.source().begin.line) + ":" +
                     std::to_string(e.source().begin.column) + ": not valid TOML: " + printable(e.description()));
  }
}

}  // namespace attnlab
