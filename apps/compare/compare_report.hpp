#pragma once
// What kktdae-compare prints and writes: the table, compare.csv, compare.json and the
// work-precision diagram.

#include <filesystem>
#include <string>
#include <vector>

#include "common/gnuplot.hpp"
#include "common/run_directory.hpp"
#include "compare/compare_cli.hpp"
#include "kktdae/experiments/work_precision.hpp"

namespace kktdae::apps {

/// One comparison as run: the setup, the model's description and the library's report.
struct CompareRun {
  const CompareSetup* setup = nullptr;
  std::string model_title;  ///< e.g. "double pendulum (2 links, 1 kg, 1 m), tilt 0.1 rad"
  WorkPrecisionReport report;
};

/// The reference line(s) and one table row per run.
std::string formatTable(const CompareRun& run);

/// Every file kktdae-compare writes. compare.*, work_precision.* hold only reproducible numbers
/// (the same command gives the same bytes); timing.* hold the measured wall times.
std::vector<std::string> compareFiles();

/// compare.csv: one row per run with every reproducible number; a value a failed run does not
/// have is an empty field (its status and message are in their columns).
void writeCsv(RunDirectory& dir, const CompareRun& run);

/// compare.json: the setup, the reference and its cross-check, and the rows (no wall times).
void writeCompareJson(RunDirectory& dir, const CompareRun& run);

/// timing.csv (per run: its setting, error at T, work counters and median wall time) and
/// timing.json (the reference's wall time, the thread count and every run's wall time).
void writeTiming(RunDirectory& dir, const CompareRun& run);

/// work_precision.gp/.png (error against right-hand-side evaluations, from compare.csv) and
/// timing.gp/.png (error against wall time, from timing.csv).
std::vector<PlotOutcome> writePlots(RunDirectory& dir, const CompareRun& run);

}  // namespace kktdae::apps
