#pragma once
// A pass over a scenario's TOML text before toml++ (the Debian package, 3.3.0) parses
// it, refusing what that parser does not survive:
//  - nesting: toml++ recurses once per level of arrays, inline tables, dotted-key parts
//    and table-header parts, so a key of 250,000 parts overflows the stack. At most
//    max_toml_nesting brackets may be open at once, and a key or header has at most
//    max_key_parts parts of at most max_key_bytes bytes each (core/io/input_limits.hpp);
//  - a non-ASCII byte outside strings and comments: toml++ 3.3.0 reaches
//    __builtin_unreachable on some (`heads = 16é`; upstream issues #190 and #295).
//    TOML allows them nowhere else, so nothing valid is lost. Inside strings and
//    comments the text must be UTF-8, as TOML requires.
// The pass only counts: the grammar stays toml++'s, which reports syntax errors.
// A UTF-8 byte-order mark at the start is skipped, as toml++ skips it.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace attnlab {

// Throws InputError "FILE:LINE:COLUMN: not valid TOML: ..." naming the limit.
void check_toml_text(std::string_view text, const std::string& file);

// The one way the project reads a TOML file: read_input_file's checks (a regular file of at
// most max_bytes, no NUL byte), then check_toml_text, then toml++. Every failure is an
// InputError of one printable line naming the file (and the line and column where known).
toml::table read_toml_file(const std::filesystem::path& file, std::string_view what, std::int64_t max_bytes);

}  // namespace attnlab
