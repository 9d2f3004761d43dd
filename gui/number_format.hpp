#pragma once
// Short human forms of big numbers for labels: 12.3M, 4.2 GB, 181 TFLOP/s.
#include <cstdint>
#include <string>

namespace attnlab::gui {

std::string format_count(double n);    // 950, 12.3K, 4.19M, 1.07G, 2.1T
std::string format_bytes(double bytes);  // 512 B, 3.1 KB, 4.2 MB, 1.3 GB (powers of 1000)
std::string format_ratio(double r);    // 8.00x, 1.00x, 0.13x

}  // namespace attnlab::gui
