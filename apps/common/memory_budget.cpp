#include "common/memory_budget.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace kktdae::apps {
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

double chainRunMemory(double links, bool dense, Integrator integrator) {
  const bool ida = integrator == Integrator::IdaIndex1 || integrator == Integrator::IdaGgl;
  const bool index3 = integrator == Integrator::GeneralizedAlpha || integrator == Integrator::Hht;
  const double per_link = ida ? 10000.0 : index3 ? 6000.0 : 3000.0;
  return per_link * links + (dense ? 80.0 * links * links : 0.0);
}

std::string memoryShortfall(double estimate_bytes) {
  const AvailableMemory available = availableMemory();
  return "needs about " + formatBytes(estimate_bytes) + " of memory" +
         (available.bytes ? ", " + formatBytes(static_cast<double>(*available.bytes)) + " available (" +
                                available.source + ")"
                          : std::string()) +
         "; ask for less";
}

void requireMemory(const std::string& flags, double estimate_bytes) {
  const AvailableMemory available = availableMemory();
  if (!available.bytes || estimate_bytes <= static_cast<double>(*available.bytes)) return;
  throw CLI::ValidationError(flags, memoryShortfall(estimate_bytes));
}

}  // namespace kktdae::apps
