#pragma once
// Memory a run may use, checked before it starts: a run too large for the machine is a usage
// error naming the flag, not a std::bad_alloc halfway through.

#include <cstdint>
#include <optional>
#include <string>

namespace kktdae::apps {

/// Bytes this process may still allocate: /proc/meminfo's MemAvailable, or the cgroup's limit
/// (memory.max minus memory.current, cgroup v2) when that is lower. Empty when neither can be read.
struct AvailableMemory {
  std::optional<std::uint64_t> bytes;
  std::string source;  ///< "MemAvailable" or "the cgroup limit"
};
AvailableMemory availableMemory();

/// "1.5 GB", "320 MB", "12 kB": a byte count in decimal units, three significant digits.
std::string formatBytes(double bytes);

/// Throws CLI::ValidationError naming `flags` (e.g. "--links 100000000 --steps 1") when
/// `estimate_bytes` exceeds the memory available; does nothing when that cannot be read.
/// The message gives the estimate and the memory available.
void requireMemory(const std::string& flags, double estimate_bytes);

/// "needs about X of memory, Y available (MemAvailable); ask for less": what requireMemory says
/// after the flags, and what a run that still runs out (std::bad_alloc) says.
std::string memoryShortfall(double estimate_bytes);

}  // namespace kktdae::apps
