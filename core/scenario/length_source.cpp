#include "core/scenario/length_source.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "core/io/csv_text.hpp"
#include "core/io/input_error.hpp"
#include "core/io/input_file.hpp"
#include "core/io/input_limits.hpp"

namespace attnlab {

namespace {

std::string file_label(const std::filesystem::path& file) {
  return file.empty() ? "scenario" : printable(file.string(), 4096);
}

[[noreturn]] void fail(const std::filesystem::path& file, std::string_view key, std::string_view message) {
  throw InputError(file_label(file) + ": documents." + std::string(key) + ": " + std::string(message));
}

void require_in_range(const std::filesystem::path& file, std::string_view key, std::int64_t value,
                      std::int64_t largest) {
  if (value <= 0 || value > largest)
    fail(file, key,
         "expected a positive integer of at most " + std::to_string(largest) + ", got " + std::to_string(value));
}

[[noreturn]] void fail_too_many_tokens(const std::filesystem::path& file, std::string_view key,
                                       const std::string& got) {
  fail(file, key, "expected at most " + std::to_string(max_tokens) + " tokens in all documents, got " + got);
}

// splitmix64 (Steele, Lea, Flood 2014): a tiny PRNG whose output is fixed by its seed.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1]: the top 53 bits, shifted by one so log() never sees 0.
  double unit() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
};

// One standard normal draw by Box-Muller (the cosine half; the sine half is not kept).
double standard_normal(SplitMix64& rng) {
  const double u1 = rng.unit(), u2 = rng.unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// Checked before the lengths are allocated. count and length are ints, so their product fits int64.
void check(const std::filesystem::path& file, const UniformLengths& u) {
  require_in_range(file, "count", u.count, max_documents);
  require_in_range(file, "length", u.length, max_row_length);
  if (std::int64_t{u.count} * u.length > max_tokens)
    fail_too_many_tokens(file, "count", std::to_string(u.count) + " x " + std::to_string(u.length));
}

void check(const std::filesystem::path& file, const ListLengths& l) {
  if (l.lengths.empty()) fail(file, "lengths", "expected a non-empty array of positive integers, got []");
  if (static_cast<std::int64_t>(l.lengths.size()) > max_documents)
    fail(file, "lengths",
         "expected at most " + std::to_string(max_documents) + " documents, got " + std::to_string(l.lengths.size()));
  std::int64_t total = 0;  // at most 2^24 lengths below 2^31: no overflow
  for (std::size_t i = 0; i < l.lengths.size(); ++i) {
    require_in_range(file, "lengths[" + std::to_string(i) + "]", l.lengths[i], max_row_length);
    total += l.lengths[i];
  }
  if (total > max_tokens) fail_too_many_tokens(file, "lengths", std::to_string(total));
}

void check(const std::filesystem::path& file, const LogNormalLengths& p) {
  if (!(p.median > 0) || !std::isfinite(p.median))
    fail(file, "median", "expected a positive number, got " + std::to_string(p.median));
  if (!(p.sigma >= 0) || !std::isfinite(p.sigma))
    fail(file, "sigma", "expected a number >= 0, got " + std::to_string(p.sigma));
  require_in_range(file, "min", p.min, max_row_length);
  if (p.max < p.min || p.max > max_row_length)
    fail(file, "max",
         "expected an integer >= min (" + std::to_string(p.min) + ") and at most " + std::to_string(max_row_length) +
             ", got " + std::to_string(p.max));
  if (p.token_budget < p.min || p.token_budget > max_tokens)
    fail(file, "token_budget",
         "expected at least min (" + std::to_string(p.min) + ") tokens so that one document fits, and at most " +
             std::to_string(max_tokens) + ", got " + std::to_string(p.token_budget));
  if (p.seed < 0) fail(file, "seed", "expected a non-negative integer, got " + std::to_string(p.seed));
}

std::vector<int> read_csv_lengths(const std::filesystem::path& scenario_file, const CsvLengths& c) {
  if (c.path.empty()) fail(scenario_file, "path", "expected the path of a CSV file with a `length` column, got \"\"");
  const std::filesystem::path csv = c.path.is_absolute() ? c.path : scenario_file.parent_path() / c.path;
  std::string text;
  try {
    text = read_input_file(csv, "lengths CSV", max_lengths_csv_bytes);
  } catch (const InputError& e) {
    fail(scenario_file, "path", e.what());
  }
  const std::string name = printable(csv.string(), 4096);
  std::vector<int> lengths;
  std::int64_t total = 0;
  CsvRecords records(text, CsvDialect{" \t", false, '#'});
  try {
    std::vector<std::string> cells;
    if (!records.next(cells)) fail(scenario_file, "path", name + ": cannot read the lengths CSV: no header line");
    const int column = CsvHeader(cells, {"length"}, records.line()).column_of[0];
    if (column < 0) fail(scenario_file, "path", name + ": cannot read the lengths CSV: no column named length");
    while (records.next(cells)) {
      const auto bad_line = [&](const std::string& what) {
        fail(scenario_file, "path", name + ":" + std::to_string(records.line()) + ": " + what);
      };
      const std::string_view cell_text = column < static_cast<int>(cells.size()) ? cells[column] : std::string_view();
      if (cell_text.empty())
        bad_line(records.line_text().find_first_not_of(" \t") == std::string_view::npos
                     ? "a blank line; expected a positive integer length"
                     : "length: an empty cell; expected a positive integer length");
      std::int64_t length = 0;
      const auto [end, error] = std::from_chars(cell_text.data(), cell_text.data() + cell_text.size(), length);
      if (error != std::errc() || end != cell_text.data() + cell_text.size() || length <= 0 || length > max_row_length)
        bad_line("length: expected a positive integer of at most " + std::to_string(max_row_length) + ", got \"" +
                 printable(cell_text) + "\"");
      if (static_cast<std::int64_t>(lengths.size()) >= max_documents || (total += length) > max_tokens)
        bad_line("expected at most " + std::to_string(max_documents) + " documents and " + std::to_string(max_tokens) +
                 " tokens in all");
      lengths.push_back(static_cast<int>(length));
    }
  } catch (const CsvSyntaxError& e) {
    fail(scenario_file, "path", name + ":" + std::to_string(e.line) + ": cannot read the lengths CSV: " + e.what());
  }
  if (lengths.empty()) fail(scenario_file, "path", name + ": expected at least one length, got none");
  return lengths;
}

}  // namespace

const char* length_source_name(const LengthSource& source) {
  static constexpr const char* names[] = {"uniform", "list", "lognormal", "csv"};
  return names[source.index()];
}

std::vector<int> lognormal_lengths(const LogNormalLengths& p) {
  SplitMix64 rng{static_cast<std::uint64_t>(p.seed)};
  std::vector<int> lengths;
  std::int64_t remaining = p.token_budget;
  while (remaining >= p.min) {
    const double drawn = p.median * std::exp(p.sigma * standard_normal(rng));
    // Clamp before rounding so a huge draw cannot overflow the conversion.
    const auto length = static_cast<std::int64_t>(std::lround(std::clamp(drawn, double(p.min), double(p.max))));
    lengths.push_back(static_cast<int>(std::min(length, remaining)));
    remaining -= lengths.back();
  }
  return lengths;
}

std::vector<int> resolve_lengths(const LengthSource& source, const std::filesystem::path& scenario_file) {
  return std::visit(
      [&](const auto& s) -> std::vector<int> {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, CsvLengths>) {
          return read_csv_lengths(scenario_file, s);
        } else {
          check(scenario_file, s);
          if constexpr (std::is_same_v<S, UniformLengths>) return std::vector<int>(s.count, s.length);
          if constexpr (std::is_same_v<S, ListLengths>) return s.lengths;
          if constexpr (std::is_same_v<S, LogNormalLengths>) return lognormal_lengths(s);
        }
      },
      source);
}

}  // namespace attnlab
