#pragma once
/// @file
/// Many independent simulations on all cores: sweep(count, task, options) runs task(0) …
/// task(count − 1) on a pool of std::threads and returns their results by index.
///
/// Thread-safety contract (what a task may share):
///   - a ConstrainedSystem is const and keeps no mutable state: one model may be read by every
///     task at once (system/constrained_system.hpp);
///   - everything simulate() needs per run — the AccelerationFunction, the KKT workspace, the
///     SUNDIALS solver memory — is created inside that simulate() call, so each run owns its own;
///   - anything a task writes (an observer's buffers, metrics, a φ scratch vector) must be
///     created inside the task, never captured by reference from outside.
///
/// Bitwise determinism: each task's result depends only on its index and on read-only inputs,
/// and each result lands in its own slot, so results are bitwise identical to the serial run
/// whatever the thread count or scheduling. Keep it that way: no shared mutable state between
/// tasks, and no reduction (a sum, a max) accumulated across tasks in completion order — reduce
/// over the returned vector afterwards, in index order. Wall-clock times are the one thing that
/// does differ (tasks share the cores).

#include <cstddef>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace kktdae {

/// Most threads a sweep accepts: far above any machine's cores, low enough to catch a typo.
constexpr int kMaxSweepThreads = 1024;

/// How many threads a sweep runs its independent tasks on.
struct SweepOptions {
  /// Worker threads, the calling thread included. 0: std::thread::hardware_concurrency() (1 if
  /// unknown). 1: every task runs inline on the calling thread, in index order — the serial
  /// reference. Never more threads than tasks. Use 1 for a sweep nested inside another sweep's
  /// task, so the outer one alone decides how many cores are busy.
  int threads = 0;

  /// Throws std::invalid_argument unless 0 <= threads <= kMaxSweepThreads.
  void validate() const;
};

/// The number of threads sweep() would use for `count` tasks: threads (or the hardware's
/// count when 0), capped at `count`, at least 1. Throws std::invalid_argument for invalid options.
int sweepThreadCount(std::size_t count, const SweepOptions& options);

/// Calls body(i) once for every i in [0, count) on sweepThreadCount() threads; indices are handed
/// out in increasing order by an atomic counter. An exception from body(i) is captured; no new
/// index is handed out after one, the threads finish what they hold and join, and then the
/// exception of the lowest failing index is rethrown — the same one the serial run (threads = 1)
/// throws, since every index below a failing one has already been handed out. If the system
/// refuses to start a thread, the indices run on the threads already started.
void forEachIndex(std::size_t count, const std::function<void(std::size_t)>& body, const SweepOptions& options);

/// Runs task(i) for i in [0, count) — in parallel, see forEachIndex() — and returns the results
/// in index order: result[i] = task(i), bitwise the same for any thread count when the tasks
/// follow the contract in this file's description. `task` is called concurrently from several
/// threads and must be safe to call so (a lambda that only reads what it captures by reference).
/// Rethrows the exception of the lowest failing index after every thread has joined; throws
/// std::invalid_argument for invalid options.
template <class Task>
auto sweep(std::size_t count, const Task& task, const SweepOptions& options = {})
    -> std::vector<std::decay_t<std::invoke_result_t<const Task&, std::size_t>>> {
  using Result = std::decay_t<std::invoke_result_t<const Task&, std::size_t>>;
  // One slot per index, so the results need no default constructor and no lock.
  std::vector<std::optional<Result>> slots(count);
  forEachIndex(count, [&](std::size_t i) { slots[i].emplace(task(i)); }, options);
  std::vector<Result> results;
  results.reserve(count);
  for (std::optional<Result>& slot : slots) results.push_back(std::move(*slot));
  return results;
}

}  // namespace kktdae
