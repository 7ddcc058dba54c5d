// RATTLE: on both manifolds after every step, bounded second-order energy error, and an
// area-preserving step map (which RK4 + projection does not have).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <iomanip>

#include "kktdae/kktdae.hpp"
#include "support/test_models.hpp"

using namespace kktdae;

namespace {

/// Drives a stepper as the fixed-step driver does (step, optional projection, settle) and calls
/// `each` after every settled step. Returns false at the first failed step.
bool runSteps(FixedStepper& stepper, const ConstrainedSystem& system, State& state, double dt, long steps,
              bool project, const std::function<void(long, const State&)>& each = {}) {
  REQUIRE(stepper.reset(state).ok());
  ProjectionWorkspace projection_ws(system);
  const double t0 = state.t;
  for (long k = 1; k <= steps; ++k) {
    const StepReport report = stepper.step(state, dt);
    if (!report.ok()) {
      UNSCOPED_INFO("step " << k << ": " << report.kkt.message << report.message);
      return false;
    }
    state.t = t0 + static_cast<double>(k) * dt;
    if (project && !projectToManifold(system, state, ProjectionOptions{}, projection_ws).converged) return false;
    if (!stepper.settle(state).ok()) return false;
    if (each) each(k, state);
  }
  return true;
}

std::unique_ptr<FixedStepper> rattle(const ConstrainedSystem& system, KktOptions kkt = {}, RattleOptions rattle = {}) {
  FixedStepperSetup setup;
  setup.integrator = Integrator::Rattle;
  setup.kkt = kkt;
  setup.rattle = rattle;
  return makeFixedStepper(system, setup);
}

/// max |E − E₀| over [first, last) of a double-pendulum RATTLE run, in tenths of the run.
struct EnergyErrorTenths {
  double first_tenth = 0.0, last_tenth = 0.0, overall = 0.0;
};

EnergyErrorTenths energyErrors(double dt, long steps) {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  State state = chain.initialState(0.1);
  const double e0 = chain.totalEnergy(state.q, state.v, state.t);
  EnergyErrorTenths result;
  auto stepper = rattle(chain);
  REQUIRE(runSteps(*stepper, chain, state, dt, steps, false, [&](long k, const State& s) {
    const double error = std::abs(chain.totalEnergy(s.q, s.v, s.t) - e0);
    result.overall = std::max(result.overall, error);
    if (k <= steps / 10) result.first_tenth = std::max(result.first_tenth, error);
    if (k > steps - steps / 10) result.last_tenth = std::max(result.last_tenth, error);
  }));
  return result;
}

/// (θ, θ̇) of a planar single pendulum at the pivot, from Cartesian (x, y) and (ẋ, ẏ).
Eigen::Vector2d angleState(const State& s) {
  const double x = s.q[0], y = s.q[1];
  return {std::atan2(y, x), (x * s.v[1] - y * s.v[0]) / (x * x + y * y)};
}

/// The Cartesian state on the manifold of a unit pendulum at angle θ, rate θ̇.
State cartesianState(double theta, double theta_dot) {
  State s;
  s.q = Vector::Zero(3);
  s.v = Vector::Zero(3);
  s.q << std::cos(theta), std::sin(theta), 0.0;
  s.v << -std::sin(theta) * theta_dot, std::cos(theta) * theta_dot, 0.0;
  return s;
}

/// det of the Jacobian of the n-step map (θ, θ̇) → (θ, θ̇), by central differences of width ε:
/// the factor by which the map scales the area of a small set of nearby initial states.
double stepMapAreaFactor(Integrator integrator, double dt, long steps) {
  const PendulumChain pendulum(PendulumChainParams::uniform(1));
  const double theta0 = -0.4, rate0 = 1.5, eps = 1e-5;
  auto map = [&](double theta, double rate) {
    State s = cartesianState(theta, rate);
    FixedStepperSetup setup;
    setup.integrator = integrator;
    auto stepper = makeFixedStepper(pendulum, setup);
    REQUIRE(runSteps(*stepper, pendulum, s, dt, steps, integrator != Integrator::Rattle));
    return angleState(s);
  };
  const Eigen::Vector2d d_theta = (map(theta0 + eps, rate0) - map(theta0 - eps, rate0)) / (2 * eps);
  const Eigen::Vector2d d_rate = (map(theta0, rate0 + eps) - map(theta0, rate0 - eps)) / (2 * eps);
  return d_theta[0] * d_rate[1] - d_theta[1] * d_rate[0];
}

}  // namespace

TEST_CASE("rattle: every step holds |phi| <= the Newton tolerance and |J qdot| at round-off, dense and sparse",
          "[integrators][rattle]") {
  struct Case {
    int links;
    KktPath path;
    KktForm form;
  };
  for (const Case c : {Case{2, KktPath::Dense, KktForm::Schur}, Case{2, KktPath::Dense, KktForm::Block},
                       Case{20, KktPath::Sparse, KktForm::Schur}, Case{20, KktPath::Dense, KktForm::Schur}}) {
    const PendulumChain chain(PendulumChainParams::uniform(c.links));
    KktOptions kkt;
    kkt.path = c.path;
    kkt.form = c.form;
    RattleOptions options;
    options.newton_tolerance = 1e-11;
    auto stepper = rattle(chain, kkt, options);
    REQUIRE(stepper->terms().sparse == (c.path == KktPath::Sparse));
    State state = chain.initialState(0.3);
    double max_phi = 0.0, max_rate = 0.0, max_speed = 0.0, max_recorded_rate = 0.0;
    Vector phi(chain.nc());
    Matrix J(chain.nc(), chain.nq());
    REQUIRE(runSteps(*stepper, chain, state, 0.005, 1000, false, [&](long, const State& s) {
      chain.constraint(s.q, s.t, phi);
      chain.constraintJacobian(s.q, s.t, J);
      max_phi = std::max(max_phi, phi.lpNorm<Eigen::Infinity>());
      max_rate = std::max(max_rate, (J * s.v).lpNorm<Eigen::Infinity>());
      max_speed = std::max(max_speed, s.v.lpNorm<Eigen::Infinity>());
      // What the driver records from terms() is the same quantity.
      max_recorded_rate = std::max(max_recorded_rate, stepper->terms().phi_dot.lpNorm<Eigen::Infinity>());
    }));
    INFO(c.links << " links: max |phi| " << max_phi << ", max |J v| " << max_rate << ", max |v| " << max_speed
                 << ", Newton iterations " << stepper->newtonIterations());
    CHECK(max_phi <= options.newton_tolerance);
    // J q̇ after an exact linear projection: round-off of a sum of nq products of |d| ~ L and |v|.
    CHECK(max_rate <= 64 * std::numeric_limits<double>::epsilon() * c.links * max_speed);
    CHECK(max_recorded_rate <= 64 * std::numeric_limits<double>::epsilon() * c.links * max_speed);
    CHECK(stepper->newtonIterations() >= 1000);  // it did iterate: q* is off the manifold by O(dt²)
  }
}

TEST_CASE("rattle: the double pendulum's energy error stays bounded over 1e5 steps at dt 0.005 (no linear trend)",
          "[integrators][rattle][energy]") {
  const EnergyErrorTenths e = energyErrors(0.005, 100000);
  INFO("first tenth " << e.first_tenth << ", last tenth " << e.last_tenth << ", overall " << e.overall);
  // A linear drift would make the last tenth's maximum ~10x the first's; a bounded oscillation keeps them alike.
  CHECK(e.last_tenth < 2.0 * e.first_tenth);
  CHECK(e.overall < 3.0 * e.first_tenth);
  CHECK(e.first_tenth > 0.0);
}

TEST_CASE("rattle: the energy error scales as dt^2 (halving dt divides it by about 4)", "[integrators][rattle][energy]") {
  const double horizon = 10.0;
  std::vector<double> errors;
  for (double dt : {0.01, 0.005, 0.0025}) errors.push_back(energyErrors(dt, std::lround(horizon / dt)).overall);
  INFO("max energy errors over 10 s: " << errors[0] << ", " << errors[1] << ", " << errors[2]);
  for (int i = 0; i + 1 < 3; ++i) {
    const double ratio = errors[i] / errors[i + 1];
    CHECK(ratio > 3.5);
    CHECK(ratio < 4.5);
  }
}

TEST_CASE("rattle: the step map preserves the area of nearby states on the manifold, rk4 + projection does not",
          "[integrators][rattle][symplectic]") {
  // 200 steps at dt 0.05 (10 s, several swings) from (θ, θ̇) = (−0.4, 1.5) on the unit pendulum.
  const double rattle_factor = stepMapAreaFactor(Integrator::Rattle, 0.05, 200);
  const double rk4_factor = stepMapAreaFactor(Integrator::Rk4, 0.05, 200);
  const double euler_factor = stepMapAreaFactor(Integrator::SemiImplicitEuler, 0.05, 200);
  INFO(std::setprecision(12) << "area factor: rattle " << rattle_factor << ", rk4 + projection " << rk4_factor
                              << ", semi-implicit + projection " << euler_factor);
  // Central differences of width 1e-5: O(ε²) truncation and ~1e-10 round-off in the factor.
  CHECK(std::abs(rattle_factor - 1.0) < 1e-7);
  CHECK(std::abs(rk4_factor - 1.0) > 1e3 * std::abs(rattle_factor - 1.0));
  CHECK(std::abs(euler_factor - 1.0) > 1e3 * std::abs(rattle_factor - 1.0));
}

TEST_CASE("rattle: refuses a q-dependent mass, projection after steps and bad Newton options, naming them",
          "[integrators][rattle][errors]") {
  const FourBar four_bar;
  FixedStepperSetup setup;
  setup.integrator = Integrator::Rattle;
  CHECK_THROWS_WITH(makeFixedStepper(four_bar, setup), Catch::Contains("constant mass matrix") &&
                                                             Catch::Contains("general M(q)"));
  const PendulumChain chain(PendulumChainParams::uniform(2));
  setup.stabilization = Stabilization::projection();
  CHECK_THROWS_WITH(makeFixedStepper(chain, setup), Catch::Contains("project_after_step"));
  setup.stabilization = Stabilization::none();
  setup.rattle.newton_tolerance = 0.0;
  CHECK_THROWS_WITH(makeFixedStepper(chain, setup), Catch::Contains("rattle.newton_tolerance"));
  setup.rattle = {};
  setup.rattle.newton_max_iterations = 0;
  CHECK_THROWS_WITH(makeFixedStepper(chain, setup), Catch::Contains("rattle.newton_max_iterations"));
}

TEST_CASE("rattle: a Newton that cannot reach its tolerance fails the step, naming the residual",
          "[integrators][rattle][errors]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  RattleOptions options;
  options.newton_max_iterations = 1;  // one frozen-J iteration leaves |phi| ~ dt²·|J(q*) − J(qₙ)| ≫ 1e-12
  auto stepper = rattle(chain, {}, options);
  State state = chain.initialState(0.1);
  REQUIRE(stepper->reset(state).ok());
  const StepReport report = stepper->step(state, 0.05);
  CHECK(report.newton_failed);
  CHECK(report.newton_residual > options.newton_tolerance);
  CHECK_THAT(report.message, Catch::Contains("cap of 1") && Catch::Contains("|phi|_inf"));
}

TEST_CASE("rattle: the observer's multiplier mu approximates the KKT lambda at the new state to first order",
          "[integrators][rattle][lambda]") {
  // μₙ is the multiplier of the second half-kick alone; against λ solved exactly at (qₙ₊₁, q̇ₙ₊₁)
  // its error is O(dt) (the half-kicks split the step's impulse between λₙ and μₙ unevenly).
  const PendulumChain chain(PendulumChainParams::uniform(2));
  std::vector<double> errors;
  const std::vector<double> dts{0.004, 0.002, 0.001};
  for (double dt : dts) {
    auto stepper = rattle(chain);
    AccelerationFunction exact(chain, Stabilization::none(), KktOptions{});
    Vector qdd(chain.nq());
    State state = chain.initialState(0.1);
    double worst = 0.0;
    REQUIRE(runSteps(*stepper, chain, state, dt, std::lround(1.0 / dt), false, [&](long, const State& s) {
      REQUIRE(exact.evaluate(s.t, s.q, s.v, qdd).ok());
      worst = std::max(worst, (stepper->lambda() - exact.lambda()).lpNorm<Eigen::Infinity>());
    }));
    errors.push_back(worst);
  }
  INFO("max |mu - lambda_kkt| over 1 s: " << errors[0] << ", " << errors[1] << ", " << errors[2]);
  for (int i = 0; i + 1 < 3; ++i) {
    CHECK(errors[i] / errors[i + 1] > 1.8);
    CHECK(errors[i] / errors[i + 1] < 2.2);
  }
}

TEST_CASE("rattle: a singular constraint space at the start is reported once, where the driver says it",
          "[integrators][rattle][errors]") {
  const testing::DuplicatedCircle model;  // two identical rows
  SimulationOptions options;
  options.integrator = Integrator::Rattle;
  options.steps = 10;
  State start;
  start.q = Vector::Zero(2);
  start.q[0] = 1.0;
  start.v = Vector::Zero(2);
  const Summary summary = simulate(model, start, options);
  INFO(summary.message);
  REQUIRE(summary.status == RunStatus::KktFailure);
  const std::string phrase = "at the initial state";
  const std::size_t first = summary.message.find(phrase);
  REQUIRE(first != std::string::npos);
  CHECK(summary.message.find(phrase, first + 1) == std::string::npos);
  // The dependency runs through both copies of the row, and the message names both.
  CHECK_THAT(summary.message, Catch::Contains("rows [0, 1]"));
}

TEST_CASE("rattle: redundant rows under minimum_norm and regularize give the non-redundant motion",
          "[integrators][rattle][redundant]") {
  const testing::DuplicatedCircle twice;  // φ = |q|² − 1 written twice, m = 1, g = 9.81
  const CircleMass once;                  // the same circle once
  State start;
  start.q = Vector::Zero(2);
  start.q << std::cos(-0.3), std::sin(-0.3);
  start.v = Vector::Zero(2);
  SimulationOptions options;
  options.integrator = Integrator::Rattle;
  options.dt = 1e-3;
  options.steps = 2000;
  std::vector<Vector> reference;
  REQUIRE(simulate(once, start, options, [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
            reference.push_back(q);
          }).ok());
  for (const RankDeficiencyPolicy policy : {RankDeficiencyPolicy::MinimumNorm, RankDeficiencyPolicy::Regularize}) {
    options.kkt.rank_deficiency = policy;
    double worst = 0.0;
    std::size_t i = 0;
    const Summary summary = simulate(twice, start, options, [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
      worst = std::max(worst, (q - reference[i++]).lpNorm<Eigen::Infinity>());
    });
    INFO(toString(policy) << ": " << summary.briefReport() << " | " << summary.notes);
    REQUIRE(summary.ok());
    CHECK(summary.max_phi_inf <= 1e-10);
    CHECK_THAT(summary.notes, Catch::Contains("rank-deficient constraint-space factorizations"));
    // Minimum norm moves along the range of Jᵀ exactly as the single row does; regularize
    // perturbs each Newton step by εᵢ = 1e-8 of Aᵢᵢ, which the Newton's own iterations absorb.
    CHECK(worst < (policy == RankDeficiencyPolicy::MinimumNorm ? 1e-12 : 1e-9));
  }
}
