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

/// Scans the double and triple pendulum, the circle, Andrews' squeezer and the car axis; writes
/// adaptive_gains.csv (every run) and adaptive_best.csv (best ω per model, integrator and
/// tolerance, with the recommendation); returns them as JSON and appends what to print to `lines`.
nlohmann::json runAdaptiveGains(RunDirectory& dir, int threads, std::vector<std::string>& lines);

}  // namespace kktdae::apps
