#include "core/gemm_ceiling.hpp"

#include "core/input_error.hpp"
#include "core/input_limits.hpp"
#include "core/toml_guard.hpp"

namespace attnlab {

GemmCeiling read_gemm_ceiling(const std::filesystem::path& file) {
  const toml::table table = read_toml_file(file, "ceilings file", max_ceilings_file_bytes);
  const std::string name = printable(file.string(), 4096);
  const auto fail = [&](const std::string& key, const std::string& expected) {
    throw InputError(name + ": gemm_bf16." + key + ": expected " + expected);
  };
  const toml::table* gemm = table["gemm_bf16"].as_table();
  if (!gemm) throw InputError(name + ": gemm_bf16: expected a [gemm_bf16] table");
  GemmCeiling c;
  const auto tflops = (*gemm)["tflops"].value<double>();
  if (!tflops || !(*tflops > 0) || *tflops > 1e6) fail("tflops", "a number of TFLOP/s above 0");
  c.tflops = *tflops;
  const auto text = [&](const char* key) {
    const auto v = (*gemm)[key].value<std::string>();
    if (!v || v->empty() || v->size() > 1000 || printable(*v, 1000) != *v) fail(key, "one line of printable text, at most 1000 bytes");
    return *v;
  };
  c.what = text("what");
  c.gpu = text("gpu");
  c.date = text("date");
  c.source = text("source");
  return c;
}

}  // namespace attnlab
