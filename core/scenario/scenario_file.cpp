#include "core/scenario/scenario_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <sstream>

#include "core/io/atomic_file.hpp"
#include "core/io/input_error.hpp"
#include "core/io/input_file.hpp"
#include "core/io/input_limits.hpp"
#include "core/io/shortest_number.hpp"
#include "core/io/toml_guard.hpp"
#include "core/scenario/model_table.hpp"

namespace attnlab {

namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(ch));
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

// Shortest text that reads back as the same double, always with a '.' or an exponent so TOML sees a float.
std::string float_text(double x) {
  std::string s = shortest_text(x);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// What a node holds, for "got ..." in messages (a long string is cut).
std::string describe(const toml::node& n) {
  if (auto v = n.as_integer()) return std::to_string(v->get());
  if (auto v = n.as_floating_point()) return float_text(v->get());
  if (auto v = n.as_boolean()) return v->get() ? "true" : "false";
  if (auto v = n.as_string()) return printable(toml_string(v->get()));
  if (n.is_array()) return "an array";
  if (n.is_table()) return "a table";
  return "a date or time";
}

// Reads the keys of one TOML table, naming the file and the dotted key in every error.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string file, std::string prefix)
      : table_(table), file_(std::move(file)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    throw InputError(file_ + ": " + printable(prefix_ + std::string(key)) + ": " + message);
  }
  [[noreturn]] void fail_type(std::string_view key, std::string_view expected, const toml::node& got) const {
    fail(key, "expected " + std::string(expected) + ", got " + describe(got));
  }

  void only_keys(std::initializer_list<std::string_view> known) const {
    for (auto&& [key, value] : table_) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(key.str(), "unknown key; expected one of " + list);
    }
  }

  const toml::node* find(std::string_view key) const { return table_.get(key); }

  const toml::node& require(std::string_view key, std::string_view expected) const {
    const toml::node* n = find(key);
    if (!n) fail(key, "missing; expected " + std::string(expected));
    return *n;
  }

  std::int64_t integer_of(std::string_view key, std::string_view expected, const toml::node& n) const {
    if (!n.is_integer()) fail_type(key, expected, n);
    return n.as_integer()->get();
  }
  int int_of(std::string_view key, std::string_view expected, const toml::node& n) const {
    const std::int64_t v = integer_of(key, expected, n);
    if (v < INT_MIN || v > INT_MAX) fail_type(key, expected, n);
    return static_cast<int>(v);
  }

  std::int64_t integer(std::string_view key, std::string_view expected) const {
    return integer_of(key, expected, require(key, expected));
  }
  int int32(std::string_view key, std::string_view expected) const {
    return int_of(key, expected, require(key, expected));
  }
  double number(std::string_view key, std::string_view expected) const {
    const toml::node& n = require(key, expected);
    if (!n.is_number()) fail_type(key, expected, n);
    return *n.value<double>();
  }
  bool boolean(std::string_view key, std::string_view expected) const {
    const toml::node& n = require(key, expected);
    if (!n.is_boolean()) fail_type(key, expected, n);
    return n.as_boolean()->get();
  }
  std::string string(std::string_view key, std::string_view expected) const {
    const toml::node& n = require(key, expected);
    if (!n.is_string()) fail_type(key, expected, n);
    return n.as_string()->get();
  }
  // A string that must be one of the given words.
  std::string word(std::string_view key, std::string_view expected,
                   std::initializer_list<std::string_view> words) const {
    const toml::node& n = require(key, expected);
    if (!n.is_string() || std::find(words.begin(), words.end(), n.as_string()->get()) == words.end())
      fail_type(key, expected, n);
    return n.as_string()->get();
  }

 private:
  const toml::table& table_;
  std::string file_;
  std::string prefix_;
};

constexpr std::string_view positive_integer = "a positive integer";

LengthSource read_length_source(const TableReader& docs) {
  const std::string source =
      docs.word("source", R"("uniform", "list", "lognormal" or "csv")", {"uniform", "list", "lognormal", "csv"});
  if (source == "uniform") {
    docs.only_keys({"source", "count", "length"});
    return UniformLengths{docs.int32("count", positive_integer), docs.int32("length", positive_integer)};
  }
  if (source == "list") {
    docs.only_keys({"source", "lengths"});
    constexpr std::string_view expected = "an array of positive integers";
    const toml::node& n = docs.require("lengths", expected);
    if (!n.is_array()) docs.fail_type("lengths", expected, n);
    ListLengths list;
    for (std::size_t i = 0; i < n.as_array()->size(); ++i)
      list.lengths.push_back(
          docs.int_of("lengths[" + std::to_string(i) + "]", positive_integer, *n.as_array()->get(i)));
    return list;
  }
  if (source == "lognormal") {
    docs.only_keys({"source", "median", "sigma", "min", "max", "token_budget", "seed"});
    return LogNormalLengths{docs.number("median", "a positive number"),
                            docs.number("sigma", "a number >= 0"),
                            docs.int32("min", positive_integer),
                            docs.int32("max", "an integer >= min"),
                            docs.integer("token_budget", positive_integer),
                            docs.integer("seed", "a non-negative integer")};
  }
  docs.only_keys({"source", "path"});
  return CsvLengths{docs.string("path", "the path of a CSV file with a `length` column, relative to this file")};
}

// `window = N` (causal: N keys to the left of each query, FlashAttention's (N, 0)) or
// `window = [left, right]` (not causal). Scenario::resolve checks the values.
Window read_window(const TableReader& top, const toml::node& n, bool causal) {
  if (causal) return {top.int_of("window", "a positive integer (keys to the left; the scenario is causal)", n), 0};
  constexpr std::string_view expected = "[left, right]: two integers >= 0 (the scenario is not causal)";
  const toml::array* pair = n.as_array();
  if (!pair || pair->size() != 2) top.fail_type("window", expected, n);
  return {top.int_of("window", expected, *pair->get(0)), top.int_of("window", expected, *pair->get(1))};
}

Scenario read_scenario(const toml::table& table, const std::filesystem::path& file) {
  Scenario s;
  s.name = file.stem().string();
  s.source = file;
  // The name is printed and written into results CSVs as it is.
  if (printable(s.name, s.name.size()) != s.name)
    throw InputError(printable(file.string(), 4096) + ": the file name must be printable text (it names the scenario)");
  const TableReader top(table, file.string(), "");
  top.only_keys({"why", "heads", "kv_heads", "head_dim", "dtype", "causal", "window", "row_len", "packing", "pad_to",
                 "documents", "model"});
  constexpr std::string_view why_expected = "one sentence on one line saying what this scenario teaches";
  s.why = top.string("why", why_expected);
  // Printed as it is by `attnlab list` and `model`: no line break, escape sequence or other control character.
  if (s.why.empty() || printable(s.why, s.why.size()) != s.why) top.fail_type("why", why_expected, *top.find("why"));
  s.heads = top.int32("heads", positive_integer);
  s.kv_heads = top.find("kv_heads") ? top.int32("kv_heads", "a positive divisor of heads") : s.heads;
  s.head_dim = top.int32("head_dim", positive_integer);
  s.dtype = *parse_dtype(top.word("dtype", R"("bf16" or "fp16")", {"bf16", "fp16"}));
  s.causal = top.boolean("causal", "true or false");
  if (const toml::node* w = top.find("window")) s.window = read_window(top, *w, s.causal);
  s.row_len = top.int32("row_len", positive_integer);
  if (top.find("packing"))
    s.packing = top.word("packing", R"("concatenate" or "best_fit")", {"concatenate", "best_fit"}) == "concatenate"
                    ? PackingPolicy::concatenate
                    : PackingPolicy::best_fit;
  if (const toml::node* pad = top.find("pad_to")) {
    constexpr std::string_view expected = R"("longest" or a positive integer)";
    if (pad->is_string()) {
      if (pad->as_string()->get() != "longest") top.fail_type("pad_to", expected, *pad);
    } else {
      s.pad_to = top.int_of("pad_to", expected, *pad);
    }
  }
  constexpr std::string_view docs_expected = "a [documents] table with a source key";
  const toml::node& docs = top.require("documents", docs_expected);
  if (!docs.is_table()) top.fail_type("documents", docs_expected, docs);
  s.length_source = read_length_source(TableReader(*docs.as_table(), file.string(), "documents."));
  if (const toml::node* model = top.find("model")) s.model = read_model_table(*model, file.string());
  s.resolve();
  return s;
}

// The file a name or path refers to. One that does not exist gets this message; one the
// system cannot open (a folder, a FIFO, a symlink loop, a path too long) is refused by read_input_file.
std::filesystem::path scenario_path(std::string_view name_or_path) {
  std::filesystem::path p(name_or_path);
  const bool is_path = p.has_parent_path() || p.extension() == ".toml";
  if (!is_path) p = scenarios_folder() / (std::string(name_or_path) + ".toml");
  std::error_code ec;
  if (name_or_path.empty() || (!std::filesystem::exists(p, ec) && !ec))
    throw InputError((name_or_path.empty() ? std::string("\"\"") : printable(p.string(), 4096)) +
                     ": no such scenario file; expected a name from `attnlab list` or the path of a .toml file");
  return p;
}

// The CSV path as the file at `to` must write it to reach the same CSV as the scenario's own file.
std::filesystem::path csv_path_for(const Scenario& s, const CsvLengths& csv, const std::filesystem::path& to) {
  if (csv.path.is_absolute()) return csv.path;
  const auto target = std::filesystem::absolute(s.source.parent_path() / csv.path).lexically_normal();
  const auto relative = target.lexically_relative(std::filesystem::absolute(to).parent_path());
  return relative.empty() ? target : relative;
}

std::string scenario_toml(const Scenario& s, const std::filesystem::path& to) {
  std::ostringstream out;
  out << "why = " << toml_string(s.why) << "\n"
      << "heads = " << s.heads << "\n"
      << "kv_heads = " << s.kv_heads << "\n"
      << "head_dim = " << s.head_dim << "\n"
      << "dtype = \"" << dtype_name(s.dtype) << "\"\n"
      << "causal = " << (s.causal ? "true" : "false") << "\n";
  if (s.window.any())
    out << "window = "
        << (s.causal ? std::to_string(s.window.left)
                     : "[" + std::to_string(s.window.left) + ", " + std::to_string(s.window.right) + "]")
        << "\n";
  out << "row_len = " << s.row_len << "\n"
      << "packing = \"" << packing_policy_name(s.packing) << "\"\n"
      << "pad_to = " << (s.pad_to ? std::to_string(*s.pad_to) : "\"longest\"") << "\n"
      << "\n[documents]\n"
      << "source = \"" << length_source_name(s.length_source) << "\"\n";
  std::visit(
      [&](const auto& src) {
        using S = std::decay_t<decltype(src)>;
        if constexpr (std::is_same_v<S, UniformLengths>) {
          out << "count = " << src.count << "\nlength = " << src.length << "\n";
        } else if constexpr (std::is_same_v<S, ListLengths>) {
          out << "lengths = [";
          for (std::size_t i = 0; i < src.lengths.size(); ++i) out << (i ? ", " : "") << src.lengths[i];
          out << "]\n";
        } else if constexpr (std::is_same_v<S, LogNormalLengths>) {
          out << "median = " << float_text(src.median) << "\nsigma = " << float_text(src.sigma) << "\nmin = " << src.min
              << "\nmax = " << src.max << "\ntoken_budget = " << src.token_budget << "\nseed = " << src.seed << "\n";
        } else {
          out << "path = " << toml_string(csv_path_for(s, src, to).generic_string()) << "\n";
        }
      },
      s.length_source);
  if (s.model) out << "\n" << model_table_toml(*s.model);
  return out.str();
}

}  // namespace

std::filesystem::path scenarios_folder() {
  if (const char* env = std::getenv("ATTNLAB_SCENARIOS"); env && *env) return env;
  return std::filesystem::path(ATTNLAB_SOURCE_DIR) / "scenarios";
}

Scenario load_scenario(std::string_view name_or_path) {
  const std::filesystem::path file = scenario_path(name_or_path);
  return read_scenario(read_toml_file(file, "scenario file", max_scenario_file_bytes), file);
}

namespace {

// The .toml files of the scenarios folder, by name.
std::vector<std::filesystem::path> scenario_files() {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path folder = scenarios_folder();
  const auto unreadable = [&](const std::error_code& ec) {
    return InputError(printable(folder.string(), 4096) + ": cannot list the scenarios folder (" + ec.message() +
                      "); expected a folder of .toml files (ATTNLAB_SCENARIOS)");
  };
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw InputError(printable(folder.string(), 4096) +
                     ": no such scenarios folder; expected a folder of .toml files (ATTNLAB_SCENARIOS)");
  std::filesystem::directory_iterator entries(folder, ec);
  if (ec) throw unreadable(ec);
  // Entries whose status cannot be read (a symlink loop) are not regular files: skipped like any other.
  for (; entries != std::filesystem::directory_iterator(); entries.increment(ec)) {
    if (ec) throw unreadable(ec);
    if (entries->is_regular_file(ec) && entries->path().extension() == ".toml") files.push_back(entries->path());
  }
  if (ec) throw unreadable(ec);
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.stem() < b.stem(); });
  return files;
}

}  // namespace

std::vector<Scenario> list_scenarios() {
  std::vector<Scenario> scenarios;
  for (const auto& f : scenario_files()) scenarios.push_back(load_scenario(f.string()));
  return scenarios;
}

std::vector<ScenarioEntry> list_scenario_entries() {
  std::vector<ScenarioEntry> entries;
  for (const auto& f : scenario_files()) {
    Scenario s = load_scenario(f.string());
    entries.push_back({std::move(s.name), std::move(s.why)});
  }
  return entries;
}

void save_scenario(const Scenario& scenario, const std::filesystem::path& path) {
  const std::string text = scenario_toml(scenario, path);
  write_file_atomically(path, text, "scenario file");
}

}  // namespace attnlab
