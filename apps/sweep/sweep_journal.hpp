#pragma once
// Journals: each rank appends every finished row to its own file, flushed per row, so that a job
// that dies (OpenMPI ends the whole job when one rank does) loses only the runs in flight;
// --resume reads them back and runs only what is missing.

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_output.hpp"
#include "sweep/sweep_runs.hpp"

namespace kktdae::apps {

/// The journal of `rank` in job `attempt`: DIR/journal-a<attempt>-r<rank>.jsonl.
std::filesystem::path journalPath(const std::filesystem::path& dir, int attempt, int rank);

/// Appends rows to one journal, one JSON line each, flushed before append() returns. Thread-safe.
class JournalWriter {
 public:
  /// Creates (truncates) the journal; throws std::runtime_error naming the file if it cannot.
  JournalWriter(const std::filesystem::path& dir, int attempt, int rank);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  /// Writes `row` with its run key; throws std::runtime_error if the write or flush fails.
  void append(const SweepRow& row, const std::string& key);
  /// Writes nothing more: append() returns at once from now on. Rank 0 seals its journal before
  /// counting the rows of a stopped job, so the count it reports is the journals' final one.
  void seal();

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  int rank_ = 0;
  int attempt_ = 1;
  long written_ = 0;
  bool sealed_ = false;
  int kill_signal_ = 0;   ///< the test hook's signal (before kill_after_: its initializer sets it)
  long kill_after_ = -1;  ///< test hook, see docs/parallel-sweeps.md
  std::mutex mutex_;
};

/// What the journals of a directory hold.
struct JournalContents {
  std::map<std::size_t, SweepRow> rows;  ///< finished runs by index
  std::map<std::size_t, RunPlace> places;
  int last_attempt = 0;  ///< the highest attempt number found; 0 when there is no journal
  std::size_t files = 0;
};

/// Reads every journal in `dir`. A last line cut short (the rank died while writing it) is
/// skipped. Throws std::invalid_argument naming the file and line when a row's index is out of
/// range or its run key differs from `plan`'s (the sweep file changed since the rows were made),
/// or a line in the middle is not a row.
JournalContents readJournals(const std::filesystem::path& dir, const SweepPlan& plan);

}  // namespace kktdae::apps
