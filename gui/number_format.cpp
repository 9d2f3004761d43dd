#include "gui/number_format.hpp"

#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {
// Compared after rounding, so 999,700 shows as "1.00M", not "1000K".
std::string scaled(double value, double step, const char* const* units, int unit_count, const char* separator) {
  int unit = 0;
  while (std::round(std::fabs(value)) >= 1000 && unit + 1 < unit_count) {
    value /= step;
    ++unit;
  }
  char text[48];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%.0f%s%s", value, separator, units[0]);
  else
    std::snprintf(text, sizeof text, std::fabs(value) < 10 ? "%.2f%s%s" : std::fabs(value) < 100 ? "%.1f%s%s" : "%.0f%s%s",
                  value, separator, units[unit]);
  return text;
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
}  // namespace

std::string format_count(double n) {
  static const char* const units[] = {"", "K", "M", "G", "T", "P"};
  return scaled(n, 1000, units, 6, "");
}

std::string format_bytes(double bytes) {
  // Stepping by 1024 from 1000 up keeps three digits: 1000 B shows as "0.98 KiB".
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  return scaled(bytes, 1024, units, 6, " ");
}

std::string format_ratio(double r) {
  char text[32];
  // Small ratios keep two significant digits: 0.0042x, not 0.00x.
  std::snprintf(text, sizeof text, r >= 100 ? "%.0fx" : r >= 0.1 || r == 0 ? "%.2fx" : "%.2gx", r);
  return text;
}

std::string format_us(double us) {
  if (std::fabs(us) >= 100) return with_thousands(std::llround(us)) + " \xC2\xB5s";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f \xC2\xB5s", us);
  return text;
}

std::string count_of(long long n, const char* noun, const char* plural) {
  return with_thousands(n) + " " + (n == 1 ? std::string(noun) : plural ? std::string(plural) : std::string(noun) + "s");
}

}  // namespace attnlab::gui
