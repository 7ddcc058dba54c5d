// Runs that blow up on the constraint manifold (projection, the index-3 generalized-α) end as
// Diverged through the velocity-level and energy rules of DivergenceOptions, and the rules
// leave healthy runs alone.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "support/chain_starts.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

/// Seed 000's run: the double pendulum under semi-implicit Euler, dt 0.005, 4000 steps (20 s).
Summary chapterRun(Stabilization stabilization, DivergenceOptions divergence = {}) {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options;
  options.dt = 0.005;
  options.steps = 4000;
  options.stabilization = stabilization;
  options.divergence = divergence;
  return simulate(chain, chain.initialState(testing::kSeed0Tilt), options);
}

/// The heavy top under generalized-α (index 3), 2 s.
struct TopRun {
  Summary summary;
  double worst_energy_error = 0.0;
  Eigen::Vector3d final_displacement = Eigen::Vector3d::Constant(std::nan(""));
};

TopRun heavyTopRun(double rho_inf, double dt) {
  const HeavyTop top;
  const State start = top.initialState();
  const double e0 = top.totalEnergy(start.q, start.v, 0.0);
  SimulationOptions options;
  options.integrator = Integrator::GeneralizedAlpha;
  options.generalized_alpha.rho_inf = rho_inf;
  options.generalized_alpha.max_step_halvings = 6;
  options.dt = dt;
  options.end_time = 2.0;
  TopRun run;
  run.summary = simulate(top, start, options, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    run.worst_energy_error = std::max(run.worst_energy_error, std::abs(top.totalEnergy(q, v, 0.0) - e0));
    run.final_displacement = top.displacement(q);
  });
  return run;
}

}  // namespace

TEST_CASE("runaway: seed 000's projection mode blows up on the manifold and ends as diverged by its energy",
          "[divergence][runaway]") {
  const Summary projected = chapterRun(Stabilization::projection());
  INFO(projected.message);
  // φ stays at round-off all the way, so only the energy shows the blow-up.
  CHECK(projected.max_phi_inf < 1e-9);
  REQUIRE(projected.status == RunStatus::Diverged);
  CHECK_THAT(projected.message, Contains("total energy") && Contains("energy_factor 100") &&
                                    Contains("energy scale 39.24"));
  // E_s = Σm·g·ΣL = 39.24 J; the run passes 100·E_s between its 10 s and 11 s (energy 196 J at
  // 10 s, 17,447 J at 11 s), checked every 16 steps.
  CHECK(projected.t_final > 10.0);
  CHECK(projected.t_final < 11.0);

  // The same run with the rule switched off is the blow-up the rule reports.
  DivergenceOptions off;
  off.energy_factor = std::numeric_limits<double>::infinity();
  const Summary unchecked = chapterRun(Stabilization::projection(), off);
  CHECK(unchecked.ok());
}

TEST_CASE("runaway: seed 000's none, Baumgarte and soft modes stay successes", "[divergence][runaway]") {
  for (const Stabilization& mode :
       {Stabilization::none(), Stabilization::critical(20.0), Stabilization::softConstraint()}) {
    const Summary summary = chapterRun(mode);
    INFO(summary.message);
    CHECK(summary.ok());
    CHECK(summary.steps == 4000);
  }
}

TEST_CASE("runaway: the heavy top under index-3 generalized-alpha at rho_inf 0.9 never ends as a silent success",
          "[divergence][runaway][heavy_top]") {
  for (const double dt : {1e-3, 5e-4}) {
    const TopRun run = heavyTopRun(0.9, dt);
    INFO("dt " << dt << ": " << run.summary.briefReport() << "\n" << run.summary.message << "\nworst |E - E0| "
               << run.worst_energy_error << " J");
    if (run.summary.ok()) {
      // Success is allowed only when it is one: the energy within 1 % of E0 and the tip on the reference.
      CHECK(run.worst_energy_error <= 54.0);
      CHECK((run.final_displacement - HeavyTop::kReferenceDisplacement).lpNorm<Eigen::Infinity>() <= 1e-2);
    } else {
      CHECK(run.summary.status == RunStatus::Diverged);
    }
  }
}

TEST_CASE("runaway: the heavy top at rho_inf 0.8 is a genuine success the rules let through, converging at second order",
          "[divergence][runaway][heavy_top]") {
  std::vector<double> tip_errors;
  for (const double dt : {1e-3, 5e-4}) {
    const TopRun run = heavyTopRun(0.8, dt);
    INFO("dt " << dt << ": " << run.summary.message);
    REQUIRE(run.summary.ok());
    CHECK(run.worst_energy_error <= 54.0);  // measured 14.5 J and 1.86 J
    tip_errors.push_back((run.final_displacement - HeavyTop::kReferenceDisplacement).lpNorm<Eigen::Infinity>());
  }
  // Measured 1.24e-2 m and 3.4e-3 m: a ratio of 3.7 at second order.
  INFO("tip errors " << tip_errors[0] << ", " << tip_errors[1]);
  CHECK(tip_errors[0] < 2e-2);
  CHECK(tip_errors[0] / tip_errors[1] == Approx(4.0).margin(1.0));
}

TEST_CASE("runaway: the velocity rule fires on a state leaving the manifold fast, with the row and the numbers",
          "[divergence][runaway]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  const State start = chain.initialState(0.3);
  AccelerationFunction f(chain, Stabilization::none(), KktOptions{});
  const DivergenceRule rule(DivergenceOptions{}, chain, start);
  // At rest: V is the speed the energy scale can give a unit mass, √(2 E_s / 1 kg).
  const double energy_scale = chain.energyScale();
  CHECK(rule.energyScale() == Approx(energy_scale));
  CHECK(rule.velocityScale() == Approx(std::sqrt(2.0 * energy_scale)));
  // Stretch the last link at 5·V and then at 20·V (10·V is the limit): φ = 0, φ̇ ≠ 0.
  for (const double multiple : {5.0, 20.0}) {
    State moving = start;
    const Eigen::Vector3d d = chain.tip(start.q) - start.q.segment<3>(3);
    moving.v.segment<3>(6) = multiple * rule.velocityScale() * d.normalized();
    REQUIRE(f.evaluateTerms(0.0, moving.q, moving.v).ok());
    // The position rules see nothing (φ = 0); the runaway rules see the rate.
    CHECK(rule.test(moving.q, f.workspace()) == DivergenceVerdict::Plausible);
    const DivergenceVerdict verdict = rule.testRunaway(chain, 0.0, moving.q, moving.v, f.workspace());
    INFO("multiple " << multiple);
    if (multiple < 10.0) {
      CHECK(verdict == DivergenceVerdict::Plausible);
    } else {
      CHECK(verdict == DivergenceVerdict::LeavingManifold);
      CHECK_THAT(rule.describe(verdict, moving.q, f.workspace()),
                 Contains("rate of leaving the constraint manifold") && Contains("(row 2)") &&
                     Contains("velocity_factor 10"));
    }
  }
  // The position-only rule (no model) has no velocity rule.
  const DivergenceRule positions(DivergenceOptions{}, start.q);
  CHECK(std::isinf(positions.velocityScale()));
  CHECK_FALSE(positions.testsEnergy());
}

TEST_CASE("runaway: the energy rule is off for a run with a controller, a non-conservative model, or enabled = false",
          "[divergence][runaway]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.0);
  CHECK(DivergenceRule(DivergenceOptions{}, chain, start).testsEnergy());
  CHECK_FALSE(DivergenceRule(DivergenceOptions{}, chain, start, false).testsEnergy());
  DivergenceOptions disabled;
  disabled.enabled = false;
  CHECK_FALSE(DivergenceRule(disabled, chain, start).testsEnergy());
  const AndrewsSqueezer squeezer;  // a driving torque does work
  CHECK_FALSE(squeezer.isConservative());
  // enabled = false switches every rule off: the projection run of seed 000 runs to its end.
  const Summary summary = chapterRun(Stabilization::projection(), disabled);
  CHECK(summary.ok());
}

TEST_CASE("runaway: bad divergence options are refused by name", "[divergence][runaway]") {
  const auto refused = [](auto change, const char* name) {
    DivergenceOptions options;
    change(options);
    CHECK_THROWS_WITH(options.validate(), Contains(name));
  };
  refused([](DivergenceOptions& o) { o.velocity_factor = 0.0; }, "divergence.velocity_factor");
  refused([](DivergenceOptions& o) { o.min_velocity_scale = -1.0; }, "divergence.min_velocity_scale");
  refused([](DivergenceOptions& o) { o.energy_factor = std::nan(""); }, "divergence.energy_factor");
  refused([](DivergenceOptions& o) { o.runaway_check_every = 0; }, "divergence.runaway_check_every");
}

TEST_CASE("runaway: semi-implicit Euler with projection multiplies a turning link's kinetic energy by 1 + (w dt)^2 per step",
          "[divergence][runaway]") {
  // The mechanism behind the chapter's runaway (docs/stabilization.md): without gravity, one step
  // of uniform circular motion at ω gains exactly (ω dt)² of its kinetic energy, to O(dt⁶).
  CircleMassParams params;
  params.gravity = 0.0;
  const CircleMass circle(params);
  for (const double omega : {2.0, 5.0, 10.0}) {
    for (const double dt : {0.01, 0.005}) {
      State start = circle.initialState(1.0);
      start.v[1] = omega;  // radius 1: |v| = ω
      SimulationOptions options;
      options.dt = dt;
      options.steps = 1;
      options.stabilization = Stabilization::projection();
      double kinetic = 0.0;
      REQUIRE(simulate(circle, start, options, [&](double, ConstVectorRef, ConstVectorRef v, ConstVectorRef) {
                kinetic = 0.5 * v.squaredNorm();
              }).ok());
      const double gain = kinetic / (0.5 * omega * omega) - 1.0;
      INFO("omega " << omega << ", dt " << dt << ": gain " << gain);
      CHECK(gain == Approx(omega * omega * dt * dt).epsilon(2e-4));
    }
  }
}

TEST_CASE("runaway: a start off the manifold is a counted warning, a projected or consistent one is not",
          "[divergence][runaway][warnings]") {
  const CircleMass circle;
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 0.01;
  options.steps = 10;
  // Seed 002's launch, 1 % off the circle: d = |φ| / |∇φ| = (1.01² − 1) / 2.02 = 0.00995 m.
  const Summary off = simulate(circle, circle.initialState(1.01), options);
  REQUIRE(off.ok());
  REQUIRE(off.warningCount(WarningKind::OffManifoldStart) == 1);
  const RunWarning& warning = off.warnings.front();
  CHECK(warning.first_step == 0);
  CHECK_THAT(warning.first_detail, Contains("distance") && Contains("0.00995") && Contains("project_initial_state"));
  for (const Integrator integrator : {Integrator::CvodeBdf, Integrator::GeneralizedAlpha}) {
    SimulationOptions other = options;
    other.integrator = integrator;
    CHECK(simulate(circle, circle.initialState(1.01), other).warningCount(WarningKind::OffManifoldStart) == 1);
  }
  // On the circle, or projected onto it first: no warning.
  CHECK(simulate(circle, circle.initialState(1.0), options).warnings.empty());
  options.project_initial_state = true;
  CHECK(simulate(circle, circle.initialState(1.01), options).warnings.empty());
  // A velocity across the constraint at a start on it: the rate of leaving is named.
  State leaving = circle.initialState(1.0);
  leaving.v[0] = 0.5;
  options.project_initial_state = false;
  const Summary rate = simulate(circle, leaving, options);
  REQUIRE(rate.warningCount(WarningKind::OffManifoldStart) == 1);
  CHECK_THAT(rate.warnings.front().first_detail, Contains("rate of leaving"));
}
