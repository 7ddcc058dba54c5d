#pragma once
// Flags of kktdae-testset and their translation into the library's test-set options.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "kktdae/experiments/test_set.hpp"

namespace kktdae::apps {

struct TestSetFlags {
  std::string problem = "andrews";
  std::string integrator = "ida_index1";
  double rtol = 1e-7;
  double atol = 1e-7;
  std::optional<double> dt;        ///< fixed-step only; default t_end / 1000
  std::string stabilization = "projection";
  std::optional<double> alpha;     ///< baumgarte only
  std::optional<double> beta;      ///< baumgarte only
  std::string form = "schur";
  std::optional<long> max_steps;   ///< default 1e6 (one run) or 3e5 (ladder)
  bool ladder = false;
  int repeats = 1;
  std::string out;
  /// --rho-inf, --hht-alpha: generalized_alpha's ρ∞ and hht's α (library defaults otherwise).
  GeneralizedAlphaOptions generalized_alpha;
};

/// What the flags ask for.
struct TestSetSetup {
  TestSetProblem problem = TestSetProblem::Andrews;
  bool ladder = false;
  TestSetRunOptions run;        ///< one run (ladder: unused)
  TestSetLadderOptions ladder_options;
  std::string stabilization_name;  ///< as given, for the files
};

/// Registers every flag on `app`.
void addTestSetFlags(CLI::App& app, TestSetFlags& flags);

/// Checks what the validators cannot (--dt dividing t_end into at most --max-steps steps, flags
/// that fit only fixed-step integrators or only Baumgarte) and builds the setup; throws
/// CLI::ValidationError naming the flag.
TestSetSetup finishTestSetFlags(const TestSetFlags& flags, CLI::App& app);

}  // namespace kktdae::apps
