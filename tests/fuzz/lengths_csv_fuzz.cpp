// libFuzzer target: any bytes as the lengths CSV of a scenario's `csv` source. Either
// lengths within the limits or InputError of one printable line.
#include <cstdlib>

#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"
#include "core/scenario/length_source.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  fuzz::write_input(data, size, "lengths.csv");
  try {
    const std::vector<int> lengths = resolve_lengths(CsvLengths{"lengths.csv"}, fuzz::fuzz_folder() / "fuzz.toml");
    if (lengths.empty() || static_cast<std::int64_t>(lengths.size()) > max_documents) std::abort();
    for (const int length : lengths)
      if (length <= 0 || length > max_row_length) std::abort();
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.empty() || printable(message, message.size()) != message) std::abort();
  }
  return 0;
}
