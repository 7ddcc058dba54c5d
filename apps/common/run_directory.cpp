#include "common/run_directory.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/exit_codes.hpp"
#include "common/interrupt.hpp"
#include "common/output_files.hpp"

namespace kktdae::apps {
namespace {

/// mkstemp's temporaries are "<name>." followed by six characters from [A-Za-z0-9].
bool isTemporaryOf(const std::string& candidate, const std::string& name) {
  if (candidate.size() != name.size() + 7 || candidate.compare(0, name.size(), name) != 0 ||
      candidate[name.size()] != '.') {
    return false;
  }
  return std::all_of(candidate.begin() + static_cast<std::ptrdiff_t>(name.size()) + 1, candidate.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

/// std::filesystem::remove() removes an empty directory as readily as a file: a directory the
/// user made under an output's name is refused instead (the run could not publish there either).
void requireNotDirectory(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(std::filesystem::symlink_status(path, error))) {
    throw std::runtime_error("'" + path.string() + "' is a directory, not a file an earlier run wrote: move it away "
                             "or choose another directory");
  }
}

void removeFile(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::remove(path, error);
  if (error) throw std::runtime_error("cannot remove the earlier run's '" + path.string() + "': " + error.message());
}

/// The exception (docs/apps.md) to "same inputs, same bytes": files named for timing (timing.json,
/// seeds_timing.json, timing_ladder.csv, …) hold wall clocks.
bool isTimingFile(const std::string& name) { return name.find("timing") != std::string::npos; }

}  // namespace

const char* toString(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::Complete: return "complete";
    case RunOutcome::Interrupted: return "interrupted";
    case RunOutcome::Failed: return "failed";
  }
  return "failed";
}

RunOutcome worse(RunOutcome a, RunOutcome b) {
  if (a == RunOutcome::Interrupted || b == RunOutcome::Interrupted) return RunOutcome::Interrupted;
  if (a == RunOutcome::Failed || b == RunOutcome::Failed) return RunOutcome::Failed;
  return RunOutcome::Complete;
}

int exitCodeFor(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::Complete: return kExitOk;
    case RunOutcome::Failed: return kExitFailed;
    case RunOutcome::Interrupted: return interruptExitCode() != 0 ? interruptExitCode() : kExitSigint;
  }
  return kExitFailed;
}

RunDirectory::RunDirectory(std::filesystem::path dir, std::string app, std::vector<std::string> app_files)
    : RunDirectory(DirectoryLock(dir), dir, std::move(app), std::move(app_files)) {}

RunDirectory::RunDirectory(DirectoryLock lock, std::filesystem::path dir, std::string app,
                           std::vector<std::string> app_files)
    : lock_(std::move(lock)), dir_(std::move(dir)), app_(std::move(app)), app_files_(std::move(app_files)) {
  prepareOutputDirectory(dir_);
  std::vector<std::string> names = app_files_;
  names.emplace_back(kManifestName);
  for (const std::string& name : names) requireNotDirectory(dir_ / name);
  removeFile(dir_ / kManifestName);
  names.emplace_back(".kktdae-write-probe");
  for (const std::string& name : app_files_) removeFile(dir_ / name);
  // Listed first, removed after: removing while iterating leaves it unspecified what the
  // iteration still sees.
  std::vector<std::filesystem::path> temporaries;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    const std::string candidate = entry.path().filename().string();
    if (std::any_of(names.begin(), names.end(), [&](const std::string& name) { return isTemporaryOf(candidate, name); })) {
      temporaries.push_back(entry.path());
    }
  }
  if (error) throw std::runtime_error("cannot list '" + dir_.string() + "': " + error.message());
  for (const auto& temporary : temporaries) removeFile(temporary);
}

RunDirectory openRunDirectory(const std::string& flag, const std::filesystem::path& dir, std::string app,
                              std::vector<std::string> app_files) {
  try {
    return RunDirectory(dir, std::move(app), std::move(app_files));
  } catch (const std::runtime_error& error) {
    throw CLI::ValidationError(flag, error.what());
  }
}

void RunDirectory::requireOwned(const std::string& name) const {
  if (std::find(app_files_.begin(), app_files_.end(), name) == app_files_.end()) {
    throw std::logic_error(app_ + " writes '" + name + "' but does not list it among its files");
  }
}

void RunDirectory::write(const std::string& name, const std::string& content) {
  requireOwned(name);
  writeFileAtomically(dir_ / name, content);
  recordPublished(name);
}

void RunDirectory::recordPublished(const std::string& name) {
  requireOwned(name);
  if (std::find(published_.begin(), published_.end(), name) == published_.end()) published_.push_back(name);
}

void RunDirectory::finish(RunOutcome outcome, const std::string& message) {
  // An array, not an object: the files stay in the order the run wrote them. Timing files (wall
  // clocks) differ between identical runs and so do their sizes: they are listed without one, so
  // that the manifest itself is the same bytes whenever the other files are.
  nlohmann::json files = nlohmann::json::array();
  for (const std::string& name : published_) {
    if (isTimingFile(name)) {
      files.push_back(nlohmann::json::object({{"name", name}}));
      continue;
    }
    std::error_code error;
    const std::uintmax_t bytes = std::filesystem::file_size(dir_ / name, error);
    if (error) throw std::runtime_error("cannot read the size of '" + (dir_ / name).string() + "': " + error.message());
    files.push_back(nlohmann::json::object({{"name", name}, {"bytes", bytes}}));
  }
  nlohmann::json doc = nlohmann::json::object();
  doc["app"] = app_;
  doc["status"] = toString(outcome);
  if (!message.empty()) doc["message"] = message;
  doc["files"] = files;
  doc["note"] = "written last: a directory without this file holds an incomplete run";
  writeFileAtomically(dir_ / kManifestName, doc.dump(2) + "\n");
}

}  // namespace kktdae::apps
