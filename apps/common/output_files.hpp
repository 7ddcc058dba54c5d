#pragma once
// Output files for the apps: written whole (temp file + rename) or not at all.

#include <filesystem>
#include <string>

namespace kktdae::apps {

/// Creates `dir` (and parents) and proves it writable by creating and removing a probe file.
/// Throws std::runtime_error naming the directory and the reason.
void prepareOutputDirectory(const std::filesystem::path& dir);

/// Writes `content` to `path` through `path.tmp` and an atomic rename: a reader sees the old
/// file or the new one, never half of one. Throws std::runtime_error on any I/O failure.
void writeFileAtomically(const std::filesystem::path& path, const std::string& content);

}  // namespace kktdae::apps
