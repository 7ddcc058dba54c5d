#include "kktdae/core/available_memory.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kktdae {
namespace {

std::optional<std::uint64_t> readNumber(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::uint64_t> memAvailable() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

AvailableMemory availableMemory() {
  AvailableMemory available;
  if (const auto bytes = memAvailable()) available = {bytes, "MemAvailable"};
  const auto limit = readNumber("/sys/fs/cgroup/memory.max");
  const auto current = readNumber("/sys/fs/cgroup/memory.current");
  if (limit) {
    const std::uint64_t left = current && *current < *limit ? *limit - *current : current ? 0 : *limit;
    if (!available.bytes || left < *available.bytes) available = {left, "the cgroup limit"};
  }
  return available;
}

std::string formatBytes(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 1000.0 && unit < 6) {
    bytes /= 1000.0;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.3g %s", bytes, units[unit]);
  return text;
}

}  // namespace kktdae
