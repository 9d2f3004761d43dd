#pragma once
// The one set of number forms attnlab prints, in the CLI's tables and the GUI's labels
// alike: counts with SI prefixes (10^3 steps), bytes in powers of 1024 (KiB, MiB, GiB),
// times in µs, rates in TFLOP/s and TB/s (powers of 1000), ratios as "7.22x". Any double prints
// in a few columns: past 10^15 µs or 10^6 % or x with an exponent, NaN and infinity as "not finite".
#include <string>

namespace attnlab {

std::string format_count(double n);           // 950, 12.3 k, 4.19 M, 1.07 G, 2.10 T
std::string format_bytes(double bytes);       // 512 B, 3.10 KiB, 4.20 MiB, 1.38 GiB
std::string format_ratio(double r);           // 8.00x, 1.00x, 0.13x, 0.0042x, 1022x
std::string format_us(double us);             // 37.5 µs, 2,234 µs, 756,921 µs
std::string format_percent(double fraction);  // 0.0356 -> "3.56%"
std::string format_integer(long long n);      // 32,768
// An axis tick: whole numbers as format_integer (32,768; never 3.277e+04), others to 3 digits (0.5, 0.001).
std::string format_axis(double v);
// "1 row", "3 rows": n and the noun, plural where n is not 1.
std::string count_of(long long n, const char* noun, const char* plural = nullptr);

}  // namespace attnlab
