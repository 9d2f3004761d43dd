#pragma once
// The one JSON writer of attnlab's outputs: strings escaped, arrays of anything.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::cli {

// A JSON string literal: quotes, backslashes and control characters escaped.
inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// [format(item), ...]: `format` turns one item into its JSON text.
template <class T, class Format>
std::string json_array(const std::vector<T>& items, Format format) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + format(items[i]);
  return out + "]";
}

}  // namespace attnlab::cli
