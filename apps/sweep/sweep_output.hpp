#pragma once
// The sweep's files and its table: sweep.csv and sweep.json (the same bytes for any rank and
// thread count), timing.csv and timing.json (the machine's measurements, kept apart).

#include <filesystem>
#include <string>
#include <vector>

#include "common/run_directory.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_runs.hpp"

namespace kktdae::apps {

/// Where each run ran: kept with its wall time, never in the row itself.
struct RunPlace {
  int rank = 0;
  int attempt = 1;  ///< 1 for the first job, k for the (k − 1)-th --resume
};

/// sweep.csv: index, the varied parameters, then resultColumns(plan). A missing value is an
/// empty field (the status column says why), never "nan". `rows` is in index order.
std::string sweepCsv(const SweepPlan& plan, const std::vector<SweepRow>& rows);

/// sweep.json: the plan's name, model, measure and varied parameters, and one object per run
/// with every parameter and result (null for a missing value), plus the runs per status.
nlohmann::json sweepJson(const SweepPlan& plan, const std::vector<SweepRow>& rows);

/// The table printed on stdout: runs per status (and per behaviour for a stability sweep), by
/// each combination of the varied named choices (integrator, stabilization, …). Depends only on
/// the rows, so it is the same for any rank and thread count.
std::string summaryTable(const SweepPlan& plan, const std::vector<SweepRow>& rows);

/// Writes sweep.csv, sweep.json, timing.csv and timing.json into `dir`, each whole or not at all.
/// `places[i]` is where rows[i] ran; `wall_seconds` is this job's wall clock.
void writeSweepFiles(RunDirectory& dir, const SweepPlan& plan, const std::vector<SweepRow>& rows,
                     const std::vector<RunPlace>& places, int ranks, int threads, double wall_seconds);

}  // namespace kktdae::apps
