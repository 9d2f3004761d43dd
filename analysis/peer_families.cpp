#include "analysis/peer_families.hpp"

#include <algorithm>
#include <sstream>

#include "core/io/input_error.hpp"
#include "core/io/input_file.hpp"

namespace attnlab {

namespace {

constexpr std::int64_t max_families_file_bytes = std::int64_t{1} << 20;
constexpr const char* families_header = "family,short_name,implementation,source";

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

std::filesystem::path peer_families_file() {
  return std::filesystem::path(ATTNLAB_SOURCE_DIR) / "results" / "peer_families.csv";
}

std::vector<SourceFamily> read_peer_families(const std::filesystem::path& file) {
  const std::string name = printable(file.string(), 4096);
  std::stringstream text(read_input_file(file, "peer families file", max_families_file_bytes));
  std::vector<SourceFamily> families;
  std::string line;
  int line_number = 0;
  while (std::getline(text, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto fail = [&](const std::string& what) {
      throw InputError(name + ":" + std::to_string(line_number) + ": " + what);
    };
    if (line_number == 1) {
      if (line != families_header) fail(std::string("expected the header ") + families_header);
      continue;
    }
    if (line.empty()) continue;
    const std::vector<std::string> cells = split_cells(line);
    if (cells.size() != 4)
      fail("expected 4 cells (" + std::string(families_header) + "), got " + std::to_string(cells.size()));
    const std::string &family = cells[0], &short_name = cells[1], &source = cells[3];
    if (family.empty()) fail("family: expected a name, got an empty cell");
    if (source.empty()) fail("source: expected a name, got an empty cell");
    const std::optional<Implementation> impl = parse_implementation(cells[2]);
    if (!impl) fail("implementation: expected naive, padded, packed or varlen, got \"" + printable(cells[2]) + "\"");
    auto f = std::find_if(families.begin(), families.end(), [&](const SourceFamily& x) { return x.name == family; });
    if (f == families.end()) f = families.insert(families.end(), SourceFamily{family, short_name, {}});
    if (f->short_name != short_name)
      fail("short_name: family " + family + " is \"" + f->short_name + "\" above, got \"" + printable(short_name) +
           "\"");
    for (const SourceFamily& other : families)
      if (&other != &*f && std::any_of(other.sources.begin(), other.sources.end(),
                                       [&](const auto& s) { return std::find(s.begin(), s.end(), source) != s.end(); }))
        fail("source: " + source + " is listed under family " + other.name + " above");
    f->sources[static_cast<int>(*impl)].push_back(source);
  }
  if (families.empty()) throw InputError(name + ": no families; expected the header " + families_header + " and rows");
  return families;
}

const std::vector<SourceFamily>& source_families() {
  static const std::vector<SourceFamily> families = read_peer_families(peer_families_file());
  return families;
}

const SourceFamily* family_of(std::string_view source) {
  for (const SourceFamily& f : source_families())
    for (const auto& sources : f.sources)
      if (std::find(sources.begin(), sources.end(), source) != sources.end()) return &f;
  return nullptr;
}

}  // namespace attnlab
