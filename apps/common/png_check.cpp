#include "common/png_check.hpp"

#include <array>
#include <cstdint>
#include <fstream>

namespace kktdae::apps {

std::string pngDefect(const std::filesystem::path& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return "cannot read it: " + error.message();
  if (size == 0) return "empty (0 bytes)";
  std::ifstream in(path, std::ios::binary);
  static constexpr std::array<unsigned char, 8> kSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::array<unsigned char, 8> head{};
  if (!in.read(reinterpret_cast<char*>(head.data()), head.size()) || head != kSignature) return "no PNG signature";
  std::uintmax_t offset = 8;
  const std::string truncated = "truncated after " + std::to_string(size) + " bytes: no IEND chunk";
  while (true) {
    std::array<unsigned char, 8> chunk{};  // 4-byte big-endian length, 4-byte type
    if (offset + 8 > size || !in.read(reinterpret_cast<char*>(chunk.data()), chunk.size())) return truncated;
    const std::uint32_t length = (std::uint32_t{chunk[0]} << 24) | (std::uint32_t{chunk[1]} << 16) |
                                 (std::uint32_t{chunk[2]} << 8) | std::uint32_t{chunk[3]};
    const std::uintmax_t end = offset + 8 + std::uintmax_t{length} + 4;  // data and CRC
    if (end > size) return truncated;
    if (chunk[4] == 'I' && chunk[5] == 'E' && chunk[6] == 'N' && chunk[7] == 'D') {
      if (end != size) return std::to_string(size - end) + " bytes after the IEND chunk";
      return {};
    }
    offset = end;
    in.seekg(static_cast<std::streamoff>(offset));
  }
}

}  // namespace kktdae::apps
