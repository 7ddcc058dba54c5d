#pragma once
// What kktdae-testset prints and writes: one run's metrics.json and timing.json; the ladder's
// ladder.csv, ladder.json, work_precision.png (deterministic) and timing_ladder.csv,
// timing.json, timing_work_precision.png (wall times).

#include <filesystem>
#include <string>
#include <vector>

#include "common/gnuplot.hpp"
#include "common/run_directory.hpp"
#include "kktdae/experiments/test_set.hpp"

namespace kktdae::apps {

/// One line per run: integrator, setting, status, scd, mescd, steps, evaluations.
std::string formatRunLine(const TestSetRunResult& result);

/// metrics.json (deterministic) and timing.json (wall time) of one run made with `options`.
void writeRunFiles(RunDirectory& out, const TestSetCase& problem, const TestSetRunOptions& options,
                   const TestSetRunResult& result);

/// The ladder's table, one row per rung.
std::string formatLadderTable(const std::vector<TestSetLadderRow>& rows);

/// ladder.csv, ladder.json, timing_ladder.csv, timing.json and both plots; returns how each plot
/// ended (one NothingToDraw when no run reached t_end).
std::vector<PlotOutcome> writeLadderFiles(RunDirectory& out, const TestSetCase& problem,
                                          const TestSetLadderOptions& options,
                                          const std::vector<TestSetLadderRow>& rows);

}  // namespace kktdae::apps
