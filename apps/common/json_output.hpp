#pragma once
// JSON files laid out as Python's json.dumps(indent=2, sort_keys=True) lays them out.

#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/run_directory.hpp"

namespace kktdae::apps {

/// A number rounded as seed 000's metrics are (round(x, 12)); non-finite values become null,
/// since JSON has no NaN (seed 000's Python wrote a bare NaN, which strict parsers reject).
nlohmann::json metricNumber(double value);

/// A number with every digit kept (errors reach 1e-13, where rounding to 12 decimals would leave
/// nothing), or null when not finite.
nlohmann::json exactNumberOrNull(double value);

/// Writes `document` with two-space indentation, keys sorted, and a trailing newline, atomically.
void writeJson(const std::filesystem::path& path, const nlohmann::json& document);

/// The same, into a run directory (published and recorded for the manifest).
void writeJson(RunDirectory& dir, const std::string& name, const nlohmann::json& document);

}  // namespace kktdae::apps
