#pragma once
#include <filesystem>
#include <string_view>

namespace attnlab {

// Writes text to path through a temp file beside it and a rename, so a reader never
// sees half a file and a failure leaves nothing behind. On failure throws InputError
// "<path>: cannot write the <what> (<why>)".
void write_file_atomically(const std::filesystem::path& path, std::string_view text, std::string_view what);

}  // namespace attnlab
