#include "core/length_source.hpp"

#include <libfccp/csv.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string_view>

#include "core/input_error.hpp"

namespace attnlab {

namespace {

std::string file_label(const std::filesystem::path& file) { return file.empty() ? "scenario" : file.string(); }

[[noreturn]] void fail(const std::filesystem::path& file, std::string_view key, std::string_view message) {
  throw InputError(file_label(file) + ": documents." + std::string(key) + ": " + std::string(message));
}

void require_positive(const std::filesystem::path& file, std::string_view key, std::int64_t value) {
  if (value <= 0) fail(file, key, "expected a positive integer, got " + std::to_string(value));
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

void check(const std::filesystem::path& file, const UniformLengths& u) {
  require_positive(file, "count", u.count);
  require_positive(file, "length", u.length);
}

void check(const std::filesystem::path& file, const ListLengths& l) {
  if (l.lengths.empty()) fail(file, "lengths", "expected a non-empty array of positive integers, got []");
  for (std::size_t i = 0; i < l.lengths.size(); ++i)
    require_positive(file, "lengths[" + std::to_string(i) + "]", l.lengths[i]);
}

void check(const std::filesystem::path& file, const LogNormalLengths& p) {
  if (!(p.median > 0) || !std::isfinite(p.median))
    fail(file, "median", "expected a positive number, got " + std::to_string(p.median));
  if (!(p.sigma >= 0) || !std::isfinite(p.sigma))
    fail(file, "sigma", "expected a number >= 0, got " + std::to_string(p.sigma));
  require_positive(file, "min", p.min);
  if (p.max < p.min)
    fail(file, "max", "expected an integer >= min (" + std::to_string(p.min) + "), got " + std::to_string(p.max));
  if (p.token_budget < p.min || p.token_budget > INT_MAX)
    fail(file, "token_budget",
         "expected at least min (" + std::to_string(p.min) + ") tokens so that one document fits, and at most " +
             std::to_string(INT_MAX) + ", got " + std::to_string(p.token_budget));
  if (p.seed < 0) fail(file, "seed", "expected a non-negative integer, got " + std::to_string(p.seed));
}

std::vector<int> read_csv_lengths(const std::filesystem::path& scenario_file, const CsvLengths& c) {
  if (c.path.empty()) fail(scenario_file, "path", "expected the path of a CSV file with a `length` column, got \"\"");
  const std::filesystem::path csv = c.path.is_absolute() ? c.path : scenario_file.parent_path() / c.path;
  std::vector<int> lengths;
  try {
    io::CSVReader<1, io::trim_chars<' ', '\t'>, io::no_quote_escape<','>, io::throw_on_overflow,
                  io::single_line_comment<'#'>>
        in(csv.string());
    in.read_header(io::ignore_extra_column, "length");
    long long length = 0;
    while (in.read_row(length)) {
      if (length <= 0 || length > INT_MAX)
        fail(scenario_file, "path",
             csv.string() + " line " + std::to_string(in.get_file_line()) +
                 ": expected a positive integer length, got " + std::to_string(length));
      lengths.push_back(static_cast<int>(length));
    }
  } catch (const io::error::base& e) {
    fail(scenario_file, "path", "cannot read the lengths CSV: " + std::string(e.what()));
  }
  if (lengths.empty()) fail(scenario_file, "path", csv.string() + ": expected at least one length, got none");
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
