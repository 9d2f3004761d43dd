#include "gui/number_format.hpp"

#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {
// Compared after rounding, so 999,700 shows as "1.00M", not "1000K".
std::string scaled(double value, const char* const* units, int unit_count, const char* separator) {
  int unit = 0;
  while (std::round(std::fabs(value)) >= 1000 && unit + 1 < unit_count) {
    value /= 1000;
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
}  // namespace

std::string format_count(double n) {
  static const char* const units[] = {"", "K", "M", "G", "T", "P"};
  return scaled(n, units, 6, "");
}

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  return scaled(bytes, units, 6, " ");
}

std::string format_ratio(double r) {
  char text[32];
  std::snprintf(text, sizeof text, r >= 100 ? "%.0fx" : "%.2fx", r);
  return text;
}

}  // namespace attnlab::gui
