#include "core/io/input_error.hpp"

#include <cstdio>

namespace attnlab {

std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  const std::size_t n = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 0;
  if (n == 0 || lead > 0xf4 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  // Overlong three- and four-byte forms, surrogates, and code points past U+10FFFF.
  if ((lead == 0xe0 && byte(i + 1) < 0xa0) || (lead == 0xed && byte(i + 1) >= 0xa0) ||
      (lead == 0xf0 && byte(i + 1) < 0x90) || (lead == 0xf4 && byte(i + 1) >= 0x90))
    return 0;
  return n;
}

namespace {

// U+0080..U+009F, written C2 80..C2 9F: control codes some terminals obey (0x9B starts a sequence).
bool is_c1_control(std::string_view text, std::size_t i) {
  return static_cast<unsigned char>(text[i]) == 0xc2 && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) < 0xa0;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (out.size() >= max_bytes) return out + "...";
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\t') {  // a tab keeps the line one line
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 && !is_c1_control(text, i) ? utf8_length(text, i) : 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      char escaped[8];
      if (c == '\n')
        std::snprintf(escaped, sizeof escaped, "\\n");
      else if (c == '\r')
        std::snprintf(escaped, sizeof escaped, "\\r");
      else
        std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
      ++i;
    }
  }
  return out;
}

}  // namespace attnlab
