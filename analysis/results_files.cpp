#include "analysis/results_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>

#include "analysis/results_order.hpp"
#include "core/input_error.hpp"

namespace attnlab {

namespace {

void load_file(LoadedResults& results, const std::filesystem::path& path) {
  std::erase_if(results.files, [&](const ResultsFile& f) { return f.path == path; });
  std::erase_if(results.problems, [&](const std::string& p) { return p.starts_with(path.string() + ":"); });
  try {
    ResultsRows read = read_results_rows(path);
    ResultsFile file{path, std::move(read.runs), std::move(read.steps)};
    const std::size_t rows = file.rows.size() + file.steps.size();
    if (static_cast<std::int64_t>(total_rows(results) + rows) > results.row_budget)
      throw InputError(printable(path.string(), 4096) + ": " + std::to_string(rows) + " rows would pass the " +
                       std::to_string(results.row_budget) + " rows all results files may hold together; skipped");
    const auto at = std::upper_bound(results.files.begin(), results.files.end(), file,
                                     [](const auto& a, const auto& b) { return results_file_order(a.path, b.path); });
    results.files.insert(at, std::move(file));
  } catch (const std::exception& e) {
    const std::string message = e.what();
    // read_results_csv names the file; keep that, and name it where it does not (any
    // failure of a file, not only the reader's InputError, skips that file alone).
    results.problems.push_back(message.starts_with(path.string()) ? message : path.string() + ": " + message);
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
  if (ec) results.problems.push_back(folder.string() + ": cannot list the folder (" + ec.message() + ")");
  std::sort(csvs.begin(), csvs.end(), results_file_order);
  return csvs;
}

void load_gemms(LoadedResults& results, const std::filesystem::path& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) return;
  for (const auto& path : csv_files(results, folder)) {
    std::erase_if(results.gemms, [&](const GemmsFile& f) { return f.path == path; });
    try {
      results.gemms.push_back({path, read_gemms_csv(path)});
    } catch (const std::exception& e) {
      results.problems.push_back(e.what());  // read_gemms_csv names the file
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
  if (!std::filesystem::is_directory(folder, ec)) return;
  for (const auto& csv : csv_files(results, folder)) load_file(results, csv);
  load_gemms(results, folder / gemms_folder_name);
  const std::filesystem::path ceilings = folder / ceilings_file_name;
  if (results.ceilings || !std::filesystem::exists(ceilings, ec)) return;
  try {
    results.ceilings = read_ceilings(ceilings);
    results.ceilings_file = ceilings;
  } catch (const std::exception& e) {
    results.problems.push_back(e.what());  // read_ceilings names the file
  }
}

void load_results(LoadedResults& results, const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    load_results_folder(results, path);
  else if (std::filesystem::exists(path, ec) || ec)
    load_file(results, path);  // the reader names what the system refused (a symlink loop, no permission)
  else
    results.problems.push_back(path.string() + ": no such file or folder");
}

std::size_t total_rows(const LoadedResults& results) {
  std::size_t n = 0;
  for (const auto& f : results.files) n += f.rows.size() + f.steps.size();
  return n;
}

}  // namespace attnlab
