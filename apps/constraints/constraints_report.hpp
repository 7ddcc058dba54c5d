#pragma once
// What kktdae-constraints prints and writes for a finished comparison.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/run_directory.hpp"
#include "constraints/constraints_cli.hpp"
#include "kktdae/experiments/chain_comparison.hpp"

namespace kktdae::apps {

/// Everything the report needs besides the results themselves.
struct ConstraintsRun {
  const ConstraintsFlags* flags = nullptr;
  std::string system_name;  ///< "pendulum"/"double"/"triple" for 1–3 links, else "chain"
  int links = 0;
  long steps = 0;
  double tilt = 0.0;
  double energy_scale = 0.0;
  RunDirectory* dir = nullptr;  ///< where every file goes
};

/// Every file kktdae-constraints may write, in any mode: the run directory removes them all
/// before a run, so a --seeds run never leaves an earlier single run's recording beside its rows.
std::vector<std::string> constraintsFiles();

/// What writing the recording and its plots gave: the lines to print and how it ended (Failed
/// when a plot could not be rendered, Interrupted when a signal arrived while it was).
struct RecordingOutcome {
  std::vector<std::string> lines;
  RunOutcome outcome = RunOutcome::Complete;
};

/// The chapter's table and verdict line (stdout), with a divergence note where a mode failed.
std::string formatTable(const ConstraintsRun& run, const std::vector<ChainModeResult>& results);

/// metrics.json: seed 000's keys and rounding plus links, tilt, form and per-mode status.
void writeMetrics(const ConstraintsRun& run, const std::vector<ChainModeResult>& results);

/// timing.json: wall-clock per mode (kept out of metrics.json, which must be reproducible).
void writeTiming(const ConstraintsRun& run, const std::vector<ChainModeResult>& results);

/// recording.csv (one row per step, four columns per mode) and the plots.
RecordingOutcome writeRecording(const ConstraintsRun& run, const std::vector<ChainModeResult>& results);

/// One seed's run in a --seeds sweep: the chapter's comparison from that seed's launch tilt.
struct SeedRun {
  std::uint64_t seed = 0;
  double tilt = 0.0;
  std::vector<ChainModeResult> results;
};

/// The sweep's short table (stdout): per mode the lowest and highest of the chapter's numbers
/// over the seeds and how many diverged, then for how many seeds the chapter's verdict held.
std::string formatSeedTable(const ConstraintsRun& run, const std::vector<SeedRun>& runs, int threads);

/// seeds.csv (every digit) and seeds.json (metrics.json's settings, and per seed its tilt and
/// metrics.json's "results"): one row per seed, in the order of --seeds; the same bytes for any
/// thread count.
void writeSeedRows(const ConstraintsRun& run, const std::vector<SeedRun>& runs);

/// seeds_timing.json: the sweep's wall clock, its thread count and the runs' own wall times
/// (kept out of seeds.json, which must be reproducible).
void writeSeedTiming(const ConstraintsRun& run, const std::vector<SeedRun>& runs, int threads, double wall_seconds);

}  // namespace kktdae::apps
