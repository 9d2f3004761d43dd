#pragma once
// Every input file (a scenario, a lengths CSV, a results CSV) is read whole through
// read_input_file before it is parsed, so the checks that do not depend on the format
// are made once, before the parser or any large allocation sees the file.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab {

// The bytes of a regular file of at most max_bytes that holds no NUL byte. Anything
// else is an InputError of one line naming the path and `what` (e.g. "lengths CSV"):
// a folder, FIFO or device (opened without blocking, so a FIFO cannot hang the reader),
// a path the system refuses (a symlink loop, too long, no permission: its reason), a
// file larger than max_bytes ("PATH: the WHAT is N bytes; at most M are read"), or a
// NUL byte ("PATH:LINE:COLUMN: a NUL byte; expected text"), which C-string parsers would
// stop at silently.
std::string read_input_file(const std::filesystem::path& path, std::string_view what, std::int64_t max_bytes);

// "LINE:COLUMN" (both from 1; the column counts bytes) of the byte at offset in text.
std::string line_and_column(std::string_view text, std::size_t offset);

}  // namespace attnlab
