#pragma once
// The sweep file: a JSON document naming a model, the parameters every run shares, and the axes
// (or a listed set of runs) that vary; parsed, validated strictly and expanded into one flat
// parameter set per run (docs/parallel-sweeps.md § "The sweep file").

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kktdae::apps {

/// What each run measures.
enum class SweepMeasure {
  Run,        ///< one simulate() from the model's start: counters, φ, energy (and error vs a reference)
  Stability,  ///< one cell of runStabilityMap(): what the constraint error does at (dt, ω, ζ)
};

/// Most runs one sweep file may expand to: a typo in a range should be an error, not a week of
/// computing.
constexpr std::size_t kMaxSweepRuns = 1000000;

/// Most steps one run may take, given as "steps" or as a horizon (round(horizon / dt)): the
/// bound every integer parameter has.
constexpr long long kMaxSweepRunSteps = 1000000000;

/// A parsed and expanded sweep file.
struct SweepPlan {
  std::string name;              ///< "name", or the file's stem
  std::string model;             ///< chain, circle, four_bar, slider_crank
  SweepMeasure measure = SweepMeasure::Run;
  std::vector<std::string> varied;  ///< the parameters that change between runs, sorted
  /// Run i's parameters, every known parameter of the model resolved (defaults filled in).
  std::vector<nlohmann::json> runs;
  /// The reference run's overrides ("reference"), applied on top of each run's parameters; absent
  /// without a reference.
  std::optional<nlohmann::json> reference;
};

/// Parses `text` (the content of a sweep file called `source` in messages). Throws
/// std::invalid_argument naming the key and the value for invalid JSON (parseStrictJson: a key
/// twice in one object, nesting too deep, a number out of range), unknown keys, wrong types,
/// values out of range, an adaptive integrator for measure "stability", empty axes, a parameter
/// given twice, more than kMaxSweepRuns runs, or a run (or its reference) longer than
/// kMaxSweepRunSteps.
SweepPlan parseSweepFile(const std::string& text, const std::string& source);

/// Reads and parses the file at `path`; throws std::invalid_argument when it cannot be read.
SweepPlan readSweepFile(const std::filesystem::path& path);

/// The canonical text of run i's parameters (sorted keys, shortest round-trip numbers): what a
/// journal row is matched against on --resume.
std::string runKey(const SweepPlan& plan, std::size_t index);

/// The parameters of the run's reference: run i's parameters with plan.reference applied.
nlohmann::json referenceParameters(const SweepPlan& plan, std::size_t index);

}  // namespace kktdae::apps
