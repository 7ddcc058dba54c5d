// Measured global convergence orders of the fixed-step integrators on the double pendulum.
#include <catch2/catch.hpp>

#include <Eigen/QR>
#include <cmath>

#include "../../support/fitted_order.hpp"
#include "kktdae/kktdae.hpp"

using namespace kktdae;
using kktdae::testing::fittedOrder;

namespace {

/// (q, q̇) at t = 1 s of the seed's double pendulum (tilt 0.1), no stabilization.
Vector finalState(const PendulumChain& chain, Integrator integrator, double dt) {
  SimulationOptions options;
  options.integrator = integrator;
  options.dt = dt;
  options.steps = std::lround(1.0 / dt);
  Vector final_state;
  const Summary summary = simulate(chain, chain.initialState(0.1), options,
                                   [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                     final_state.resize(2 * q.size());
                                     final_state << q, v;
                                   });
  REQUIRE(summary.ok());
  REQUIRE(summary.t_final == Approx(1.0).epsilon(1e-12));
  return final_state;
}

}  // namespace

TEST_CASE("integrators: measured convergence orders match theory (Euler 1, semi-implicit 1, RK4 4, RATTLE 2)",
          "[integrators][convergence]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  // Reference: RK4 at dt = 1e-4; its own error (~C·1e-16) is far below the smallest error below.
  const Vector reference = finalState(chain, Integrator::Rk4, 1e-4);

  struct Sweep {
    Integrator integrator;
    std::vector<double> dts;
  };
  // The dt ranges keep every error far above round-off and the reference's error, and inside
  // the asymptotic regime (checked: halving dt changes the error by 2^p within a few percent).
  const Sweep sweeps[] = {
      {Integrator::ExplicitEuler, {2e-4, 1e-4, 5e-5, 2.5e-5}},
      {Integrator::SemiImplicitEuler, {2e-4, 1e-4, 5e-5, 2.5e-5}},
      {Integrator::Rk4, {1e-2, 5e-3, 2.5e-3, 1.25e-3}},
      {Integrator::Rattle, {1e-2, 5e-3, 2.5e-3, 1.25e-3}},
  };
  for (const Sweep& sweep : sweeps) {
    std::vector<double> errors;
    for (double dt : sweep.dts) {
      errors.push_back((finalState(chain, sweep.integrator, dt) - reference).lpNorm<Eigen::Infinity>());
    }
    const double order = fittedOrder(sweep.dts, errors);
    INFO(toString(sweep.integrator) << ": errors " << errors[0] << " " << errors[1] << " " << errors[2] << " "
                                    << errors[3] << " -> order " << order);
    CHECK(std::abs(order - convergenceOrder(sweep.integrator)) <= 0.3);
    CHECK(errors.back() > 1e3 * 1e-13);  // far above round-off
    WARN(toString(sweep.integrator) << " measured order " << order << " (errors " << errors.front() << " .. "
                                    << errors.back() << ")");
  }
}
