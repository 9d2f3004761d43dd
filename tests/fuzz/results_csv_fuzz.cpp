// libFuzzer target: any bytes as a results CSV. Either rows that write and read back
// equal, or InputError of one printable line.
#include <cmath>
#include <cstdlib>

#include "core/io/input_error.hpp"
#include "core/results/results_csv.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto path = fuzz::write_input(data, size, "results.csv");
  std::vector<ResultRow> rows;
  try {
    rows = read_results_csv(path);
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.empty() || printable(message, message.size()) != message) std::abort();
    return 0;
  }
  for (const ResultRow& r : rows)
    for (const auto& time : {r.median_us, r.min_us, r.max_us})
      if (time && !(std::isfinite(*time) && *time >= 0)) std::abort();
  const auto copy = fuzz::fuzz_folder() / "copy.csv";
  try {
    write_results_csv(copy, rows);
  } catch (const InputError&) {
    return 0;  // a cell the writer cannot hold (a line break inside quotes): refused, never written wrong
  }
  if (read_results_csv(copy) != rows) std::abort();
  return 0;
}
