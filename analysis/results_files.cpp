#include "analysis/results_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>

#include "analysis/results_order.hpp"
#include "core/io/input_error.hpp"

namespace attnlab {

namespace {

// A path as problems name it: printable, on one line, whatever the folder's names hold.
std::string shown(const std::filesystem::path& path) { return printable(path.string(), 4096); }

// Why a file was skipped, naming it once: the readers name the file themselves; any other
// failure (not only an InputError) gets the name in front.
void add_problem(LoadedResults& results, const std::filesystem::path& path, const std::exception& e) {
  const std::string message = printable(e.what(), 4096), name = shown(path);
  results.problems.push_back(message.starts_with(name + ":") ? message : name + ": " + message);
}

// Throws unless `rows` more fit the budget of all files together, GEMM files included.
void check_row_budget(const LoadedResults& results, const std::filesystem::path& path, std::size_t rows) {
  std::size_t held = total_rows(results);
  for (const GemmsFile& g : results.gemms) held += g.rows.size();
  if (static_cast<std::int64_t>(held + rows) > results.row_budget)
    throw InputError(shown(path) + ": " + std::to_string(rows) + " rows would pass the " +
                     std::to_string(results.row_budget) + " rows all results files may hold together; skipped");
}

void load_file(LoadedResults& results, const std::filesystem::path& path) {
  std::erase_if(results.files, [&](const ResultsFile& f) { return f.path == path; });
  std::erase_if(results.problems, [&](const std::string& p) { return p.starts_with(shown(path) + ":"); });
  try {
    ResultsRows read = read_results_rows(path);
    ResultsFile file{path, std::move(read.runs), std::move(read.steps), std::move(read.cp)};
    check_row_budget(results, path, file.rows.size() + file.steps.size() + file.cp.size());
    const auto at = std::upper_bound(results.files.begin(), results.files.end(), file,
                                     [](const auto& a, const auto& b) { return results_file_order(a.path, b.path); });
    results.files.insert(at, std::move(file));
  } catch (const std::exception& e) {
    add_problem(results, path, e);
  }
}

// Every *.csv of a folder, in the order of results_file_order; a folder that cannot be listed is a problem.
std::vector<std::filesystem::path> csv_files(LoadedResults& results, const std::filesystem::path& folder) {
  std::error_code ec;
  std::vector<std::filesystem::path> csvs;
  // Every *.csv is handed to its reader, which names what is wrong with one that is not a readable
  // file (a symlink loop, a FIFO) as a problem of that file alone; the GUI still starts.
  for (std::filesystem::directory_iterator it(folder, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".csv") csvs.push_back(it->path());
  if (ec) results.problems.push_back(shown(folder) + ": cannot list the folder (" + ec.message() + ")");
  std::sort(csvs.begin(), csvs.end(), results_file_order);
  return csvs;
}

void load_gemms(LoadedResults& results, const std::filesystem::path& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) return;
  for (const auto& path : csv_files(results, folder)) {
    std::erase_if(results.gemms, [&](const GemmsFile& f) { return f.path == path; });
    try {
      GemmsFile file{path, read_gemms_csv(path)};
      check_row_budget(results, path, file.rows.size());
      results.gemms.push_back(std::move(file));
    } catch (const std::exception& e) {
      add_problem(results, path, e);
    }
  }
}

}  // namespace

std::filesystem::path default_results_folder() {
  if (const char* env = std::getenv("ATTNLAB_RESULTS"); env && *env) return env;
  return std::filesystem::path(ATTNLAB_SOURCE_DIR) / "results" / "h100";
}

void load_results_folder(LoadedResults& results, const std::filesystem::path& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    results.problems.push_back(shown(folder) + ": cannot read the results folder (" +
                               (ec ? ec.message() : std::string("not a folder")) + "); nothing measured is loaded");
    return;
  }
  for (const auto& csv : csv_files(results, folder)) load_file(results, csv);
  load_gemms(results, folder / gemms_folder_name);
  const std::filesystem::path ceilings = folder / ceilings_file_name;
  // A ceilings.toml the system refuses to look at (a symlink loop) is a problem, not an absent file.
  const bool present = std::filesystem::exists(ceilings, ec) || (ec && ec != std::errc::no_such_file_or_directory);
  if (results.ceilings || !present) return;
  try {
    results.ceilings = read_ceilings(ceilings);
    results.ceilings_file = ceilings;
  } catch (const std::exception& e) {
    add_problem(results, ceilings, e);
  }
}

void load_results(LoadedResults& results, const std::filesystem::path& path) {
  std::error_code ec;
  if (path.empty())
    results.problems.push_back("\"\": an empty path; expected a results CSV or a folder of them");
  else if (std::filesystem::is_directory(path, ec))
    load_results_folder(results, path);
  else if (std::filesystem::exists(path, ec) || ec)
    load_file(results, path);  // the reader names what the system refused (a symlink loop, no permission)
  else
    results.problems.push_back(shown(path) + ": no such file or folder");
}

std::string shown_file_name(const std::filesystem::path& path) { return printable(path.filename().string(), 4096); }

std::size_t total_rows(const LoadedResults& results) {
  std::size_t n = 0;
  for (const auto& f : results.files) n += f.rows.size() + f.steps.size() + f.cp.size();
  return n;
}

}  // namespace attnlab
