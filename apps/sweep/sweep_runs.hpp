#pragma once
// One run of a sweep: its parameters → a model, a start and SimulationOptions → the library call →
// one row of results. A run that fails (numerically, or because its options are refused) is a row
// with that status and message, never an exception.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_file.hpp"

namespace kktdae::apps {

/// What one run produced: the row (the same bytes wherever it ran) and its wall time (kept apart).
struct SweepRow {
  std::size_t index = 0;
  nlohmann::json results;  ///< column name → value (null: no value, e.g. no reference)
  double wall_seconds = 0.0;
};

/// The result columns of `plan`'s rows, in file order (the parameter columns come before them).
std::vector<std::string> resultColumns(const SweepPlan& plan);

/// Runs plan.runs[index] (and its reference, computed once per distinct reference in this
/// process and shared by the threads through `cache`).
class SweepRunner {
 public:
  explicit SweepRunner(const SweepPlan& plan);
  ~SweepRunner();
  SweepRunner(const SweepRunner&) = delete;
  SweepRunner& operator=(const SweepRunner&) = delete;

  /// Safe to call from several threads at once. Never throws for a run's own trouble; throws
  /// std::runtime_error naming the run when it runs out of memory.
  SweepRow run(std::size_t index) const;

 private:
  struct Cache;
  const SweepPlan& plan_;
  std::unique_ptr<Cache> cache_;
};

}  // namespace kktdae::apps
