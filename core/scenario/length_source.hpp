#pragma once
// Where a scenario's document lengths come from. The source keeps its
// parameters (not just the lengths it yields) so the GUI can edit a
// distribution and re-resolve, and save_scenario can write it back.
// Schema and the generator's definition: scenarios/README.md.
#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace attnlab {

// count documents of the same length.
struct UniformLengths {
  int count = 64;
  int length = 512;
  bool operator==(const UniformLengths&) const = default;
};

// The lengths written out one by one.
struct ListLengths {
  std::vector<int> lengths;
  bool operator==(const ListLengths&) const = default;
};

// Seeded log-normal lengths, clamped to [min, max], drawn until token_budget
// tokens are used (the last document is cut to fit; a remainder below min is dropped).
struct LogNormalLengths {
  double median = 512;
  double sigma = 1.0;
  int min = 16;
  int max = 4096;
  std::int64_t token_budget = 32768;
  std::int64_t seed = 1;
  bool operator==(const LogNormalLengths&) const = default;
};

// A CSV file with a `length` column; path as written in the scenario, relative to its file.
struct CsvLengths {
  std::filesystem::path path;
  bool operator==(const CsvLengths&) const = default;
};

using LengthSource = std::variant<UniformLengths, ListLengths, LogNormalLengths, CsvLengths>;

// "uniform", "list", "lognormal" or "csv": the value of documents.source.
const char* length_source_name(const LengthSource& source);

// The lengths a source yields. `scenario_file` anchors a CSV path and names the
// file in error messages. Throws InputError ("FILE: documents.KEY: expected ..., got ...").
std::vector<int> resolve_lengths(const LengthSource& source, const std::filesystem::path& scenario_file);

// The generator behind LogNormalLengths (splitmix64 + Box-Muller, written out so
// every machine draws the same lengths); assumes parameters already checked.
std::vector<int> lognormal_lengths(const LogNormalLengths& p);

}  // namespace attnlab
