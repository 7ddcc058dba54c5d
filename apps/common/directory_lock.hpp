#pragma once
// One run per output directory at a time: two runs into one --out would each clean up the
// other's files and leave a directory holding neither run whole (two sweeps would share a
// journal). A run holds an exclusive lock on the directory itself (flock on its descriptor, so
// no lock file appears among the outputs) until it ends; the kernel drops it when the process
// dies, however it dies, so a killed run never leaves a stale lock.

#include <filesystem>

namespace kktdae::apps {

class DirectoryLock {
 public:
  /// Creates `dir` (and parents) and locks it. Throws std::runtime_error naming the directory
  /// when it cannot be created or another process holds the lock. Where the filesystem cannot
  /// lock at all (some network filesystems), the run goes on unlocked, as before locks existed.
  explicit DirectoryLock(const std::filesystem::path& dir);
  ~DirectoryLock();
  DirectoryLock(DirectoryLock&& other) noexcept;
  DirectoryLock& operator=(DirectoryLock&& other) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kktdae::apps
