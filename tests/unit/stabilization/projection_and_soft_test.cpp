// Projection (post-stabilization), consistent initial states and MuJoCo-style soft constraints.
#include <catch2/catch.hpp>

#include <cmath>

#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

TEST_CASE("projection: holds the double pendulum's links to 1e-10 over 20 s with every fixed-step integrator",
          "[stabilization][projection]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  for (Integrator integrator : {Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Rk4}) {
    SimulationOptions options;
    options.integrator = integrator;
    // Explicit Euler gains energy on the undamped pendulum whatever the constraints do: at
    // dt 0.005 its velocities explode near t = 11.7 s and no projection can follow. Projection
    // fixes the geometry, not the energy; at dt 0.001 explicit Euler lasts the 20 s. Semi-implicit
    // Euler with projection gains (ω dt)² of its kinetic energy per step (docs/stabilization.md):
    // at dt 0.005 it runs away and ends Diverged by its energy at 10.2 s (runaway_test.cpp); at
    // dt 0.0025 its energy stays within 0.93 Σm·g·ΣL over the 20 s.
    options.dt = integrator == Integrator::ExplicitEuler       ? 0.001
                 : integrator == Integrator::SemiImplicitEuler ? 0.0025
                                                               : 0.005;
    options.steps = std::lround(20.0 / options.dt);
    options.stabilization = Stabilization::projection();
    ChainMetricsObserver metrics(chain);
    const Summary s = simulate(chain, chain.initialState(0.013696168732145436), options,
                               [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) { metrics.observe(t, q, v); });
    INFO(toString(integrator) << ": " << s.briefReport());
    REQUIRE(s.ok());
    CHECK(metrics.metrics().max_violation <= 1e-10);
    CHECK(s.max_phi_dot_inf <= 1e-10);
    CHECK(s.projections == options.steps);
    CHECK(s.projection_iterations > 0);  // RK4 sometimes lands within tolerance: 0 iterations
    CHECK(s.max_position_correction > 0.0);
    WARN(toString(integrator) << " + projection, 20 s: max link error " << metrics.metrics().max_violation
                              << ", energy_rel_max " << metrics.metrics().energy_rel_max << ", "
                              << static_cast<double>(s.projection_iterations) / static_cast<double>(s.projections)
                              << " Gauss-Newton iterations per step");
  }
}

TEST_CASE("projection: CVODE projects through its own hook", "[stabilization][projection][sundials]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options;
  options.integrator = Integrator::CvodeBdf;
  options.dt = 0.01;
  options.steps = 300;
  options.adaptive.rtol = 1e-6;
  options.adaptive.atol = 1e-8;
  options.stabilization = Stabilization::projection();
  const Summary interpolated = simulate(chain, chain.initialState(0.1), options);
  INFO(interpolated.briefReport());
  REQUIRE(interpolated.ok());
  CHECK(interpolated.projections >= interpolated.steps / 2);  // after (almost) every accepted step
  // Interpolated outputs lie between projected steps, off the manifold by the interpolation
  // error; outputs that are steps lie on it to the projection's tolerance.
  CHECK(interpolated.max_phi_inf < 1e-5);
  options.adaptive.stop_at_outputs = true;
  const Summary stopped = simulate(chain, chain.initialState(0.1), options);
  INFO(stopped.briefReport());
  REQUIRE(stopped.ok());
  CHECK(stopped.max_phi_inf < 1e-11);
}

TEST_CASE("projection: badly inconsistent initial states are made consistent, an unreachable one fails clearly",
          "[stabilization][projection]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  State start = chain.initialState(0.4);
  start.q *= 1.3;  // every link 30 % long
  std::mt19937_64 rng(5);
  start.v = testing::randomVector(rng, chain.nq(), 2.0);
  State projected = start;
  const ProjectionReport report = projectToManifold(chain, projected);
  INFO(report.message);
  REQUIRE(report.converged);
  CHECK(report.phi_before > 0.1);
  CHECK(report.phi_after <= 1e-12);
  CHECK(report.phi_dot_after <= 1e-12);
  CHECK(report.position_correction > 0.1);
  CHECK(chain.linkLengthViolation(projected.q) < 1e-11);

  // simulate() offers the same as an option and says what it did.
  SimulationOptions options;
  options.steps = 10;
  options.project_initial_state = true;
  Vector phi(chain.nc());
  double first_phi = -1.0;
  const Summary s = simulate(chain, start, options, [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
    chain.constraint(q, t, phi);
    if (first_phi < 0.0) first_phi = phi.lpNorm<Eigen::Infinity>();
  });
  REQUIRE(s.ok());
  CHECK_THAT(s.notes, Contains("initial projection"));
  CHECK(first_phi <= 1e-12);

  const testing::InconsistentCircles impossible;
  State nowhere;
  nowhere.q = Vector::Constant(2, 1.0);
  nowhere.v = Vector::Zero(2);
  const ProjectionReport failed = projectToManifold(impossible, nowhere);
  CHECK_FALSE(failed.converged);
  CHECK(!failed.message.empty());
  CHECK(nowhere.q == Vector::Constant(2, 1.0));  // untouched on failure
  for (Integrator integrator : {Integrator::SemiImplicitEuler, Integrator::CvodeBdf, Integrator::IdaGgl}) {
    SimulationOptions run;
    run.integrator = integrator;
    run.project_initial_state = true;
    run.steps = 5;
    const Summary fail = simulate(impossible, nowhere, run);
    INFO(toString(integrator) << ": " << fail.briefReport());
    CHECK(fail.status == RunStatus::InitFailure);
    CHECK_THAT(fail.message, Contains("cannot be made consistent"));
  }
}

TEST_CASE("soft constraints: the error decays with MuJoCo's time constant and damping ratio", "[stabilization][soft]") {
  // No gravity (the unconstrained constraint acceleration a0 is 0) and a constant impedance
  // d = dmin = dmax: then ë = d·a_ref exactly, i.e. ë + (2/τ) ė + (1/(τζ))² e = 0.
  PointOnPlaneParams params;
  params.gravity = 0.0;
  const PointOnPlane plane(params);
  for (double dampratio : {0.5, 1.0, 2.0}) {
    SoftConstraint soft;
    soft.timeconst = 0.05;
    soft.dampratio = dampratio;
    soft.dmin = soft.dmax = 0.9;
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      SimulationOptions options;
      options.integrator = Integrator::CvodeBdf;
      options.kkt.form = form;
      options.dt = 0.005;
      options.steps = 100;
      options.adaptive.rtol = 1e-10;
      options.adaptive.atol = 1e-13;
      options.stabilization = Stabilization::softConstraint(soft);
      Vector phi(1);
      double worst = 0.0;
      const State start = plane.offManifoldState(0.01, 0.0, 0.3);
      const Summary s = simulate(plane, start, options, [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
        plane.constraint(q, t, phi);
        const double expected = baumgarteErrorAt(1.0 / soft.timeconst, 1.0 / (soft.timeconst * dampratio), 0.01, 0.0, t).e;
        worst = std::max(worst, std::abs(phi[0] - expected));
      });
      INFO("dampratio " << dampratio << " " << toString(form) << ": " << s.briefReport() << ", worst deviation " << worst);
      REQUIRE(s.ok());
      CHECK(worst < 1e-8);  // relative to e0 = 0.01: 1e-6, the solver's tolerance grown over the run
    }
  }
}

TEST_CASE("soft constraints: under gravity the constraint yields by the (1 - d) share of the unconstrained pull",
          "[stabilization][soft]") {
  // The plane's normal has a y component, so gravity pulls across it: a0 = nᵀ(0, −g) ≠ 0. The
  // soft error settles where d·a_ref balances (1 − d)·a0: e_ss = (1 − d)·a0 / (d² K).
  const PointOnPlane plane;  // n = (0.6, 0.8), g = 9.81
  SoftConstraint soft;
  soft.dmin = soft.dmax = 0.9;
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 0.001;
  options.steps = 2000;
  options.stabilization = Stabilization::softConstraint(soft);
  Vector phi(1);
  double last = 0.0;
  simulate(plane, plane.offManifoldState(0.0, 0.0), options,
           [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
             plane.constraint(q, t, phi);
             last = phi[0];
           });
  const double d = 0.9, a0 = -0.8 * 9.81;
  const double K = 1.0 / (soft.dmax * soft.dmax * soft.timeconst * soft.timeconst * soft.dampratio * soft.dampratio);
  CHECK(last == Approx((1.0 - d) * a0 / (d * d * K)).epsilon(1e-6));
  // A hard (Baumgarte) constraint does not yield at all.
  options.stabilization = Stabilization::critical(50.0);
  simulate(plane, plane.offManifoldState(0.0, 0.0), options,
           [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
             plane.constraint(q, t, phi);
             last = phi[0];
           });
  CHECK(std::abs(last) < 1e-12);
}

TEST_CASE("soft constraints: Schur and block forms agree, and the parameters are validated", "[stabilization][soft]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  std::mt19937_64 rng(9);
  const Vector q = testing::randomVector(rng, chain.nq(), 1.5), v = testing::randomVector(rng, chain.nq(), 1.0);
  const Stabilization soft = Stabilization::softConstraint();
  KktWorkspace a(chain), b(chain);
  KktOptions schur, block;
  block.form = KktForm::Block;
  REQUIRE(solveAccelerations(chain, 0.0, q, v, Vector(), soft, schur, a).ok());
  REQUIRE(solveAccelerations(chain, 0.0, q, v, Vector(), soft, block, b).ok());
  CHECK((a.qdd - b.qdd).norm() <= 1e-10 * (1.0 + a.qdd.norm()));
  CHECK((a.lambda - b.lambda).norm() <= 1e-10 * (1.0 + a.lambda.norm()));
  SoftConstraint bad;
  bad.dmax = 1.0;
  CHECK_THROWS_WITH(Stabilization::softConstraint(bad), Contains("soft.dmax"));
  bad = SoftConstraint();
  bad.timeconst = 0.0;
  CHECK_THROWS_WITH(Stabilization::softConstraint(bad), Contains("soft.timeconst"));
  CHECK(SoftConstraint().impedance(0.0) == Approx(0.9));
  CHECK(SoftConstraint().impedance(0.01) == Approx(0.95));
  CHECK(SoftConstraint().impedance(0.0005) == Approx(0.925));
}
