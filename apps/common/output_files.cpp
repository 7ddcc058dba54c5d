#include "common/output_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace kktdae::apps {

void prepareOutputDirectory(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    throw std::runtime_error("cannot create output directory '" + dir.string() + "': " + error.message());
  }
  const std::filesystem::path probe = dir / ".kktdae-write-probe";
  std::FILE* file = std::fopen(probe.c_str(), "w");
  if (file == nullptr) {
    throw std::runtime_error("output directory '" + dir.string() + "' is not writable: " + std::strerror(errno));
  }
  std::fclose(file);
  std::filesystem::remove(probe, error);
}

void writeFileAtomically(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot open '" + temporary.string() + "' for writing");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::filesystem::remove(temporary);
      throw std::runtime_error("failed writing '" + temporary.string() + "'");
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw std::runtime_error("cannot move '" + temporary.string() + "' to '" + path.string() + "': " + error.message());
  }
}

}  // namespace kktdae::apps
