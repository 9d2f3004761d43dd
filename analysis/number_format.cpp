#include "analysis/number_format.hpp"

#include <cmath>
#include <cstdio>

namespace attnlab {

namespace {

// `value` divided by `step` until it shows three digits below 1000, with the unit's prefix.
// Compared after rounding, so 999,700 shows as "1.00 M", not "1000 k"; stepping by 1024
// from 1000 up keeps three digits too: 1000 B shows as "0.98 KiB".
std::string scaled(double value, double step, const char* const* prefixes, int prefix_count, const char* unit) {
  if (!std::isfinite(value)) return "not finite";
  int i = 0;
  while (std::round(std::fabs(value)) >= 1000 && i + 1 < prefix_count) {
    value /= step;
    ++i;
  }
  const char* format = std::fabs(value) >= 1e6             ? "%.3g %s%s"
                       : i == 0 || std::fabs(value) >= 100 ? "%.0f %s%s"
                       : std::fabs(value) >= 10            ? "%.1f %s%s"
                                                           : "%.2f %s%s";
  char text[48];
  std::snprintf(text, sizeof text, format, value, prefixes[i], unit);
  std::string out = text;
  while (!out.empty() && out.back() == ' ') out.pop_back();  // a bare count has no unit after its space
  return out;
}

// 1234567 -> "1,234,567".
std::string with_thousands(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

// Past these magnitudes a figure prints in three significant digits with its exponent
// (1.70e+308 µs), never as a digit string wider than a column, nor through llround's overflow.
constexpr double widest_fixed = 1e15;
constexpr const char* not_finite = "not finite";  // as scaled() prints it

}  // namespace

std::string format_count(double n) {
  static const char* const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  return scaled(n, 1000, prefixes, 7, "");
}

std::string format_bytes(double bytes) {
  static const char* const prefixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  return scaled(bytes, 1024, prefixes, 6, "B");
}

std::string format_ratio(double r) {
  if (!std::isfinite(r)) return not_finite;
  char text[32];
  // Small ratios keep two significant digits: 0.0042x, not 0.00x.
  std::snprintf(text, sizeof text,
                std::fabs(r) >= 1e6  ? "%.3gx"
                : r >= 100           ? "%.0fx"
                : r >= 0.1 || r <= 0 ? "%.2fx"
                                     : "%.2gx",
                r);
  return text;
}

std::string format_us(double us) {
  if (!std::isfinite(us)) return not_finite;
  char text[32];
  if (std::fabs(us) >= widest_fixed) {
    std::snprintf(text, sizeof text, "%.3g \xC2\xB5s", us);
    return text;
  }
  if (std::fabs(us) >= 100) return with_thousands(std::llround(us)) + " \xC2\xB5s";
  std::snprintf(text, sizeof text, "%.1f \xC2\xB5s", us);
  return text;
}

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction)) return not_finite;
  char text[32];
  // A difference that rounds to zero prints as 0.00%, not -0.00%.
  const double percent = std::fabs(fraction) < 0.00005 ? 0.0 : 100.0 * fraction;
  std::snprintf(text, sizeof text, std::fabs(percent) >= 1e6 ? "%.3g%%" : "%.2f%%", percent);
  return text;
}

std::string format_integer(long long n) { return with_thousands(n); }

std::string format_axis(double v) {
  if (std::fabs(v) >= 1 && std::fabs(v) < widest_fixed && v == std::round(v)) return with_thousands(std::llround(v));
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string count_of(long long n, const char* noun, const char* plural) {
  return with_thousands(n) + " " +
         (n == 1   ? std::string(noun)
          : plural ? std::string(plural)
                   : std::string(noun) + "s");
}

}  // namespace attnlab
