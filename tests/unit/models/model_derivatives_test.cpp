// J, ∂φ/∂t and γ of every model against central finite differences, at random states.
#include <catch2/catch.hpp>

#include "support/test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;

namespace {

// Central differences with a step of 6e-6 leave about 1e-10 of truncation and rounding error
// on these O(1) models; 1e-7 is three orders above that and far below any real mistake
// (a dropped γ term is O(|q̇|²) ~ 1).
constexpr double kFiniteDifferenceTolerance = 1e-7;

void checkAtRandomStates(const ConstrainedSystem& system, double q_scale, double v_scale, bool random_time) {
  std::mt19937_64 rng(20261130);
  for (int trial = 0; trial < 25; ++trial) {
    const Vector q = randomVector(rng, system.nq(), q_scale);
    const Vector v = randomVector(rng, system.nq(), v_scale);
    const double t = random_time ? randomVector(rng, 1, 3.0)[0] : 0.0;
    const DerivativeCheckReport report = checkDerivatives(system, q, v, t);
    INFO(system.name() << " trial " << trial << ": " << report.describe());
    CHECK(report.worstRelativeError() < kFiniteDifferenceTolerance);
  }
}

}  // namespace

TEST_CASE("pendulum_chain: J and gamma match finite differences", "[models][derivatives]") {
  for (int links : {1, 2, 3, 7}) {
    PendulumChainParams params = PendulumChainParams::uniform(links);
    params.masses.back() = 2.5;
    params.lengths.front() = 0.7;
    params.pivot << 0.1, -0.2, 0.3;
    checkAtRandomStates(PendulumChain(params), 2.0, 3.0, false);
  }
}

TEST_CASE("circle_mass: J and gamma match finite differences", "[models][derivatives]") {
  checkAtRandomStates(CircleMass(CircleMassParams{2.0, 9.81, 1.5}), 2.0, 3.0, false);
}

TEST_CASE("joint_double_pendulum: time-dependent J, dphi/dt and gamma match finite differences",
          "[models][derivatives]") {
  testing::JointDoublePendulum::Params params;
  params.rotating_slot = true;
  checkAtRandomStates(testing::JointDoublePendulum(params), 3.0, 2.0, true);
}

TEST_CASE("derivative check: a model that drops gamma is caught", "[models][derivatives]") {
  const testing::ChainWithoutBias wrong(2);
  std::mt19937_64 rng(7);
  const Vector q = randomVector(rng, wrong.nq(), 1.0);
  const Vector v = randomVector(rng, wrong.nq(), 1.0);
  const DerivativeCheckReport report = checkDerivatives(wrong, q, v, 0.0);
  INFO(report.describe());
  CHECK(report.jacobian_error < kFiniteDifferenceTolerance);
  CHECK(report.bias_error > 0.1);
}
