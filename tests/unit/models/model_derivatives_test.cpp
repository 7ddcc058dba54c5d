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

TEST_CASE("derivative check: the worst entry carries both values, and an unwritten entry is a NaN error",
          "[models][derivatives]") {
  const testing::ChainWithoutBias wrong(2);
  std::mt19937_64 rng(11);
  const Vector q = randomVector(rng, wrong.nq(), 1.0);
  const Vector v = randomVector(rng, wrong.nq(), 1.0);
  const DerivativeCheckReport report = checkDerivatives(wrong, q, v, 0.0);
  // γ = 0 everywhere, so the worst entry is the row where the true γ is largest, and that true γ
  // (the correct chain's) is what the difference quotient gives.
  Vector gamma(wrong.nc());
  PendulumChain(PendulumChainParams::uniform(2)).constraintBias(q, v, 0.0, gamma);
  Eigen::Index row = 0;
  gamma.cwiseAbs().maxCoeff(&row);
  CHECK(report.bias_worst.row == row);
  CHECK(report.bias_worst.col == -1);
  CHECK(report.bias_worst.got == 0.0);
  CHECK(report.bias_worst.expected == Approx(gamma[row]).epsilon(1e-7));
  CHECK(report.bias_error == std::abs(report.bias_worst.expected));

  struct ChainForgetsLastRow final : testing::ForwardingChain {
    ChainForgetsLastRow() : ForwardingChain(2) {}
    std::string name() const override { return "chain_forgets_last_row"; }
    void constraintJacobian(ConstVectorRef q_in, double t, MatrixRef J) const override {
      Matrix full(nc(), nq());
      chain_.constraintJacobian(q_in, t, full);
      J.topRows(1) = full.topRows(1);
    }
  };
  const DerivativeCheckReport unwritten = checkDerivatives(ChainForgetsLastRow{}, q, v, 0.0);
  CHECK(std::isnan(unwritten.jacobian_error));
  CHECK(unwritten.jacobian_worst.row == 1);
  CHECK(std::isnan(unwritten.jacobian_worst.got));
  CHECK(unwritten.worstRelativeError() == std::numeric_limits<double>::infinity());
}
