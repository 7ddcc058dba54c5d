// kktdae-sweep: a sweep file's runs on threads, or sharded over MPI ranks; the same files either
// way, resumable from the ranks' journals after a failed job (docs/parallel-sweeps.md).
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <thread>
#include <unistd.h>

#include "common/output_files.hpp"
#include "kktdae/parallel/sweep.hpp"
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

/// Set by SIGTERM/SIGINT on rank 0: mpirun sends SIGTERM to every rank when one of them died.
volatile std::sig_atomic_t g_stop = 0;
extern "C" void onStop(int) { g_stop = 1; }

std::string resumeCommand(const SweepFlags& flags, const std::filesystem::path& dir) {
  return "kktdae-sweep " + flags.file + " --resume " + dir.string();
}

/// Rank 0's last word when the job stops early: how many runs the journals lack, and how to
/// finish them. The other ranks' journals are read from `dir` (a directory every rank sees).
void reportMissing(const SweepFlags& flags, const std::filesystem::path& dir, const SweepPlan& plan) {
  std::size_t done = 0;
  try {
    done = readJournals(dir, plan).rows.size();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-sweep: the journals could not be read: %s\n", error.what());
  }
  std::fprintf(stderr,
               "kktdae-sweep: error: the job stopped before the sweep finished: %zu of %zu runs are missing "
               "(the %zu finished ones are in the journals of %s). Resume with (under mpirun with any -np, or on "
               "threads):\n  %s\n",
               plan.runs.size() - done, plan.runs.size(), done, dir.string().c_str(), resumeCommand(flags, dir).c_str());
  std::fflush(stderr);
}

/// What rank 0 tells every rank before the runs: the job's attempt number and the runs to do.
struct Assignment {
  std::string error;  ///< non-empty: rank 0 refused; every rank exits
  int attempt = 1;
  std::vector<std::size_t> todo;
};

Assignment assign(const SweepFlags& flags, const std::filesystem::path& dir, const SweepPlan& plan,
                  JournalContents& earlier) {
  Assignment assignment;
  try {
    prepareOutputDirectory(dir);
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

int run(const SweepFlags& flags) {
  const int rank = rankIndex(), ranks = rankCount();
  const bool root = rank == 0;
  const SweepPlan plan = readSweepFile(flags.file);
  const std::filesystem::path dir = flags.resume ? *flags.resume : flags.out.value_or("outputs/sweep/" + plan.name);
  if (root) {
    std::signal(SIGTERM, onStop);
    std::signal(SIGINT, onStop);
  }

  JournalContents earlier;
  Assignment assignment;
  if (root) assignment = assign(flags, dir, plan, earlier);
  assignment = decode(broadcastText(root ? encode(assignment) : std::string()));
  if (!assignment.error.empty()) {
    if (root) std::fprintf(stderr, "kktdae-sweep: error: %s\n", assignment.error.c_str());
    return 2;
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
  auto pollStop = [&]() {
    if (root && g_stop) {
      journal.seal();
      reportMissing(flags, dir, plan);
      std::_Exit(1);  // the worker threads are mid-run: nothing of theirs is left to save
    }
  };
  while (!finished.load()) {
    pollStop();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  worker.join();
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "kktdae-sweep (rank %d): error: %s\n", rank, error.what());
    }
    if (root) {
      journal.seal();
      reportMissing(flags, dir, plan);
    }
    abortRanks(1);
  }
  waitForAllRanks(pollStop);
  const std::vector<std::string> gathered = gatherText(encodeRows(rows));
  const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!root) return 0;

  // Every run once, in index order: the journals' rows, then what each rank ran now.
  std::map<std::size_t, SweepRow> by_index = std::move(earlier.rows);
  std::map<std::size_t, RunPlace> places = std::move(earlier.places);
  for (int r = 0; r < static_cast<int>(gathered.size()); ++r) {
    for (const nlohmann::json& item : nlohmann::json::parse(gathered[static_cast<std::size_t>(r)])) {
      SweepRow row;
      row.index = item["index"].get<std::size_t>();
      row.wall_seconds = item["wall_seconds"].get<double>();
      row.results = item["results"];
      places[row.index] = RunPlace{r, assignment.attempt};
      by_index[row.index] = std::move(row);
    }
  }
  if (by_index.size() != plan.runs.size()) {
    throw std::runtime_error("gathered " + std::to_string(by_index.size()) + " of " + std::to_string(plan.runs.size()) + " runs");
  }
  std::vector<SweepRow> all;
  std::vector<RunPlace> all_places;
  for (auto& [index, row] : by_index) {
    all_places.push_back(places[index]);
    all.push_back(std::move(row));
  }
  writeSweepFiles(dir, plan, all, all_places, ranks, threads, wall_seconds);
  std::fputs(summaryTable(plan, all).c_str(), stdout);
  std::printf("rows: %s, %s (timing: %s)\n", (dir / "sweep.csv").c_str(), (dir / "sweep.json").c_str(),
              (dir / "timing.json").c_str());
  std::size_t failed = 0;
  for (const SweepRow& row : all) failed += row.results["status"] != "success";
  if (failed > 0) std::printf("%zu of %zu runs did not succeed: their rows say why\n", failed, all.size());
  return 0;
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
  int code = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    code = kktdae::apps::rankIndex() == 0 ? app.exit(error) : (error.get_exit_code() == 0 ? 0 : 2);
    kktdae::apps::finishRanks();
    return code;
  }
  try {
    code = run(flags);
  } catch (const std::exception& error) {
    // A bad sweep file is refused the same way on every rank (each parses it): rank 0 says so.
    if (kktdae::apps::rankIndex() == 0) std::fprintf(stderr, "kktdae-sweep: error: %s\n", error.what());
    code = 2;
  }
  kktdae::apps::finishRanks();
  return code;
}
