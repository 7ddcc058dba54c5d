#include "common/output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace kktdae::apps {
namespace {

std::string errnoText() { return std::strerror(errno); }

/// Closes the descriptor and removes the temporary unless released: every early exit of
/// writeFileAtomically (an exception included) cleans up the same way.
class TemporaryFile {
 public:
  TemporaryFile(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!released_) {
      std::error_code ignored;
      std::filesystem::remove(path_, ignored);
    }
  }
  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }
  /// Closes the descriptor, reporting the error close() may defer from earlier writes.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }
  void release() { released_ = true; }

 private:
  std::filesystem::path path_;
  int fd_;
  bool released_ = false;
};

std::pair<std::filesystem::path, int> openTemporaryNextTo(const std::filesystem::path& path) {
  std::string pattern = path.string() + ".XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw std::runtime_error("cannot create a temporary file next to '" + path.string() + "': " + errnoText());
  const std::filesystem::path temporary(name.data());
  // mkstemp makes the file 0600; outputs are meant to be shared like any file the user creates,
  // so apply the usual 0666 & ~umask (reading the umask means setting it back: one thread only).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, static_cast<mode_t>(0666) & ~mask) != 0) {
    const std::string reason = errnoText();
    ::close(fd);
    ::unlink(temporary.c_str());
    throw std::runtime_error("cannot set the permissions of '" + temporary.string() + "': " + reason);
  }
  return {temporary, fd};
}

}  // namespace

void prepareOutputDirectory(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    throw std::runtime_error("cannot create output directory '" + dir.string() + "': " + error.message());
  }
  try {
    const std::filesystem::path probe = createTemporaryNextTo(dir / ".kktdae-write-probe");
    std::filesystem::remove(probe, error);
  } catch (const std::runtime_error& failure) {
    throw std::runtime_error("output directory '" + dir.string() + "' is not writable (" + failure.what() + ")");
  }
}

std::filesystem::path createTemporaryNextTo(const std::filesystem::path& path) {
  const auto [temporary, fd] = openTemporaryNextTo(path);
  ::close(fd);
  return temporary;
}

void writeFileAtomically(const std::filesystem::path& path, const std::string& content) {
  const auto [name, descriptor] = openTemporaryNextTo(path);
  TemporaryFile temporary(name, descriptor);
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t written = ::write(temporary.fd(), data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("failed writing '" + temporary.path().string() + "': " + errnoText());
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  // Without fsync a crash after the rename can leave `path` pointing at an empty file.
  if (::fsync(temporary.fd()) != 0) {
    throw std::runtime_error("failed flushing '" + temporary.path().string() + "': " + errnoText());
  }
  if (!temporary.close()) {
    throw std::runtime_error("failed closing '" + temporary.path().string() + "': " + errnoText());
  }
  if (::rename(temporary.path().c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot move '" + temporary.path().string() + "' to '" + path.string() + "': " +
                             errnoText());
  }
  temporary.release();
}

}  // namespace kktdae::apps
