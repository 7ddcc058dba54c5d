#pragma once
// Output files for the apps: written whole (unique temp file + rename) or not at all.

#include <filesystem>
#include <string>

namespace kktdae::apps {

/// Creates `dir` (and parents) and proves it writable by creating and removing a probe file.
/// Throws std::runtime_error naming the directory and the reason.
void prepareOutputDirectory(const std::filesystem::path& dir);

/// Creates an empty file `<path>.XXXXXX` (mkstemp) next to `path`, with the permissions a plain
/// new file would get, and returns its name. The caller fills it and renames it over `path`.
/// Throws std::runtime_error naming the path and the reason.
std::filesystem::path createTemporaryNextTo(const std::filesystem::path& path);

/// Writes `content` to `path` through a uniquely named temporary file in the same directory,
/// fsync and an atomic rename: a reader sees the old file or the new one, never half of one,
/// and two processes writing the same path each publish a whole file (the last rename wins).
/// The temporary is removed on any failure. Throws std::runtime_error on any I/O failure.
void writeFileAtomically(const std::filesystem::path& path, const std::string& content);

}  // namespace kktdae::apps
