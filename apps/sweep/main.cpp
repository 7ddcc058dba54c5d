// kktdae-sweep: a sweep file's runs on threads, or sharded over MPI ranks; the same files either
// way, resumable from the ranks' journals after a failed job (docs/parallel-sweeps.md).
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <thread>

#include "common/directory_lock.hpp"
#include "common/exit_codes.hpp"
#include "common/interrupt.hpp"
#include "common/memory_budget.hpp"
#include "common/run_directory.hpp"
#include "kktdae/parallel/sweep.hpp"
#include "sweep/sweep_estimate.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_journal.hpp"
#include "sweep/sweep_output.hpp"
#include "sweep/sweep_ranks.hpp"
#include "sweep/sweep_runs.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

struct SweepFlags {
  std::string file;
  std::optional<std::string> out;
  std::optional<std::string> resume;
  std::optional<int> threads;
};

std::string resumeCommand(const SweepFlags& flags, const std::filesystem::path& dir) {
  return "kktdae-sweep " + flags.file + " --resume " + dir.string();
}

/// Rank 0's last word when the job stops early (a signal, a rank that died, a run that failed):
/// how many runs the journals lack, and how to finish them, printed and written to the manifest
/// with `outcome`. The other ranks' journals are read from `dir` (a directory every rank sees).
void reportMissing(const SweepFlags& flags, RunDirectory& dir, const SweepPlan& plan, RunOutcome outcome,
                   const std::string& cause) {
  std::size_t done = 0;
  try {
    done = readJournals(dir.path(), plan).rows.size();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-sweep: the journals could not be read: %s\n", error.what());
  }
  const std::string message =
      cause + ": the job stopped before the sweep finished: " + std::to_string(plan.runs.size() - done) + " of " +
      std::to_string(plan.runs.size()) + " runs are missing (the " + std::to_string(done) +
      " finished ones are in the journals of " + dir.path().string() +
      "). Resume with (under mpirun with any -np, or on threads):\n  " + resumeCommand(flags, dir.path());
  std::fprintf(stderr, "kktdae-sweep: error: %s\n", message.c_str());
  std::fflush(stderr);
  try {
    dir.finish(outcome, message);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-sweep: the manifest could not be written: %s\n", error.what());
  }
}

/// What rank 0 tells every rank before the runs: the job's attempt number and the runs to do.
struct Assignment {
  std::string error;  ///< non-empty: rank 0 refused; every rank exits
  int attempt = 1;
  std::vector<std::size_t> todo;
};

/// The files a sweep writes besides its journals (which stay for --resume and are not listed).
const std::vector<std::string> kSweepFiles = {"sweep.csv", "sweep.json", "timing.csv", "timing.json"};

/// Rank 0: locks DIR, reads its journals and decides what runs; only then (nothing refused)
/// opens the run directory into `run_dir`, which removes an earlier run's files.
Assignment assign(const SweepFlags& flags, const std::filesystem::path& dir, const SweepPlan& plan,
                  JournalContents& earlier, std::optional<RunDirectory>& run_dir) {
  Assignment assignment;
  try {
    DirectoryLock lock(dir);
    earlier = readJournals(dir, plan);
    if (!flags.resume && earlier.files > 0) {
      assignment.error = dir.string() + " holds the journals of an earlier sweep (" + std::to_string(earlier.rows.size()) +
                         " of " + std::to_string(plan.runs.size()) + " runs finished): resume with\n  " +
                         resumeCommand(flags, dir) + "\nor choose another --out";
      return assignment;
    }
    if (flags.resume && earlier.files == 0) {
      assignment.error = dir.string() + " holds no journal to resume from (journal-a*-r*.jsonl): run without --resume";
      return assignment;
    }
    assignment.attempt = earlier.last_attempt + 1;
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
      if (earlier.rows.count(i) == 0) assignment.todo.push_back(i);
    }
    run_dir.emplace(std::move(lock), dir, "kktdae-sweep", kSweepFiles);
  } catch (const std::exception& error) {
    assignment.error = error.what();
  }
  return assignment;
}

std::string encode(const Assignment& assignment) {
  nlohmann::json message;
  message["error"] = assignment.error;
  message["attempt"] = assignment.attempt;
  message["todo"] = assignment.todo;
  return message.dump();
}

Assignment decode(const std::string& text) {
  const nlohmann::json message = nlohmann::json::parse(text);
  Assignment assignment;
  assignment.error = message["error"].get<std::string>();
  assignment.attempt = message["attempt"].get<int>();
  assignment.todo = message["todo"].get<std::vector<std::size_t>>();
  return assignment;
}

/// Rows as the text rank 0 gathers (the journal's row format without the key).
std::string encodeRows(const std::vector<SweepRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const SweepRow& row : rows) list.push_back({{"index", row.index}, {"wall_seconds", row.wall_seconds}, {"results", row.results}});
  return list.dump();
}

/// Every run once, in index order: the journals' rows, then what each rank ran now (`gathered`,
/// rank by rank); `places` receives where each ran. Throws std::runtime_error when runs are
/// missing.
std::vector<SweepRow> mergeRows(const SweepPlan& plan, JournalContents earlier, const std::vector<std::string>& gathered,
                                int attempt, std::vector<RunPlace>& places) {
  std::map<std::size_t, SweepRow> by_index = std::move(earlier.rows);
  std::map<std::size_t, RunPlace> place_of = std::move(earlier.places);
  for (int r = 0; r < static_cast<int>(gathered.size()); ++r) {
    for (const nlohmann::json& item : nlohmann::json::parse(gathered[static_cast<std::size_t>(r)])) {
      SweepRow row;
      row.index = item["index"].get<std::size_t>();
      row.wall_seconds = item["wall_seconds"].get<double>();
      row.results = item["results"];
      place_of[row.index] = RunPlace{r, attempt};
      by_index[row.index] = std::move(row);
    }
  }
  if (by_index.size() != plan.runs.size()) {
    throw std::runtime_error("gathered " + std::to_string(by_index.size()) + " of " + std::to_string(plan.runs.size()) + " runs");
  }
  std::vector<SweepRow> all;
  places.clear();
  for (auto& [index, row] : by_index) {
    places.push_back(place_of[index]);
    all.push_back(std::move(row));
  }
  return all;
}

/// The sweep file, checked whole, and the memory its runs need on `threads` threads; nullopt
/// (after rank 0 said why) when either refuses: a usage error, nothing ran.
std::optional<SweepPlan> readPlan(const SweepFlags& flags, bool root) {
  try {
    SweepPlan plan = readSweepFile(flags.file);
    SweepOptions parallel;
    parallel.threads = flags.threads.value_or(rankCount() == 1 ? 0 : 1);
    const int threads = sweepThreadCount(std::max<std::size_t>(plan.runs.size(), 1), parallel);
    requireMemory(flags.file + ": " + std::to_string(plan.runs.size()) + " run" + (plan.runs.size() == 1 ? "" : "s") +
                      " on " + std::to_string(threads) + " thread" + (threads == 1 ? "" : "s") +
                      (rankCount() > 1 ? " per rank" : ""),
                  sweepMemoryEstimate(plan, threads, root));
    return plan;
  } catch (const std::exception& error) {  // std::invalid_argument, CLI::ValidationError
    if (root) std::fprintf(stderr, "kktdae-sweep: error: %s\n", error.what());
    return std::nullopt;
  }
}

int run(const SweepFlags& flags) {
  const int rank = rankIndex(), ranks = rankCount();
  const bool root = rank == 0;
  // A bad sweep file is refused the same way on every rank (each parses it): rank 0 says so.
  const std::optional<SweepPlan> parsed = readPlan(flags, root);
  if (!parsed) return kExitUsage;
  const SweepPlan& plan = *parsed;
  const std::filesystem::path dir = flags.resume ? *flags.resume : flags.out.value_or("outputs/sweep/" + plan.name);

  JournalContents earlier;
  Assignment assignment;
  std::optional<RunDirectory> run_dir;  // rank 0's
  if (root) assignment = assign(flags, dir, plan, earlier, run_dir);
  assignment = decode(broadcastText(root ? encode(assignment) : std::string()));
  if (!assignment.error.empty()) {
    if (root) std::fprintf(stderr, "kktdae-sweep: error: %s\n", assignment.error.c_str());
    return kExitUsage;
  }

  // Static sharding by position in the list of runs to do: rank r takes every ranks-th run from
  // position r (docs/parallel-sweeps.md says why not dynamic).
  std::vector<std::size_t> mine;
  for (std::size_t j = static_cast<std::size_t>(rank); j < assignment.todo.size(); j += static_cast<std::size_t>(ranks)) {
    mine.push_back(assignment.todo[j]);
  }
  SweepOptions parallel;
  parallel.threads = flags.threads.value_or(ranks == 1 ? 0 : 1);
  const int threads = sweepThreadCount(std::max<std::size_t>(mine.size(), 1), parallel);
  if (root) {
    std::printf("kktdae-sweep: %s: %zu runs of model %s (%zu to run, %zu from journals) on %d rank%s x %d thread%s\n",
                plan.name.c_str(), plan.runs.size(), plan.model.c_str(), assignment.todo.size(), earlier.rows.size(),
                ranks, ranks == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
    std::fflush(stdout);
  }

  const auto started = std::chrono::steady_clock::now();
  JournalWriter journal(dir, assignment.attempt, rank);
  const SweepRunner runner(plan);
  std::vector<SweepRow> rows;
  std::exception_ptr failure;
  std::atomic<bool> finished{false};
  // The runs go on a worker thread (and the sweep's pool) so that the main thread stays free to
  // notice a stop and to speak MPI.
  std::thread worker([&]() {
    try {
      rows = sweep(
          mine.size(),
          [&](std::size_t j) {
            SweepRow row = runner.run(mine[j]);
            journal.append(row, runKey(plan, row.index));
            return row;
          },
          parallel);
    } catch (...) {
      failure = std::current_exception();
    }
    finished.store(true);
  });
  // SIGINT/SIGTERM on rank 0 (mpirun sends SIGTERM to every rank when one of them died).
  auto pollStop = [&]() {
    if (root && interrupted()) {
      journal.seal();
      reportMissing(flags, *run_dir, plan, RunOutcome::Interrupted, "interrupted by a signal");
      std::_Exit(interruptExitCode());  // the worker threads are mid-run: nothing of theirs is left to save
    }
  };
  while (!finished.load()) {
    pollStop();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  worker.join();
  if (failure) {
    std::string cause = "a run failed";
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "kktdae-sweep (rank %d): error: %s\n", rank, error.what());
      cause = error.what();
    }
    if (root) {
      journal.seal();
      reportMissing(flags, *run_dir, plan, RunOutcome::Failed, cause);
    }
    abortRanks(kExitFailed);
  }
  waitForAllRanks(pollStop);
  const std::vector<std::string> gathered = gatherText(encodeRows(rows));
  std::vector<RunPlace> places;
  const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!root) return kExitOk;
  try {
    const std::vector<SweepRow> all = mergeRows(plan, std::move(earlier), gathered, assignment.attempt, places);
    writeSweepFiles(*run_dir, plan, all, places, ranks, threads, wall_seconds);
    std::fputs(summaryTable(plan, all).c_str(), stdout);
    std::printf("rows: %s, %s (timing: %s)\n", (dir / "sweep.csv").c_str(), (dir / "sweep.json").c_str(),
                (dir / "timing.json").c_str());
    std::size_t failed = 0;
    for (const SweepRow& row : all) failed += row.results["status"] != "success";
    if (failed > 0) std::printf("%zu of %zu runs did not succeed: their rows say why\n", failed, all.size());
  } catch (const std::exception& error) {
    run_dir->finish(RunOutcome::Failed, std::string("the sweep's files could not be written: ") + error.what() +
                                            "; every run is in the journals: --resume writes them");
    throw;
  }
  // A run that failed is a row: the sweep itself is complete (and its files whole even when a
  // signal came after the last run).
  const RunOutcome outcome = interrupted() ? RunOutcome::Interrupted : RunOutcome::Complete;
  run_dir->finish(outcome, outcome == RunOutcome::Interrupted ? "interrupted by a signal after the last run" : "");
  return exitCodeFor(outcome);
}

}  // namespace

int main(int argc, char** argv) {
  kktdae::apps::startRanks(&argc, &argv);
  CLI::App app{"Runs a sweep file's runs (a Cartesian product of axes, or a listed set) on threads, or sharded "
               "over MPI ranks under mpirun/srun; sweep.csv and sweep.json are the same bytes for any rank and "
               "thread count. Each rank journals its finished rows; --resume DIR runs only what is missing.",
               "kktdae-sweep"};
  SweepFlags flags;
  app.add_option("file", flags.file, "the sweep file (JSON; docs/parallel-sweeps.md)")->required();
  auto* out = app.add_option("--out", flags.out, "output directory (default outputs/sweep/<name>)");
  app.add_option("--resume", flags.resume, "finish the sweep whose journals are in this directory (writes its files there)")
      ->excludes(out);
  app.add_option("--threads", flags.threads,
                 "threads per rank (0: all cores); default all cores on one rank, 1 per rank under MPI")
      ->check(CLI::Range(0, kktdae::kMaxSweepThreads));
  const bool root = kktdae::apps::rankIndex() == 0;
  int code = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // Every rank parses the same flags; rank 0 alone prints.
    code = root ? kktdae::apps::usageExit(app, error) : (error.get_exit_code() == 0 ? 0 : kktdae::apps::kExitUsage);
    kktdae::apps::finishRanks();
    return code;
  }
  if (root) kktdae::apps::installInterruptHandlers();
  try {
    code = run(flags);
  } catch (const std::exception& error) {
    // The runs went (the usage errors return before them): the sweep failed.
    std::fprintf(stderr, "kktdae-sweep (rank %d): error: %s\n", kktdae::apps::rankIndex(), error.what());
    code = kktdae::apps::kExitFailed;
  }
  kktdae::apps::finishRanks();
  return code;
}
