#pragma once
// Which kernel family each results `source` belongs to, and which attnlab
// implementation (layout) it stands beside: FlashAttention-2 is SDPA's flash backend
// on the padded and packed batches and varlen_attn on the documents, for example. The
// table is one data file, results/peer_families.csv, read by the C++ (the CLI, the GUI,
// the step's measured links) and, through `attnlab model --format json`, by the Python
// tables alike, so a source added to attnlab/peers/backends.py is named in one place.
#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout/implementation.hpp"

namespace attnlab {

struct SourceFamily {
  std::string name;        // "FlashAttention-2"
  std::string short_name;  // "FA2", for plot labels
  // By implementation, in file order: where a configuration holds several, the first found stands.
  std::array<std::vector<std::string>, all_implementations.size()> sources;
};

inline constexpr std::string_view ours_family = "attnlab";
inline constexpr std::string_view fa2_family = "FlashAttention-2";

// results/peer_families.csv in the source tree.
std::filesystem::path peer_families_file();

// Reads a families file (header family,short_name,implementation,source; families in the
// order they first come). Throws InputError naming the file, line and field.
std::vector<SourceFamily> read_peer_families(const std::filesystem::path& file);

// peer_families_file(), read on first use.
const std::vector<SourceFamily>& source_families();

// The family a row's source belongs to; null for a source no family lists.
const SourceFamily* family_of(std::string_view source);

}  // namespace attnlab
