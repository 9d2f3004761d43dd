#include "analysis/ceilings.hpp"

#include <algorithm>

#include "core/io/input_error.hpp"
#include "core/io/input_limits.hpp"
#include "core/io/toml_guard.hpp"

namespace attnlab {

namespace {

// One table: its number under `key` (from min_ceiling_rate to `largest`) and where it was measured.
double read_ceiling(const toml::table& file, const std::string& name, const char* table_name, const char* key,
                    double largest, const char* unit, CeilingOrigin& origin) {
  const auto fail = [&](const std::string& field, const std::string& expected) {
    throw InputError(name + ": " + table_name + "." + field + ": expected " + expected);
  };
  const toml::table* table = file[table_name].as_table();
  if (!table) throw InputError(name + ": " + table_name + ": expected a [" + table_name + "] table");
  const auto value = (*table)[key].value<double>();
  if (!value || !(*value >= min_ceiling_rate) || *value > largest)
    fail(key, std::string("a number of ") + unit + " from 0.001 to " + std::to_string(int(largest)));
  const auto text = [&](const char* field) {
    const auto v = (*table)[field].value<std::string>();
    // Printed as read (attnlab step, the GUI): one line of printable text.
    if (!v || v->empty() || v->size() > 1000 || printable(*v, 1000) != *v)
      fail(field, "one line of printable text, at most 1000 bytes");
    return *v;
  };
  origin = {text("what"), text("gpu"), text("date"), text("source")};
  return *value;
}

}  // namespace

double Ceilings::roof_tflops(double flops_per_byte) const { return std::min(tflops, tbps * flops_per_byte); }

Ceilings read_ceilings(const std::filesystem::path& file) {
  const toml::table table = read_toml_file(file, "ceilings file", max_ceilings_file_bytes);
  const std::string name = printable(file.string(), 4096);
  Ceilings c;
  c.tflops = read_ceiling(table, name, "gemm_bf16", "tflops", 1e6, "TFLOP/s", c.gemm);
  c.tbps = read_ceiling(table, name, "copy", "tbps", 1e3, "TB/s", c.copy);
  return c;
}

}  // namespace attnlab
