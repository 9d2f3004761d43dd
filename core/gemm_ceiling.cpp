#include "core/gemm_ceiling.hpp"

#include <toml++/toml.h>

#include "core/input_error.hpp"

namespace attnlab {

GemmCeiling read_gemm_ceiling(const std::filesystem::path& file) {
  toml::table table;
  try {
    table = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(file.string() + ":" + std::to_string(e.source().begin.line) + ": not valid TOML: " +
                     std::string(e.description()));
  }
  const auto fail = [&](const std::string& key, const std::string& expected) {
    throw InputError(file.string() + ": gemm_bf16." + key + ": expected " + expected);
  };
  const toml::table* gemm = table["gemm_bf16"].as_table();
  if (!gemm) throw InputError(file.string() + ": gemm_bf16: expected a [gemm_bf16] table");
  GemmCeiling c;
  const auto tflops = (*gemm)["tflops"].value<double>();
  if (!tflops || !(*tflops > 0) || *tflops > 1e6) fail("tflops", "a number of TFLOP/s above 0");
  c.tflops = *tflops;
  const auto text = [&](const char* key) {
    const auto v = (*gemm)[key].value<std::string>();
    if (!v || v->empty() || v->find('\n') != std::string::npos) fail(key, "one line of text");
    return *v;
  };
  c.what = text("what");
  c.gpu = text("gpu");
  c.date = text("date");
  c.source = text("source");
  return c;
}

}  // namespace attnlab
