// libFuzzer target: any bytes as a results folder's ceilings.toml. Either ceilings with
// positive rates and printable one-line text, or InputError of one printable line.
#include <cmath>
#include <cstdlib>

#include "analysis/ceilings.hpp"
#include "core/io/input_error.hpp"
#include "tests/fuzz/fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto path = fuzz::write_input(data, size, ceilings_file_name);
  try {
    const Ceilings c = read_ceilings(path);
    if (!(std::isfinite(c.tflops) && c.tflops > 0 && std::isfinite(c.tbps) && c.tbps > 0)) std::abort();
    for (const std::string& text :
         {c.gemm.what, c.gemm.gpu, c.gemm.date, c.gemm.source, c.copy.what, c.copy.gpu, c.copy.date, c.copy.source})
      if (text.empty() || printable(text, text.size()) != text) std::abort();
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.empty() || printable(message, message.size()) != message) std::abort();
  }
  return 0;
}
