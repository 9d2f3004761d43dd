// libFuzzer target: any bytes as a results folder's ceilings.toml. Either a ceiling with a
// positive TFLOP/s and printable one-line text, or InputError of one printable line.
#include <cmath>
#include <cstdlib>

#include "core/gemm_ceiling.hpp"
#include "core/input_error.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto path = fuzz::write_input(data, size, ceilings_file_name);
  try {
    const GemmCeiling c = read_gemm_ceiling(path);
    if (!(std::isfinite(c.tflops) && c.tflops > 0)) std::abort();
    for (const std::string& text : {c.what, c.gpu, c.date, c.source})
      if (text.empty() || printable(text, text.size()) != text) std::abort();
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.empty() || printable(message, message.size()) != message) std::abort();
  }
  return 0;
}
