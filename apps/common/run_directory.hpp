#pragma once
// One rule for a run's output directory (docs/apps.md, "Output directories"): a run first removes the
// files an earlier run of the same app wrote there (and the temporaries a killed run left),
// writes each file whole (temporary + rename), and writes manifest.json last, listing the files
// with their sizes and whether the run completed, was interrupted or failed. A directory without
// a manifest holds an incomplete run (SIGKILL cannot be caught; the next run cleans up after it).
// One run at a time: the run holds the directory's lock (DirectoryLock) from before its clean-up
// until it ends.

#include <filesystem>
#include <string>
#include <vector>

#include "common/directory_lock.hpp"

namespace kktdae::apps {

/// How a run ended, as manifest.json's "status" records it.
enum class RunOutcome { Complete, Interrupted, Failed };

/// "complete", "interrupted" or "failed".
const char* toString(RunOutcome outcome);

/// The outcome of a run two of whose parts ended `a` and `b`: interrupted over failed over
/// complete.
RunOutcome worse(RunOutcome a, RunOutcome b);

/// The exit code for an outcome: 0, 1, or 128 + the signal that interrupted it (130, 143).
int exitCodeFor(RunOutcome outcome);

/// The name of the manifest in every run directory.
inline constexpr const char* kManifestName = "manifest.json";

/// An app's output directory for one run. Holds the list of files the app may write (every file
/// any of its modes writes, so a run of one mode never leaves another mode's old files beside
/// its own) and the files this run has published.
class RunDirectory {
 public:
  /// Creates `dir` (and parents), locks it and proves it writable, then removes manifest.json
  /// first (so a run killed during the clean-up leaves no manifest), every file named in
  /// `app_files` and every temporary "<name>.XXXXXX" of those names. Throws std::runtime_error
  /// naming the directory and the reason (another run holding the lock, a directory under the
  /// name of one of the files included), before it removes anything.
  RunDirectory(std::filesystem::path dir, std::string app, std::vector<std::string> app_files);
  /// The same in a directory the caller locked already (to read what is there before the
  /// clean-up, as kktdae-sweep reads its journals).
  RunDirectory(DirectoryLock lock, std::filesystem::path dir, std::string app, std::vector<std::string> app_files);

  const std::filesystem::path& path() const { return dir_; }
  /// dir / name.
  std::filesystem::path file(const std::string& name) const { return dir_ / name; }

  /// Writes `content` to dir/name whole (writeFileAtomically) and records it for the manifest.
  /// Throws std::logic_error if `name` is not one of the app's files (the clean-up list must
  /// name every file the app writes), std::runtime_error on an I/O failure.
  void write(const std::string& name, const std::string& content);

  /// Records a file something else published under its final name (a rendered plot).
  void recordPublished(const std::string& name);

  /// The files published so far, in the order written.
  const std::vector<std::string>& published() const { return published_; }

  /// Writes manifest.json: app, status, message (when not empty) and each published file with
  /// its size in bytes, in the order written. Throws std::runtime_error on an I/O failure.
  void finish(RunOutcome outcome, const std::string& message = {});

 private:
  void requireOwned(const std::string& name) const;

  DirectoryLock lock_;  // first: held before the clean-up, released last
  std::filesystem::path dir_;
  std::string app_;
  std::vector<std::string> app_files_;
  std::vector<std::string> published_;
};

/// A RunDirectory for the directory the user gave with `flag` (--out): a directory that cannot
/// be created or written is a usage error (CLI::ValidationError naming the flag).
RunDirectory openRunDirectory(const std::string& flag, const std::filesystem::path& dir, std::string app,
                              std::vector<std::string> app_files);

}  // namespace kktdae::apps
