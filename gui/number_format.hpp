#pragma once
// Short human forms of numbers for labels, in the units the CLI prints too: bytes in
// powers of 1024 (KiB, MiB, GiB), times in µs, rates in TFLOP/s and TB/s (powers of 1000).
#include <cstdint>
#include <string>

namespace attnlab::gui {

std::string format_count(double n);      // 950, 12.3K, 4.19M, 1.07G, 2.1T
std::string format_bytes(double bytes);  // 512 B, 3.10 KiB, 4.20 MiB, 1.38 GiB
std::string format_ratio(double r);      // 8.00x, 1.00x, 0.13x, 0.0042x, 1022x
std::string format_us(double us);        // 37.5 µs, 2,234 µs, 756,921 µs
// "1 row", "3 rows": n and the noun, plural where n is not 1.
std::string count_of(long long n, const char* noun, const char* plural = nullptr);

}  // namespace attnlab::gui
