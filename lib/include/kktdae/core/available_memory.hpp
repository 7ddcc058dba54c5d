#pragma once
/// @file
/// How much memory this process may still allocate, for sizing what a run keeps before it keeps
/// it: on Linux an allocation past the memory there is rarely refused (std::bad_alloc) but ends the
/// process later, when the kernel runs out and kills it.

#include <cstdint>
#include <optional>
#include <string>

namespace kktdae {

/// Bytes this process may still allocate: /proc/meminfo's MemAvailable, or the cgroup's limit
/// (memory.max minus memory.current, cgroup v2) when that is lower. Empty when neither can be read.
struct AvailableMemory {
  std::optional<std::uint64_t> bytes;  ///< the bytes; empty when nothing could be read
  std::string source;  ///< "MemAvailable" or "the cgroup limit"
};
/// Reads AvailableMemory now (/proc/meminfo and the cgroup v2 files under /sys/fs/cgroup).
AvailableMemory availableMemory();

/// "1.5 GB", "320 MB", "12 kB": a byte count in decimal units, three significant digits.
std::string formatBytes(double bytes);

}  // namespace kktdae
