// Baumgarte's error dynamics: closed form, the one-step maps of the fixed-step integrators, and
// their stability limits, checked against each other and against the linear-constraint model.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/kktdae.hpp"

using namespace kktdae;

TEST_CASE("error dynamics: the closed form solves e'' + 2 alpha e' + beta^2 e = 0 in every regime",
          "[stabilization][errdyn]") {
  // (α, β): under-damped, critically damped, nearly critical from both sides, over-damped.
  const std::pair<double, double> cases[] = {{5.0, 10.0}, {20.0, 20.0}, {20.0, 20.0 + 1e-9}, {20.0 + 1e-9, 20.0},
                                             {30.0, 10.0}, {0.0, 7.0}};
  for (const auto& [alpha, beta] : cases) {
    for (double t : {0.01, 0.1, 0.37, 1.0}) {  // t = 0 is checked exactly below
      const ErrorValue x = baumgarteErrorAt(alpha, beta, 0.02, -0.3, t);
      // Residual of the ODE by central differences of ė.
      const double h = 1e-6;
      const ErrorValue plus = baumgarteErrorAt(alpha, beta, 0.02, -0.3, t + h);
      const ErrorValue minus = baumgarteErrorAt(alpha, beta, 0.02, -0.3, t - h);
      const double e_ddot = (plus.e_dot - minus.e_dot) / (2.0 * h);
      const double e_dot_fd = (plus.e - minus.e) / (2.0 * h);
      INFO("alpha " << alpha << " beta " << beta << " t " << t);
      CHECK(e_dot_fd == Approx(x.e_dot).margin(1e-7));
      CHECK(e_ddot + 2.0 * alpha * x.e_dot + beta * beta * x.e == Approx(0.0).margin(1e-4 * (1.0 + beta * beta * 0.02)));
    }
    const ErrorValue start = baumgarteErrorAt(alpha, beta, 0.02, -0.3, 0.0);
    CHECK(start.e == 0.02);
    CHECK(start.e_dot == Approx(-0.3).epsilon(1e-14));
  }
}

TEST_CASE("error dynamics: closed-form stability limits agree with the spectral radius", "[stabilization][errdyn]") {
  for (Integrator integrator : {Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Rk4}) {
    for (double zeta : {0.25, 0.5, 0.7, 1.0, 1.5, 3.0}) {
      const double limit = baumgarteStabilityLimit(integrator, zeta);
      INFO(toString(integrator) << " zeta " << zeta << " limit " << limit);
      REQUIRE(limit > 0.0);
      CHECK(errorStepSpectralRadius(integrator, 0.99 * limit, zeta, 1.0) < 1.0);
      CHECK(errorStepSpectralRadius(integrator, 1.01 * limit, zeta, 1.0) > 1.0);
    }
  }
  // The critically damped limits of docs/baumgarte.md.
  CHECK(baumgarteStabilityLimit(Integrator::ExplicitEuler, 1.0) == Approx(2.0));
  CHECK(baumgarteStabilityLimit(Integrator::SemiImplicitEuler, 1.0) == Approx(2.0 * (std::sqrt(2.0) - 1.0)));
  CHECK(baumgarteStabilityLimit(Integrator::Rk4, 1.0) == Approx(2.7853).margin(1e-4));
  CHECK(baumgarteStabilityLimit(Integrator::ExplicitEuler, 0.0) == 0.0);  // undamped: never stable
}

TEST_CASE("error dynamics: on the linear-constraint model each integrator maps (e, e') by its step matrix",
          "[stabilization][errdyn]") {
  const PointOnPlane plane;
  const double alpha = 12.0, beta = 20.0, dt = 0.01;
  for (Integrator integrator : {Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Rk4}) {
    SimulationOptions options;
    options.integrator = integrator;
    options.dt = dt;
    options.steps = 30;
    options.stabilization = Stabilization::baumgarte(alpha, beta);
    std::vector<Eigen::Vector2d> errors;
    Vector phi(1);
    Matrix J(1, 2);
    simulate(plane, plane.offManifoldState(0.01, 0.2, 0.5), options,
             [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
               plane.constraint(q, t, phi);
               plane.constraintJacobian(q, t, J);
               errors.emplace_back(phi[0], (J * v)(0));
             });
    const Eigen::Matrix2d step = errorStepMatrix(integrator, dt, alpha, beta);
    Eigen::Vector2d predicted = errors.front();
    for (std::size_t k = 1; k < errors.size(); ++k) {
      predicted = step * predicted;
      INFO(toString(integrator) << " step " << k);
      CHECK((errors[k] - predicted).norm() < 1e-13);
    }
  }
}

TEST_CASE("error dynamics: measured stability limits on the linear model match the derived ones",
          "[stabilization][errdyn]") {
  const PointOnPlane plane;
  const State start = plane.offManifoldState(0.01, 0.0, 0.5);
  for (Integrator integrator : {Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Rk4}) {
    const double derived = baumgarteStabilityLimit(integrator, 1.0);
    StabilityMapOptions options;
    options.integrator = integrator;
    options.dts = {0.005};
    // Long runs: just below the limit the critically damped (Jordan-block) error first grows
    // like n·ρⁿ before it decays; 4000 steps let that transient die for ρ ≤ 0.99.
    options.min_steps = 4000;
    const double resolution = 0.01;  // dt·ω grid spacing
    for (double x = derived - 0.2; x <= derived + 0.2; x += resolution) options.omegas.push_back(x / 0.005);
    const auto cells = runStabilityMap(plane, start, options);
    const double measured = measuredStabilityLimit(cells);
    INFO(toString(integrator) << ": derived " << derived << ", measured " << measured);
    // The first growing grid point lies within one grid step above the derived limit (at the
    // limit itself the critically damped Jordan block already grows linearly).
    CHECK(measured >= derived - 1e-9);
    CHECK(measured <= derived + resolution + 1e-9);
    for (const StabilityCell& cell : cells) {
      if (cell.dt * cell.omega < derived - resolution) CHECK(cell.behaviour == ErrorBehaviour::Decays);
    }
  }
}

TEST_CASE("baumgarte guidance: gains sit inside the stability limit and follow the documented rule",
          "[stabilization][errdyn]") {
  const auto semi = recommendBaumgarte(Integrator::SemiImplicitEuler, 0.005);
  CHECK(semi.dt_omega == Approx(0.5 * 2.0 * (std::sqrt(2.0) - 1.0)));
  CHECK(semi.omega == Approx(semi.dt_omega / 0.005));
  CHECK(semi.stabilization.alpha == semi.stabilization.beta);
  CHECK(errorStepSpectralRadius(Integrator::SemiImplicitEuler, 0.005, semi.stabilization.alpha,
                                semi.stabilization.beta) < 1.0);
  const auto rk4 = recommendBaumgarte(Integrator::Rk4, 0.005);
  CHECK(rk4.dt_omega == Approx(0.1));
  const auto damped = recommendBaumgarte(Integrator::ExplicitEuler, 0.01, {0.7, 0.4});
  CHECK(damped.dt_omega == Approx(0.4 * 1.4));
  CHECK(damped.stabilization.alpha == Approx(0.7 * damped.omega));
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::CvodeBdf, 0.01), Catch::Matchers::Contains("cvode_bdf"));
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::ExplicitEuler, 0.01, {0.0, 0.0}), Catch::Matchers::Contains("zeta"));
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::Rk4, -1.0), Catch::Matchers::Contains("dt"));
  // The recommendation beats the chapter's omega = 20 on the chapter's run (semi-implicit).
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options;
  options.steps = 4000;
  auto worst = [&](const Stabilization& s) {
    options.stabilization = s;
    ChainMetricsObserver m(chain);
    simulate(chain, chain.initialState(0.013696168732145436), options,
             [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) { m.observe(t, q, v); });
    return m.metrics().max_violation;
  };
  CHECK(worst(semi.stabilization) < worst(Stabilization::critical(20.0)) / 2.0);
}

TEST_CASE("error dynamics: measured e(t) and e'(t) follow the closed form on the circle, a chain and the plane",
          "[stabilization][errdyn]") {
  const CircleMass circle;
  const PendulumChain chain(PendulumChainParams::uniform(3));
  const PointOnPlane plane;
  State stretched = chain.initialState(0.3);
  stretched.q *= 1.02;  // every link 2 % long
  for (Eigen::Index i = 0; i < stretched.v.size(); ++i) stretched.v[i] = 0.1 * static_cast<double>((i * 7) % 5 - 2);
  struct Case {
    const ConstrainedSystem* system;
    State start;
    double q_scale;  ///< ‖q‖∞ over the run, roughly: the solver's error is relative to it
  };
  const Case cases[] = {{&circle, circle.initialState(1.01), 1.0},
                        {&chain, stretched, 3.1},
                        {&plane, plane.offManifoldState(0.01, -0.2, 0.5), 2.0}};
  const std::pair<double, double> gains[] = {{5.0, 10.0}, {10.0, 10.0}, {20.0, 10.0}};  // under, critical, over
  for (const Case& c : cases) {
    for (const auto& [alpha, beta] : gains) {
      ErrorDynamicsCheckOptions options;
      options.alpha = alpha;
      options.beta = beta;
      options.rtol = 1e-10;
      options.atol = 1e-12;
      const ErrorDynamicsCheck check = checkErrorDynamics(*c.system, c.start, options);
      INFO(c.system->name() << " alpha " << alpha << " beta " << beta << ": deviation " << check.max_rel_deviation
                            << " (rate " << check.max_rel_deviation_rate << ") of max|e| " << check.e0_max);
      REQUIRE(check.summary.ok());
      // The identity is exact, so what remains is the solver's error in q, O(rtol·|q|) and grown
      // over the run; 100·rtol·|q| bounds it (measured 15–30·rtol·|q|), relative to max|e| ≈ e0.
      const double bound = 100.0 * options.rtol * c.q_scale / check.e0_max;
      CHECK(check.max_rel_deviation < bound);
      CHECK(check.max_rel_deviation_rate < 10.0 * bound);
    }
  }
}

TEST_CASE("baumgarte guidance: RK4's gentle gain stays inside the limit even when strongly over-damped",
          "[stabilization][errdyn]") {
  for (double zeta : {1.0, 5.0, 20.0, 50.0}) {
    const auto r = recommendBaumgarte(Integrator::Rk4, 0.01, {zeta, 0.0});
    INFO("zeta " << zeta << ": dt*omega " << r.dt_omega << ", limit " << r.dt_omega_limit);
    CHECK(r.dt_omega < r.dt_omega_limit);
    CHECK(errorStepSpectralRadius(Integrator::Rk4, 0.01, r.stabilization.alpha, r.stabilization.beta) < 1.0);
  }
}

TEST_CASE("error dynamics: a stability map whose horizon no step count can hold is refused naming the horizon",
          "[stabilization][errdyn]") {
  // round(1e300 / dt) does not fit a step count: it once wrapped to the 400-step minimum.
  const PointOnPlane plane;
  StabilityMapOptions options;
  options.dts = {0.005};
  options.omegas = {20.0};
  options.horizon = 1e300;
  CHECK_THROWS_WITH(runStabilityMap(plane, plane.offManifoldState(0.01, 0.0, 0.5), options),
                    Catch::Contains("horizon") && Catch::Contains("more than a run can count"));
}
