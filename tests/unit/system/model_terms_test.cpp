// ConstrainedSystem::evaluateTerms(): the one model call of every solve writes exactly what the
// per-term methods write, bit for bit, on every shipped model (the overrides of PendulumChain and
// CircleMass included), and a user's model that overrides none of it is served by the default,
// which the solver then calls instead of the per-term methods.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <random>

#include "support/same_bits.hpp"
#include "support/test_models.hpp"
#include "unit/autodiff/ad_test_models.hpp"

using namespace kktdae;
using kktdae::testing::sameBits;

namespace {

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

/// Same bits (NaN where neither wrote is equal to itself here).
/// (Empty vectors have null data, which memcmp must not be given, even for zero bytes.)

/// The terms at one state, each output starting as NaN so that an entry one path leaves
/// unwritten and the other writes shows as a difference.
struct Terms {
  Vector h, phi, gamma, phi_t, values;
  Matrix J;
  Terms(const ConstrainedSystem& s, bool dense, bool sparse)
      : h(Vector::Constant(s.nq(), kUnset)),
        phi(Vector::Constant(s.nc(), kUnset)),
        gamma(Vector::Constant(s.nc(), kUnset)),
        phi_t(Vector::Constant(s.nc(), kUnset)),
        values(Vector::Constant(sparse ? s.jacobianNonZeros() : 0, kUnset)),
        J(Matrix::Constant(dense ? s.nc() : 0, dense ? s.nq() : 0, kUnset)) {}
};

/// Compares the fused call with the per-term calls at `samples` random states, asking for the
/// dense J, and (when the model has one) for the sparse values instead.
void requireFusedEqualsPerTerm(const ConstrainedSystem& system, int samples = 50) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> uniform(-1.5, 1.5);
  const int nq = system.nq();
  for (int sample = 0; sample < samples; ++sample) {
    Vector q(nq), v(nq);
    for (int i = 0; i < nq; ++i) q[i] = uniform(rng), v[i] = uniform(rng);
    const double t = 1.0 + uniform(rng);
    for (const bool sparse : {false, true}) {
      if (sparse && system.jacobianNonZeros() == 0) continue;
      Terms per_term(system, !sparse, sparse), fused(system, !sparse, sparse);
      system.bias(q, v, t, per_term.h);
      system.constraint(q, t, per_term.phi);
      if (sparse) {
        system.constraintJacobianValues(q, t, per_term.values);
      } else {
        system.constraintJacobian(q, t, per_term.J);
      }
      system.constraintBias(q, v, t, per_term.gamma);
      system.constraintTimeDerivative(q, t, per_term.phi_t);
      ModelTermsOutput out{fused.h, fused.phi, fused.J, fused.values, fused.gamma, fused.phi_t};
      system.evaluateTerms(q, v, t, out);
      INFO(system.name() << ", sample " << sample << (sparse ? ", sparse values" : ", dense J"));
      CHECK(sameBits(fused.h, per_term.h));
      CHECK(sameBits(fused.phi, per_term.phi));
      CHECK(sameBits(fused.J, per_term.J));
      CHECK(sameBits(fused.values, per_term.values));
      CHECK(sameBits(fused.gamma, per_term.gamma));
      CHECK(sameBits(fused.phi_t, per_term.phi_t));
    }
  }
}

/// A user's model as docs/defining-models.md writes one: the per-term methods only, with a
/// time-dependent constraint (so ∂φ/∂t ≠ 0 shows whether the default asks for it). A point of
/// mass m on the plane z = w t and on the sphere |q| = L. Counts its calls (mutable: a test's
/// bookkeeping, not state a real model may keep).
class CountingUserModel final : public ConstrainedSystem {
 public:
  static constexpr double kMass = 2.0, kGravity = 9.81, kLength = 1.5, kSpeed = 0.3;
  mutable int bias_calls = 0, constraint_calls = 0, jacobian_calls = 0, gamma_calls = 0, phi_t_calls = 0;

  std::string name() const override { return "counting_user_model"; }
  int nq() const override { return 3; }
  int nc() const override { return 2; }
  bool isTimeDependent() const override { return true; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setConstant(kMass); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override {
    ++bias_calls;
    h << 0.0, kMass * kGravity, 0.0;
  }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override {
    ++constraint_calls;
    phi << 0.5 * (q.squaredNorm() - kLength * kLength), q[2] - kSpeed * t;
  }
  void constraintJacobian(ConstVectorRef q, double, MatrixRef J) const override {
    ++jacobian_calls;
    J << q[0], q[1], q[2], 0.0, 0.0, 1.0;
  }
  void constraintTimeDerivative(ConstVectorRef, double, VectorRef phi_t) const override {
    ++phi_t_calls;
    phi_t << 0.0, -kSpeed;
  }
  void constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const override {
    ++gamma_calls;
    gamma << v.squaredNorm(), 0.0;
  }
  double potentialEnergy(ConstVectorRef q, double) const override { return kMass * kGravity * q[1]; }
};

}  // namespace

TEST_CASE("model terms: the fused call equals the per-term calls bit for bit on every shipped model",
          "[system][model_terms]") {
  SECTION("pendulum chains (the override), uniform and uneven, dense J and sparse values") {
    for (const int links : {1, 2, 3, 7}) {
      requireFusedEqualsPerTerm(PendulumChain(PendulumChainParams::uniform(links)));
      PendulumChainParams params = PendulumChainParams::uniform(links, 1.3, 0.8);
      params.masses.back() = 2.5;
      params.lengths.front() = 1.7;
      params.gravity = 3.7;
      params.pivot << 0.1, -0.2, 0.3;
      requireFusedEqualsPerTerm(PendulumChain(params));
    }
  }
  SECTION("circle mass (the override)") { requireFusedEqualsPerTerm(CircleMass(CircleMassParams{2.0, 9.81, 1.5})); }
  SECTION("the models served by the default") {
    for (const int dimension : {2, 3}) {
      PointOnPlaneParams params;
      params.dimension = dimension;
      requireFusedEqualsPerTerm(PointOnPlane(params));
    }
    requireFusedEqualsPerTerm(FourBar{});
    requireFusedEqualsPerTerm(SliderCrank{});
    requireFusedEqualsPerTerm(ParticleSystem(fourBarTwin(FourBarParams{})));
    requireFusedEqualsPerTerm(ParticleSystem(sliderCrankTwin(SliderCrankParams{}, 3.0)));
    requireFusedEqualsPerTerm(AndrewsSqueezer{}, 10);
    requireFusedEqualsPerTerm(CarAxis{});
    requireFusedEqualsPerTerm(testing::AdPendulumChain(PendulumChainParams::uniform(3)), 10);
    testing::JointDoublePendulum::Params slot;
    slot.rotating_slot = true;
    requireFusedEqualsPerTerm(testing::JointDoublePendulum(slot));
    requireFusedEqualsPerTerm(testing::LagrangianDoublePendulum(slot), 10);
  }
  SECTION("a user's model without an override") { requireFusedEqualsPerTerm(CountingUserModel{}); }
}

TEST_CASE("model terms: the solver reaches a user's per-term methods through the default, once each per solve",
          "[system][model_terms]") {
  const CountingUserModel model;
  KktWorkspace ws(model);
  const Vector q = (Vector(3) << 0.4, -1.1, 0.25).finished();
  const Vector v = (Vector(3) << 0.6, -0.3, 0.9).finished();
  const double t = 0.7;
  const KktResult result = solveAccelerations(model, t, q, v, Vector(), Stabilization::none(), KktOptions{}, ws);
  REQUIRE(result.ok());
  CHECK(model.bias_calls == 1);
  CHECK(model.constraint_calls == 1);
  CHECK(model.jacobian_calls == 1);
  CHECK(model.gamma_calls == 1);
  CHECK(model.phi_t_calls == 1);
  // What the default wrote is what the solve used: φ̇ = J q̇ + ∂φ/∂t with the model's ∂φ/∂t, and
  // the constraint acceleration J q̈ = −γ.
  CHECK(ws.phi_t[1] == -CountingUserModel::kSpeed);
  CHECK(ws.phi_dot[1] == v[2] - CountingUserModel::kSpeed);
  CHECK(ws.phi[0] == 0.5 * (q.squaredNorm() - CountingUserModel::kLength * CountingUserModel::kLength));
  const Vector constraint_acceleration = ws.J * ws.qdd;
  CHECK(constraint_acceleration[0] == Approx(-v.squaredNorm()).margin(1e-12));
  CHECK(constraint_acceleration[1] == Approx(0.0).margin(1e-12));
}

TEST_CASE("model terms: the sparse path's constraint rate is Eigen's J q̇ + ∂φ/∂t to the bit", "[system][model_terms]") {
  // evaluateModelTerms sums J q̇ over the compressed rows itself; the reference is the Eigen
  // expression it replaced, on a chain long enough for the sparse path and a time-dependent model.
  std::mt19937_64 rng(99);
  const PendulumChain chain(PendulumChainParams::uniform(10));
  KktWorkspace ws(chain);
  REQUIRE(ws.sparse);
  for (int trial = 0; trial < 20; ++trial) {
    const Vector q = testing::randomVector(rng, chain.nq(), 1.5), v = testing::randomVector(rng, chain.nq(), 2.0);
    REQUIRE(solveAccelerations(chain, 0.0, q, v, Vector(), Stabilization::baumgarte(20.0, 20.0), KktOptions{}, ws).ok());
    Vector expected(chain.nc());
    expected.noalias() = ws.constraint_space->J * v;
    expected += ws.phi_t;
    CHECK(sameBits(ws.phi_dot, expected));
  }
}
