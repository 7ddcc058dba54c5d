#pragma once
// kktdae-errdyn --adaptive: the Baumgarte gain cvode_bdf and ida_index1 want, measured on a grid
// of ω at several tolerances, against recommendBaumgarte (docs/baumgarte.md §9).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/run_directory.hpp"

namespace kktdae::apps {

/// The files --adaptive writes.
std::vector<std::string> adaptiveGainFiles();

/// What --adaptive runs, from its flags.
struct AdaptiveGainSettings {
  int threads = 0;                                   ///< 0 = all cores
  int ensemble = 3;                                  ///< runs per grid point (AdaptiveGainOptions::ensemble_size)
  std::vector<double> tolerances = {1e-5, 1e-7, 1e-10};  ///< rtol = atol of the scans
};

/// Scans the double and triple pendulum, the circle, Andrews' squeezer and the car axis; writes
/// adaptive_gains.csv (every run) and adaptive_best.csv (best ω per model, integrator and
/// tolerance, with the recommendation); returns them as JSON and appends what to print to `lines`.
nlohmann::json runAdaptiveGains(RunDirectory& dir, const AdaptiveGainSettings& settings, std::vector<std::string>& lines);

}  // namespace kktdae::apps
