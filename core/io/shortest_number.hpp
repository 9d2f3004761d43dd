#pragma once
// A number as the shortest text that reads back as the same value (std::to_chars): the one
// form attnlab writes numbers in for other programs (results CSVs, saved scenarios, JSON).
#include <array>
#include <charconv>
#include <string>

namespace attnlab {

template <class Number>
std::string shortest_text(Number value) {
  std::array<char, 64> buffer;
  const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
  return std::string(buffer.data(), end);
}

}  // namespace attnlab
