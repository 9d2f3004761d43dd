#include "core/layout/implementation.hpp"

#include <algorithm>
#include <string>

#include "core/io/input_error.hpp"

namespace attnlab {

std::vector<Implementation> parse_implementation_list(std::string_view text, std::string_view flag) {
  const std::string expected = "expected a comma-separated list of naive, padded, packed, varlen";
  std::vector<Implementation> chosen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string_view name = text.substr(start, end - start);
    start = end + 1;
    if (name.empty())
      throw InputError(std::string(flag) + ": " + expected + ", got an empty name in \"" + printable(text) + "\"");
    const auto impl = parse_implementation(name);
    if (!impl) throw InputError(std::string(flag) + ": " + expected + ", got \"" + std::string(name) + "\"");
    if (std::find(chosen.begin(), chosen.end(), *impl) == chosen.end()) chosen.push_back(*impl);
  }
  if (chosen.empty()) throw InputError(std::string(flag) + ": " + expected + ", got \"" + std::string(text) + "\"");
  return chosen;
}

}  // namespace attnlab
