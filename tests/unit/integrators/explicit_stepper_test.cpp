// The explicit methods' inline path (what the fixed-step driver runs for explicit Euler,
// semi-implicit Euler and RK4) against their FixedStepper contract and step functions: the same
// states to the bit, and the finiteness verdict that folds into the Euler updates.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "../../../lib/src/integrators/explicit_stepper.hpp"
#include "support/same_bits.hpp"
#include "support/test_models.hpp"

using namespace kktdae;

namespace {

FixedStepperSetup setupFor(Integrator integrator) {
  FixedStepperSetup setup;
  setup.integrator = integrator;
  setup.stabilization = Stabilization::baumgarte(20, 20);
  return setup;
}

}  // namespace

TEST_CASE("explicit stepper: advance() and solveAt() reach the contract's states to the bit", "[integrators]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  for (const Integrator integrator : {Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::Rk4}) {
    INFO(toString(integrator));
    detail::ExplicitStepper inline_path(chain, setupFor(integrator));
    const std::unique_ptr<FixedStepper> contract = makeFixedStepper(chain, setupFor(integrator));
    State a = chain.initialState(0.4), b = a;
    REQUIRE(inline_path.solveAt(a));
    REQUIRE(contract->reset(b).ok());
    for (int k = 1; k <= 50; ++k) {
      double q_inf = -1.0;
      REQUIRE(inline_path.advance(a, 0.005, q_inf));
      REQUIRE(contract->step(b, 0.005).ok());
      REQUIRE(testing::sameBits(a.q, b.q));
      REQUIRE(testing::sameBits(a.v, b.v));
      REQUIRE(a.t == b.t);
      CHECK(q_inf == a.q.lpNorm<Eigen::Infinity>());  // what the divergence rule is handed
      REQUIRE(inline_path.solveAt(a));
      REQUIRE(contract->settle(b).ok());
      REQUIRE(testing::sameBits(inline_path.lambda(), contract->lambda()));
      CHECK(testing::sameBits(inline_path.result().rcond, contract->settle(b).kkt.rcond));
    }
  }
}

TEST_CASE("explicit stepper: advance() reports a non-finite state as NaN and an overflowing sum as finite",
          "[integrators]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  for (const Integrator integrator : {Integrator::ExplicitEuler, Integrator::SemiImplicitEuler}) {
    INFO(toString(integrator));
    detail::ExplicitStepper stepper(chain, setupFor(integrator));
    // q̈ is zero until the first solve, so dt = 0 leaves the entries as they are and only the check runs.
    State state = chain.initialState(0.2);
    const double big = std::numeric_limits<double>::max();
    state.q << big, big, 0.0;  // finite, but their sum overflows: the exact pass must decide
    double q_inf = 0.0;
    REQUIRE(stepper.advance(state, 0.0, q_inf));
    CHECK(q_inf == big);
    for (const double bad : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
      state.q << 0.5, -1.0, 0.0;
      state.v << 0.0, bad, 0.0;
      REQUIRE(stepper.advance(state, 0.0, q_inf));
      CHECK(std::isnan(q_inf));
      state.v.setZero();
      state.q << 0.5, -bad, 0.0;
      REQUIRE(stepper.advance(state, 0.0, q_inf));
      CHECK(std::isnan(q_inf));
    }
    state.q << 0.5, -1.0, 0.0;
    REQUIRE(stepper.advance(state, 0.0, q_inf));
    CHECK(q_inf == 1.0);
  }
}
