#include "testset/testset_cli.hpp"

#include <cmath>

#include "common/cli_validators.hpp"
#include "common/generalized_alpha_flags.hpp"
#include "common/number_format.hpp"

namespace kktdae::apps {
namespace {

/// One run's default cap: RK4 at a million steps of Andrews takes seconds, not minutes.
constexpr long kRunMaxSteps = 1000000;
/// The ladder's cap: its finest fixed-step rung (3e5 steps) runs, nothing past it.
constexpr long kLadderMaxSteps = 300000;

std::vector<std::string> problemChoices() {
  std::vector<std::string> names;
  for (TestSetProblem problem : allTestSetProblems()) names.emplace_back(toString(problem));
  return names;
}

Stabilization stabilizationOf(const TestSetFlags& flags) {
  if (flags.stabilization == "none") return Stabilization::none();
  if (flags.stabilization == "projection") return Stabilization::projection();
  return Stabilization::baumgarte(flags.alpha.value_or(0.0), flags.beta.value_or(0.0));
}

}  // namespace

void addTestSetFlags(CLI::App& app, TestSetFlags& flags) {
  app.add_option("--problem", flags.problem, "andrews: Andrews' squeezing mechanism; caraxis: the car axis; heavy_top: the heavy top built from a body; andrews_bodies: Andrews' squeezer from its 7 bodies")
      ->check(CLI::IsMember(problemChoices()))
      ->capture_default_str();
  app.add_option("--integrator", flags.integrator, "integrator of the single run (--ladder runs them all)")
      ->check(CLI::IsMember(integratorChoices()))
      ->capture_default_str();
  addGeneralizedAlphaFlags(app, flags.generalized_alpha);
  addToleranceFlags(app, flags.rtol, flags.atol);
  app.add_option("--dt", flags.dt,
                 "fixed-step integrators: the step [s]; must divide t_end (0.03 s andrews, 3 s caraxis) "
                 "(default t_end/1000)")
      ->check(finitePositive());
  app.add_option("--stabilization", flags.stabilization,
                 "fixed-step integrators: none, projection (after every step) or baumgarte (--alpha, --beta; "
                 "rattle, generalized_alpha and hht ignore the gains)")
      ->check(CLI::IsMember({"none", "projection", "baumgarte"}))
      ->capture_default_str();
  app.add_option("--alpha", flags.alpha, "Baumgarte damping alpha [1/s] (needs --stabilization baumgarte)")
      ->check(finitePositive());
  app.add_option("--beta", flags.beta, "Baumgarte frequency beta [rad/s] (needs --stabilization baumgarte)")
      ->check(finitePositive());
  app.add_option("--form", flags.form, "KKT form")->check(CLI::IsMember({"schur", "block"}))->capture_default_str();
  app.add_option("--max-steps", flags.max_steps,
                 "cap on a run's work: fixed steps allowed, adaptive internal steps (default 1000000; "
                 "--ladder 300000)")
      ->check(CLI::Range(1L, 100000000L));
  app.add_flag("--ladder", flags.ladder,
               "work-precision ladder: every integrator, tolerances 1e-4 ... 1e-12 (adaptive) or 300 ... "
               "300000 steps (fixed-step, up to --max-steps)");
  app.add_option("--repeats", flags.repeats, "--ladder: timed runs per rung; the median wall time is reported")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--out", flags.out, "output directory")->required();
}

TestSetSetup finishTestSetFlags(const TestSetFlags& flags, CLI::App& app) {
  TestSetSetup setup;
  setup.problem = parseTestSetProblem(flags.problem);
  setup.ladder = flags.ladder;
  setup.stabilization_name = flags.stabilization;
  const Integrator integrator = parseIntegrator(flags.integrator);
  const bool baumgarte = flags.stabilization == "baumgarte";
  if ((flags.alpha || flags.beta) && !baumgarte) {
    throw CLI::ValidationError(flags.alpha ? "--alpha" : "--beta", "needs --stabilization baumgarte");
  }
  if (baumgarte && !(flags.alpha && flags.beta)) {
    throw CLI::ValidationError("--stabilization", "baumgarte needs both --alpha and --beta");
  }
  KktOptions kkt;
  kkt.form = flags.form == "block" ? KktForm::Block : KktForm::Schur;
  const double t_end = makeTestSetCase(setup.problem).reference.t_end;

  if (flags.ladder) {
    for (const char* flag : {"--integrator", "--dt", "--rtol", "--atol"}) {
      if (app.count(flag) > 0) {
        throw CLI::ValidationError(flag, "--ladder runs every integrator over its own tolerances and steps");
      }
    }
    setup.ladder_options.fixed_stabilization = stabilizationOf(flags);
    setup.ladder_options.max_steps = flags.max_steps.value_or(kLadderMaxSteps);
    setup.ladder_options.timing_repeats = flags.repeats;
    setup.ladder_options.kkt = kkt;
    setup.ladder_options.generalized_alpha = flags.generalized_alpha;
    return setup;
  }
  if (app.count("--repeats") > 0) throw CLI::ValidationError("--repeats", "only --ladder repeats runs");

  requireGeneralizedAlphaFlagsApply(app, {integrator}, "--integrator " + flags.integrator);
  TestSetRunOptions& run = setup.run;
  run.integrator = integrator;
  run.generalized_alpha = flags.generalized_alpha;
  run.rtol = flags.rtol;
  run.atol = flags.atol;
  run.kkt = kkt;
  run.max_steps = flags.max_steps.value_or(kRunMaxSteps);
  if (isAdaptive(integrator)) {
    if (flags.dt) throw CLI::ValidationError("--dt", flags.integrator + " chooses its own steps (use --rtol, --atol)");
    if (app.count("--stabilization") > 0) {
      throw CLI::ValidationError("--stabilization", "fixed-step integrators only: " + flags.integrator +
                                                        " solves its formulation without feedback");
    }
  } else {
    const double dt = flags.dt.value_or(t_end / 1000.0);
    const double steps = std::round(t_end / dt);
    if (!(steps >= 1.0) || std::abs(steps * dt - t_end) > 1e-9 * t_end) {
      throw CLI::ValidationError("--dt", pythonRepr(dt) + " s does not divide t_end = " + pythonRepr(t_end) +
                                             " s into whole steps");
    }
    if (steps > static_cast<double>(run.max_steps)) {
      throw CLI::ValidationError("--dt", pythonRepr(dt) + " s takes " + pythonRepr(steps) + " steps, more than "
                                             "--max-steps " + std::to_string(run.max_steps));
    }
    run.fixed_steps = static_cast<long>(steps);
    run.stabilization = stabilizationOf(flags);
  }
  return setup;
}

}  // namespace kktdae::apps
