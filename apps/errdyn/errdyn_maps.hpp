#pragma once
// The stability maps of kktdae-errdyn: CSV and gnuplot heat maps with the derived limit drawn in.

#include <filesystem>
#include <string>
#include <vector>

#include "kktdae/experiments/stability_map.hpp"

namespace kktdae::apps {

/// Writes map_<integrator>_<model>.csv (dt, omega, dt_omega, behaviour code and name) and the
/// heat map .gp/.png next to it; returns the lines to print.
std::vector<std::string> writeStabilityMap(const std::filesystem::path& dir, const std::string& integrator,
                                           const std::string& model, double derived_limit,
                                           const std::vector<StabilityCell>& cells);

/// `count` values from `first` to `last`, evenly spaced in log scale.
std::vector<double> logSpace(double first, double last, int count);

}  // namespace kktdae::apps
