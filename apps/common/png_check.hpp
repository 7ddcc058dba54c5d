#pragma once
// Whether a file is a whole PNG: gnuplot exits 0 even when writing its image failed (a full
// disk leaves a truncated or empty file), so a plot is checked before it is published.

#include <filesystem>
#include <string>

namespace kktdae::apps {

/// Checks the PNG signature and walks the chunks (length, type, data, CRC) to an IEND chunk that
/// ends the file. Returns an empty string for a whole PNG, else what is wrong with it ("empty",
/// "no PNG signature", "truncated after 4096 bytes: no IEND chunk", …). CRCs are not recomputed:
/// the check is for files cut short, not corrupted.
std::string pngDefect(const std::filesystem::path& path);

}  // namespace kktdae::apps
