#pragma once
// What kktdae-constraints prints and writes for a finished comparison.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

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
  std::filesystem::path out;
};

/// The chapter's table and verdict line (stdout), with a divergence note where a mode failed.
std::string formatTable(const ConstraintsRun& run, const std::vector<ChainModeResult>& results);

/// metrics.json: seed 000's keys and rounding plus links, tilt, form and per-mode status.
void writeMetrics(const ConstraintsRun& run, const std::vector<ChainModeResult>& results);

/// timing.json: wall-clock per mode (kept out of metrics.json, which must be reproducible).
void writeTiming(const ConstraintsRun& run, const std::vector<ChainModeResult>& results);

/// recording.csv (one row per step, four columns per mode) and the plots; returns lines to print.
std::vector<std::string> writeRecording(const ConstraintsRun& run, const std::vector<ChainModeResult>& results);

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
