// J, ∂φ/∂t and γ derived from φ alone, against the hand-written models (to 1e-12) and against
// finite differences; sizes and errors of the adaptor.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ad_test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;

namespace {

// Both sides are exact formulas evaluated in double, in different orders of operations; their
// difference is a few ulps of the largest term (|q|² ~ 10 here), so 1e-12 absolute on O(1–10)
// values leaves two orders of margin while catching any wrong term (a missing γ term is O(1)).
using kktdae::testing::kMatchTolerance;

struct Terms {
  Vector phi, phi_t, gamma;
  Matrix J;
};

Terms evaluate(const ConstrainedSystem& system, const Vector& q, const Vector& v, double t) {
  Terms terms{Vector(system.nc()), Vector(system.nc()), Vector(system.nc()), Matrix(system.nc(), system.nq())};
  system.constraint(q, t, terms.phi);
  system.constraintTimeDerivative(q, t, terms.phi_t);
  system.constraintBias(q, v, t, terms.gamma);
  system.constraintJacobian(q, t, terms.J);
  return terms;
}

double maxAbsDifference(const Eigen::Ref<const Matrix>& a, const Eigen::Ref<const Matrix>& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return a.size() == 0 ? 0.0 : (a - b).cwiseAbs().maxCoeff();
}

/// Compares every constraint term of the derived model with the hand-written one at random
/// states (and random times when `random_time`).
void requireSameConstraintTerms(const ConstrainedSystem& derived, const ConstrainedSystem& hand, double q_scale,
                                double v_scale, bool random_time) {
  REQUIRE(derived.nq() == hand.nq());
  REQUIRE(derived.nc() == hand.nc());
  std::mt19937_64 rng(424242);
  for (int trial = 0; trial < 40; ++trial) {
    const Vector q = randomVector(rng, hand.nq(), q_scale);
    const Vector v = randomVector(rng, hand.nq(), v_scale);
    const double t = random_time ? randomVector(rng, 1, 5.0)[0] : 0.0;
    const Terms a = evaluate(derived, q, v, t);
    const Terms b = evaluate(hand, q, v, t);
    INFO(derived.name() << " trial " << trial << " t = " << t);
    CHECK(maxAbsDifference(a.phi, b.phi) <= kMatchTolerance);
    CHECK(maxAbsDifference(a.J, b.J) <= kMatchTolerance);
    CHECK(maxAbsDifference(a.phi_t, b.phi_t) <= kMatchTolerance);
    CHECK(maxAbsDifference(a.gamma, b.gamma) <= kMatchTolerance);
  }
}

// A model with no hand-written twin: a chain whose pivot moves on a circle (rheonomic), the
// second mass held to a transcendental curve.
class MovingPivotChain final : public AutoDiffConstraints<MovingPivotChain> {
 public:
  MovingPivotChain() : AutoDiffConstraints(6, 3) {}
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> out) const {
    using std::cos;
    using std::sin;
    // Pivot at (0.3 cos 2t, 0.3 sin 2t); links of 1 and 0.8; the second mass on the curve y = sin x / 2.
    const Scalar px = 0.3 * cos(2.0 * t);
    const Scalar py = 0.3 * sin(2.0 * t);
    const Scalar dx0 = q[0] - px, dy0 = q[1] - py, dz0 = q[2];
    out[0] = 0.5 * (dx0 * dx0 + dy0 * dy0 + dz0 * dz0 - 1.0);
    const Scalar dx1 = q[3] - q[0], dy1 = q[4] - q[1], dz1 = q[5] - q[2];
    out[1] = 0.5 * (dx1 * dx1 + dy1 * dy1 + dz1 * dz1 - 0.64);
    out[2] = q[4] - 0.5 * sin(q[3]) + exp(-q[5] * q[5]) * atan2(q[5], Scalar(1.0) + t * t);
  }
  std::string name() const override { return "moving_pivot_chain"; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setOnes(); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h.setZero(); }
  double potentialEnergy(ConstVectorRef, double) const override { return 0.0; }
  bool isTimeDependent() const override { return true; }
};

// Capacity 4: nq and nc above it must be refused.
class TooBig final : public AutoDiffConstraints<TooBig, 4> {
 public:
  TooBig(int nq, int nc) : AutoDiffConstraints(nq, nc) {}
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar&, VectorRefOf<Scalar> out) const {
    out.setConstant(q.sum());
  }
  std::string name() const override { return "too_big"; }
  void massMatrix(ConstVectorRef, MatrixRef M) const override { M.setIdentity(); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h.setZero(); }
  double potentialEnergy(ConstVectorRef, double) const override { return 0.0; }
};

// No phi at all: allowed only with nc = 0.
class Unconstrained final : public AutoDiffConstraints<Unconstrained> {
 public:
  explicit Unconstrained(int nc) : AutoDiffConstraints(2, nc) {}
  std::string name() const override { return "unconstrained"; }
  void massMatrix(ConstVectorRef, MatrixRef M) const override { M.setIdentity(); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h.setZero(); }
  double potentialEnergy(ConstVectorRef, double) const override { return 0.0; }
};

}  // namespace

TEST_CASE("autodiff constraints: chain J and gamma match PendulumChain to 1e-12", "[autodiff]") {
  for (int links : {1, 2, 3, 10}) {
    PendulumChainParams params = PendulumChainParams::uniform(links);
    params.masses.back() = 2.5;
    params.lengths.front() = 0.7;
    params.pivot << 0.1, -0.2, 0.3;
    const testing::AdPendulumChain derived(params);
    requireSameConstraintTerms(derived, derived.handWritten(), 2.0, 3.0, false);
  }
}

TEST_CASE("autodiff constraints: circle J and gamma match CircleMass to 1e-12", "[autodiff]") {
  const CircleMassParams params{2.0, 9.81, 1.5};
  requireSameConstraintTerms(testing::AdCircleMass(params), CircleMass(params), 2.0, 3.0, false);
}

TEST_CASE("autodiff constraints: time-dependent rotating slot matches the hand-derived J, dphi/dt, gamma",
          "[autodiff]") {
  testing::JointDoublePendulum::Params params;
  params.rotating_slot = true;
  params.m2 = 0.7;
  params.l1 = 1.2;
  params.l2 = 0.8;
  params.omega = 2.1;
  const testing::AdJointDoublePendulum derived(params);
  const testing::JointDoublePendulum hand(params);
  CHECK(derived.isTimeDependent());
  requireSameConstraintTerms(derived, hand, 3.0, 2.0, true);
}

TEST_CASE("autodiff constraints: derived terms pass the finite-difference check", "[autodiff]") {
  const MovingPivotChain model;
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 20; ++trial) {
    const Vector q = randomVector(rng, 6, 1.5);
    const Vector v = randomVector(rng, 6, 2.0);
    const double t = randomVector(rng, 1, 3.0)[0];
    const DerivativeCheckReport report = checkDerivatives(model, q, v, t);
    INFO("trial " << trial << ": " << report.describe());
    CHECK(report.worstRelativeError() < 1e-7);  // the checker's own accuracy, as in model_derivatives_test
    CHECK(report.time_derivative_error < 1e-7);
  }
}

TEST_CASE("autodiff constraints: sizes beyond the buffer capacity are rejected on construction", "[autodiff]") {
  CHECK_NOTHROW(TooBig(4, 4));
  CHECK_THROWS_WITH(TooBig(5, 1), Catch::Contains("nq: 5 exceeds") && Catch::Contains("MaxSize = 4"));
  CHECK_THROWS_WITH(TooBig(2, 7), Catch::Contains("nc: 7 exceeds"));
  CHECK_THROWS_WITH(TooBig(-1, 0), Catch::Contains("nq: must be >= 0, got -1"));
}

TEST_CASE("autodiff constraints: a model without phi must declare nc = 0", "[autodiff]") {
  const Unconstrained free_model(0);
  Matrix J(0, 2);
  free_model.constraintJacobian(Vector::Zero(2), 0.0, J);  // nothing to do, must not fail
  CHECK_THROWS_WITH(Unconstrained(1), Catch::Contains("nc: 1 constraints declared") &&
                                          Catch::Contains("phi<Scalar>(q, t, phi)"));
}

TEST_CASE("autodiff constraints: the derived chain simulates like the hand-written one", "[autodiff]") {
  PendulumChainParams params = PendulumChainParams::uniform(3);
  params.masses = {1.0, 0.5, 2.0};
  const testing::AdPendulumChain derived(params);
  const PendulumChain& hand = derived.handWritten();
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 0.002;
  options.steps = 500;
  options.stabilization = Stabilization::critical(10.0);
  std::vector<Vector> hand_states;
  simulate(hand, hand.initialState(0.3), options,
           [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
             Vector x(2 * q.size());
             x << q, v;
             hand_states.push_back(x);
           });
  std::size_t index = 0;
  double worst = 0.0;
  const Summary summary = simulate(derived, hand.initialState(0.3), options,
                                   [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                     Vector x(2 * q.size());
                                     x << q, v;
                                     worst = std::max(worst, (x - hand_states.at(index++)).cwiseAbs().maxCoeff());
                                   });
  REQUIRE(summary.ok());
  CHECK(index == hand_states.size());
  // 1 s of a chaotic chain: per-solve differences of ~1e-15 grow, but stay far below 1e-9.
  CHECK(worst < 1e-9);
}
