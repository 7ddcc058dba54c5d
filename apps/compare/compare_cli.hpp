#pragma once
// Flags of kktdae-compare and their translation into a work-precision setup.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kktdae/experiments/work_precision.hpp"

namespace kktdae::apps {

struct CompareFlags {
  std::string model = "chain";
  std::optional<int> links;     ///< chain only; 2 when not given
  std::optional<double> tilt;   ///< chain only; kDefaultTilt when not given
  double horizon = 2.0;
  std::string dts;              ///< comma list; empty: the per-integrator default sweeps
  std::string rtols;            ///< comma list; empty: 1e-3 … 1e-10
  std::string integrators;      ///< comma list; empty: all seven
  std::string form = "schur";
  std::string stabilization = "none";
  std::optional<double> alpha;  ///< baumgarte only
  std::optional<double> beta;   ///< baumgarte only
  int repeats = 3;
  double reference_rtol = 1e-12;
  /// Threads for the runs; 1 by default, since the wall-time column is a measurement.
  int threads = 1;
  std::string out;
  /// --event: a condition of the chain (event_condition.hpp's grammar) whose located times every
  /// run reports against the reference's; absent: none, the files unchanged.
  std::optional<std::string> event;
  /// --rho-inf, --hht-alpha: generalized_alpha's ρ∞ and hht's α (library defaults otherwise).
  GeneralizedAlphaOptions generalized_alpha;
};

/// The launch tilt of the default double pendulum [rad]: far enough from hanging straight down
/// that both links swing through large angles within 2 s (a hard, nonlinear test), near enough
/// to the start of seed 000's chapter to be the same kind of motion.
constexpr double kDefaultTilt = 0.1;

/// What the flags ask for, ready for runWorkPrecision.
struct CompareSetup {
  std::string model;  ///< "chain" or "circle"
  int links = 0;      ///< chain only
  double tilt = 0.0;  ///< chain only
  std::vector<Integrator> integrators;
  std::vector<WorkPrecisionCase> cases;  ///< grouped by integrator, in the order of `integrators`
  WorkPrecisionOptions options;
  std::string event;  ///< --event as given (checked against the chain); empty without it
};

/// Registers every flag on `app`; CLI11's validators turn bad values into usage errors.
void addCompareFlags(CLI::App& app, CompareFlags& flags);

/// Checks what the validators cannot (lists, flags that only fit one model, one stabilization or
/// one integrator; `app` says which flags were given) and builds the setup; throws
/// CLI::ValidationError naming the flag.
CompareSetup finishCompareFlags(const CompareFlags& flags, const CLI::App& app);

/// Parses "a,b,c" into finite numbers > 0; throws CLI::ValidationError naming `flag`.
std::vector<double> parsePositiveList(const std::string& flag, const std::string& text);

}  // namespace kktdae::apps
