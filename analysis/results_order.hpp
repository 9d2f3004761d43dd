#pragma once
// The order results files are read in where several hold the same configuration: the
// row of the first file stands as the primary run (the GUI, `attnlab model`'s measured
// rows, and `attnlab results`, whose rows the README's tables are made of, all use it).
// By file name without ".csv", so attnlab-bench comes before attnlab-bench-variants
// and attnlab-run (plain name order would put "-variants" first: '-' < '.'), then by
// the whole path.
#include <filesystem>
#include <string>

namespace attnlab {

inline bool results_file_order(const std::filesystem::path& a, const std::filesystem::path& b) {
  const std::string sa = a.stem().string(), sb = b.stem().string();
  return sa != sb ? sa < sb : a.string() < b.string();
}

}  // namespace attnlab
