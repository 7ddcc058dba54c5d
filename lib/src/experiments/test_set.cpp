#include "kktdae/experiments/test_set.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <spdlog/spdlog.h>

#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/formulation.hpp"
#include "kktdae/metrics/significant_digits.hpp"
#include "kktdae/models/andrews_squeezer.hpp"
#include "kktdae/models/car_axis.hpp"
#include "kktdae/multibody/andrews_mechanism.hpp"
#include "kktdae/multibody/heavy_top_mechanism.hpp"

namespace kktdae {

std::string_view toString(TestSetProblem problem) {
  switch (problem) {
    case TestSetProblem::Andrews: return "andrews";
    case TestSetProblem::CarAxis: return "caraxis";
    case TestSetProblem::HeavyTop: return "heavy_top";
    case TestSetProblem::AndrewsBodies: return "andrews_bodies";
  }
  return "unknown";
}

const std::vector<TestSetProblem>& allTestSetProblems() {
  static const std::vector<TestSetProblem> all = {TestSetProblem::Andrews, TestSetProblem::CarAxis,
                                                  TestSetProblem::HeavyTop, TestSetProblem::AndrewsBodies};
  return all;
}

TestSetProblem parseTestSetProblem(std::string_view name) {
  std::string choices;
  for (TestSetProblem problem : allTestSetProblems()) {
    if (toString(problem) == name) return problem;
    choices += (choices.empty() ? "" : ", ") + std::string(toString(problem));
  }
  throwInvalid("problem", "unknown name '" + std::string(name) + "' (choices: " + choices + ")");
  return TestSetProblem::Andrews;  // not reached
}

namespace {

/// The heavy top from bodies: no published end state, only the displacement at t = 2 s.
TestSetCase heavyTopCase() {
  TestSetCase c;
  c.problem = TestSetProblem::HeavyTop;
  const HeavyTopParams params;
  auto top = std::make_shared<multibody::Mechanism>(multibody::heavyTopMechanism(params));
  c.start.state = multibody::heavyTopMechanismStart(*top);
  c.reference.source = "Brüls, Cardona, Arnold, Mech. Mach. Theory 48 (2012): the displacement R X - X at t = 2 s";
  c.reference.t_end = 2.0;
  c.scored = [top, params](ConstVectorRef q) -> Vector { return multibody::heavyTopDisplacement(*top, params, q); };
  c.scored_reference = HeavyTop::kReferenceDisplacement;
  c.scored_name = "displacement";
  c.system = std::move(top);
  c.title = "heavy top from a body (Bruls, Cardona, Arnold 2012), t in [0, 2] s";
  return c;
}

/// Andrews' squeezer from bodies, scored as the Test Set scores it: on its 7 angles, derived
/// from the body coordinates.
TestSetCase andrewsBodiesCase() {
  TestSetCase c;
  c.problem = TestSetProblem::AndrewsBodies;
  const AndrewsSqueezerParams params;
  auto mechanism = std::make_shared<multibody::Mechanism>(multibody::andrewsMechanism(params));
  c.start.state = multibody::andrewsBodyState(params, andrewsSqueezerStart().state);
  c.reference = andrewsSqueezerReference();
  c.scored = [mechanism](ConstVectorRef q) -> Vector { return multibody::andrewsAngles(*mechanism, q); };
  c.scored_reference = c.reference.q.head(7);
  c.scored_name = "angles";
  c.system = std::move(mechanism);
  c.title = "Andrews' squeezing mechanism from 7 bodies and 10 joints (IVP Test Set), t in [0, 0.03] s";
  return c;
}

}  // namespace

TestSetCase makeTestSetCase(TestSetProblem problem) {
  TestSetCase c;
  c.problem = problem;
  switch (problem) {
    case TestSetProblem::Andrews:
      c.system = std::make_shared<AndrewsSqueezer>();
      c.start = andrewsSqueezerStart();
      c.reference = andrewsSqueezerReference();
      c.title = "Andrews' squeezing mechanism (IVP Test Set), t in [0, 0.03] s";
      break;
    case TestSetProblem::CarAxis:
      c.system = std::make_shared<CarAxis>();
      c.start = carAxisStart();
      c.reference = carAxisReference();
      c.title = "car axis (IVP Test Set), t in [0, 3] s";
      break;
    case TestSetProblem::HeavyTop:
      c = heavyTopCase();
      break;
    case TestSetProblem::AndrewsBodies:
      c = andrewsBodiesCase();
      break;
  }
  return c;
}

void TestSetRunOptions::validate() const {
  if (!isAdaptive(integrator) && fixed_steps < 1) {
    throwInvalid("fixed_steps", "must be >= 1, got " + std::to_string(fixed_steps));
  }
  if (max_steps < 1) throwInvalid("max_steps", "must be >= 1, got " + std::to_string(max_steps));
  if (!isAdaptive(integrator) && fixed_steps > max_steps) {
    throwInvalid("fixed_steps", std::to_string(fixed_steps) + " steps exceed max_steps = " +
                                    std::to_string(max_steps) + " (raise the cap to run them)");
  }
  // Fixed-step runs need them too: atol/rtol is mescd's floor.
  requirePositive("rtol", rtol);
  requirePositive("atol", atol);
  stabilization.validate();
  kkt.validate();
  generalized_alpha.validate();
}

TestSetRunResult runTestSet(const TestSetCase& problem, const TestSetRunOptions& options) {
  options.validate();
  const ReferenceSolution& ref = problem.reference;
  const bool adaptive = isAdaptive(options.integrator);

  SimulationOptions sim;
  sim.integrator = options.integrator;
  sim.kkt = options.kkt;
  sim.generalized_alpha = options.generalized_alpha;
  sim.interrupt = options.interrupt;
  if (adaptive) {
    // One output interval ending at t_end, hit exactly: the end state is a true step of the
    // solver, not an interpolation.
    sim.dt = ref.t_end - problem.start.state.t;
    sim.steps = 1;
    sim.adaptive.rtol = options.rtol;
    sim.adaptive.atol = options.atol;
    sim.adaptive.max_steps = options.max_steps;
    sim.adaptive.stop_at_outputs = true;
    sim.stabilization = Stabilization::none();
  } else {
    sim.dt = (ref.t_end - problem.start.state.t) / static_cast<double>(options.fixed_steps);
    sim.steps = options.fixed_steps;
    // RATTLE holds φ = 0 and J q̇ = 0 itself and refuses a projection after its steps.
    sim.stabilization = options.integrator == Integrator::Rattle ? Stabilization::none() : options.stabilization;
    // Only the end state is scored; observing every step would cost a callback per step.
    sim.observe_every = options.fixed_steps;
  }

  TestSetRunResult result;
  result.integrator = options.integrator;
  result.formulation = describeFormulation(options.integrator, sim.stabilization);
  result.rtol = options.rtol;
  result.atol = options.atol;
  result.dt = adaptive ? 0.0 : sim.dt;
  double t_last = problem.start.state.t;
  result.summary = simulate(*problem.system, problem.start.state, sim,
                            [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                              t_last = t;
                              result.q = q;
                              result.v = v;
                              result.lambda = lambda;
                            });
  result.lambda_source = ref.lambda_to_source * result.lambda;
  // A fixed-step grid reaches t_end up to the rounding of steps·dt.
  result.reached_end = result.summary.ok() && result.q.size() == problem.system->nq() &&
                       std::abs(t_last - ref.t_end) <= 1e-12 * std::max(1.0, ref.t_end) &&
                       result.q.allFinite() && result.v.allFinite();
  if (result.reached_end && problem.scored) {
    result.scored = problem.scored(result.q);
    result.scd = significantCorrectDigits(result.scored, problem.scored_reference);
    result.mescd = mixedErrorSignificantDigits(result.scored, problem.scored_reference, options.rtol, options.atol);
    result.scd_velocity = std::numeric_limits<double>::quiet_NaN();  // no reference velocity
  } else if (result.reached_end) {
    const int k = ref.scored_components;
    result.scd = significantCorrectDigits(result.q.head(k), ref.q.head(k));
    result.mescd = mixedErrorSignificantDigits(result.q.head(k), ref.q.head(k), options.rtol, options.atol);
    result.scd_velocity = significantCorrectDigits(result.v, ref.v);
  }
  spdlog::debug("test set {}: {} -> {} (scd {})", toString(problem.problem), toString(options.integrator),
                result.summary.briefReport(), result.scd);
  return result;
}

void TestSetLadderOptions::validate() const {
  for (double tolerance : tolerances) requirePositive("tolerances", tolerance);
  for (long steps : fixed_steps) {
    if (steps < 1) throwInvalid("fixed_steps", "every entry must be >= 1, got " + std::to_string(steps));
  }
  if (max_steps < 1) throwInvalid("max_steps", "must be >= 1, got " + std::to_string(max_steps));
  if (timing_repeats < 1) throwInvalid("timing_repeats", "must be >= 1, got " + std::to_string(timing_repeats));
  fixed_stabilization.validate();
  kkt.validate();
  generalized_alpha.validate();
}

std::vector<TestSetLadderRow> runTestSetLadder(const TestSetCase& problem, const TestSetLadderOptions& options) {
  options.validate();
  const std::vector<Integrator>& integrators = options.integrators.empty() ? allIntegrators() : options.integrators;
  std::vector<TestSetLadderRow> rows;
  for (Integrator integrator : integrators) {
    std::vector<TestSetRunOptions> rungs;
    TestSetRunOptions base;
    base.integrator = integrator;
    base.stabilization = options.fixed_stabilization;
    base.max_steps = options.max_steps;
    base.kkt = options.kkt;
    base.generalized_alpha = options.generalized_alpha;
    base.interrupt = options.interrupt;
    if (isAdaptive(integrator)) {
      for (double tolerance : options.tolerances) {
        base.rtol = base.atol = tolerance;
        rungs.push_back(base);
      }
    } else {
      for (long steps : options.fixed_steps) {
        if (steps > options.max_steps) continue;
        base.fixed_steps = steps;
        rungs.push_back(base);
      }
    }
    for (const TestSetRunOptions& rung : rungs) {
      TestSetLadderRow row;
      std::vector<double> walls;
      for (int repeat = 0; repeat < options.timing_repeats; ++repeat) {
        try {
          row.result = runTestSet(problem, rung);
        } catch (const std::invalid_argument& error) {
          // The integrator refuses this problem (e.g. a method for constant M): a row that says why.
          row.result = TestSetRunResult{};
          row.result.integrator = integrator;
          row.result.rtol = rung.rtol;
          row.result.atol = rung.atol;
          row.result.dt = isAdaptive(integrator) ? 0.0 : problem.reference.t_end / static_cast<double>(rung.fixed_steps);
          row.result.formulation =
              describeFormulation(integrator, isAdaptive(integrator) || integrator == Integrator::Rattle ? Stabilization::none()
                                                                                                : rung.stabilization);
          row.result.summary.integrator = integrator;
          row.refusal = error.what();
          break;
        }
        if (row.result.summary.status == RunStatus::Interrupted) return rows;  // stopped mid-rung
        walls.push_back(row.result.summary.wall_seconds);
      }
      if (!walls.empty()) {
        std::nth_element(walls.begin(), walls.begin() + static_cast<long>(walls.size() / 2), walls.end());
        row.wall_seconds = walls[walls.size() / 2];
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace kktdae
