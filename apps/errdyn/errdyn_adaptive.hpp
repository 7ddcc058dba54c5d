#pragma once
// kktdae-errdyn --adaptive: the Baumgarte gain cvode_bdf and ida_index1 want, measured on a grid
// of ω at several tolerances, against recommendBaumgarte (docs/notes/baumgarte-adaptive-gains.md).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/run_directory.hpp"
#include "kktdae/experiments/adaptive_gain_tuner.hpp"

namespace kktdae::apps {

/// The files --adaptive writes.
std::vector<std::string> adaptiveGainFiles();

/// What --adaptive runs, from its flags.
struct AdaptiveGainSettings {
  int threads = 0;                                   ///< 0 = all cores
  int ensemble = 3;                                  ///< runs per grid point (AdaptiveGainOptions::ensemble_size)
  std::vector<double> tolerances = {1e-5, 1e-7, 1e-10};  ///< rtol = atol of the scans
  /// --adaptive-tuner-only: run recommendBaumgarteForModel's scan (AdaptiveGainMode::Scan) for
  /// every case and write adaptive_tuned.csv, without the full scan (minutes instead of half an hour).
  bool tuner_only = false;
  /// The part of each case's run the tuner scans, from its start, in (0, 1]: 0.5 (the first half)
  /// is the out-of-sample check of a user who tunes on a short run; 1 separates it from the full
  /// scan by the grid offset alone.
  double tuner_horizon_fraction = 0.5;
  /// The tuner's refinement (AdaptiveGainTunerOptions::refine_per_decade; 0 = none).
  int tuner_refine_per_decade = AdaptiveGainTunerOptions{}.refine_per_decade;
};

/// Scans the double and triple pendulum, the circle, Andrews' squeezer and the car axis; writes
/// adaptive_gains.csv (every run) and adaptive_best.csv (best ω per model, integrator and
/// tolerance, with the rule's recommendation and the tuner's beside it, placed in the band), and
/// adaptive_tuned.csv (what the tuner measured); returns them as JSON and appends what to print
/// to `lines`. With tuner_only, only the tuner runs and only adaptive_tuned.csv is written.
///
/// The tuner is checked out of sample: it scans the first half of each run (a user tunes on a
/// short run and runs long) on gains 10^((k + 0.25)/4), none of them on the full scan's grid, so
/// it shares no run with the scan it is placed against.
nlohmann::json runAdaptiveGains(RunDirectory& dir, const AdaptiveGainSettings& settings, std::vector<std::string>& lines);

}  // namespace kktdae::apps
