#pragma once
// The stability maps of kktdae-errdyn: CSV and gnuplot heat maps with the derived limit drawn in.

#include <filesystem>
#include <string>
#include <vector>

#include "common/gnuplot.hpp"
#include "common/run_directory.hpp"
#include "kktdae/experiments/stability_map.hpp"

namespace kktdae::apps {

/// "map_<integrator>_<model>": the stem of one map's .csv, .gp and .png.
std::string stabilityMapStem(const std::string& integrator, const std::string& model);

/// What writing one map gave: the lines to print and the plot's outcome.
struct MapOutcome {
  std::vector<std::string> lines;
  PlotOutcome plot;
};

/// Writes map_<integrator>_<model>.csv (dt, omega, dt_omega, behaviour code and name) and the
/// heat map .gp/.png next to it.
MapOutcome writeStabilityMap(RunDirectory& dir, const std::string& integrator, const std::string& model,
                             double derived_limit, const std::vector<StabilityCell>& cells);

/// `count` values from `first` to `last`, evenly spaced in log scale.
std::vector<double> logSpace(double first, double last, int count);

}  // namespace kktdae::apps
