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
