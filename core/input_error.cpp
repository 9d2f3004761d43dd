#include "core/input_error.hpp"

#include <cstdint>
#include <cstdio>

namespace attnlab {

namespace {

// Length of the UTF-8 sequence at text[i] when it is well formed and not a C1 control
// (U+0080..U+009F, which some terminals obey), else 0.
std::size_t printable_utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  const std::size_t n = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
  if (n == 0 || lead > 0xf4 || i + n > text.size()) return 0;
  std::uint32_t code = lead & (0x7f >> n);
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  static constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[n] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || code <= 0x9f) return 0;
  return n;
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
    } else if (const std::size_t n = c >= 0x80 ? printable_utf8_length(text, i) : 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      char escaped[8];
      if (c == '\n') std::snprintf(escaped, sizeof escaped, "\\n");
      else if (c == '\r') std::snprintf(escaped, sizeof escaped, "\\r");
      else std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
      ++i;
    }
  }
  return out;
}

}  // namespace attnlab
