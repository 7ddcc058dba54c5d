// DynamicsJacobian against central differences of r and c written out here from the model's
// own calls, on every kind of model the library has: constant and configuration-dependent M,
// h with and without state dependence, inputs, time-dependent constraints, the AD adaptors.
#include "kktdae/system/dynamics_jacobian.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <stdexcept>

#include "kktdae/kktdae.hpp"
#include "unit/autodiff/ad_test_models.hpp"

namespace kktdae {
namespace {

struct Point {
  double t;
  Vector q, v, a, lambda, u;
};

Point randomPoint(const ConstrainedSystem& system, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto random = [&](int n) {
    Vector x(n);
    for (int i = 0; i < n; ++i) x[i] = uniform(rng);
    return x;
  };
  Point p{0.37, random(system.nq()), random(system.nq()), random(system.nq()), random(system.nc()),
          random(system.nu())};
  p.q.array() += 0.5;  // away from configurations where a chain's links are degenerate
  return p;
}

/// r = M a + h − Sᵀu − Jᵀλ and c = J a + γ at (q, v), straight from the model.
void residuals(const ConstrainedSystem& s, const Point& p, const Vector& q, const Vector& v, Vector& r, Vector& c) {
  const int nq = s.nq(), nc = s.nc(), nu = s.nu();
  Matrix M(nq, nq), J(nc, nq), S(nu, nq);
  Vector h(nq), gamma(nc);
  s.massMatrix(q, M);
  s.bias(q, v, p.t, h);
  s.constraintJacobian(q, p.t, J);
  s.constraintBias(q, v, p.t, gamma);
  if (nu > 0) s.inputMap(q, p.t, S);
  r = M * p.a + h - J.transpose() * p.lambda;
  if (nu > 0) r -= S.transpose() * p.u;
  c = J * p.a + gamma;
}

struct Reference {
  Matrix K, C, Cq, Cv;
};

/// Central differences (step 1e-6: truncation ~1e-12, round-off ~1e-10) of r and c.
Reference centralDifferences(const ConstrainedSystem& s, const Point& p) {
  const int nq = s.nq(), nc = s.nc();
  Reference ref{Matrix(nq, nq), Matrix(nq, nq), Matrix(nc, nq), Matrix(nc, nq)};
  const double h = 1e-6;
  Vector rp, cp, rm, cm;
  for (int j = 0; j < nq; ++j) {
    Vector qp = p.q, qm = p.q;
    qp[j] += h;
    qm[j] -= h;
    residuals(s, p, qp, p.v, rp, cp);
    residuals(s, p, qm, p.v, rm, cm);
    ref.K.col(j) = (rp - rm) / (2 * h);
    ref.Cq.col(j) = (cp - cm) / (2 * h);
    Vector vp = p.v, vm = p.v;
    vp[j] += h;
    vm[j] -= h;
    residuals(s, p, p.q, vp, rp, cp);
    residuals(s, p, p.q, vm, rm, cm);
    ref.C.col(j) = (rp - rm) / (2 * h);
    ref.Cv.col(j) = (cp - cm) / (2 * h);
  }
  return ref;
}

/// ‖A − B‖∞ ≤ tol · max(1, ‖B‖∞) (an empty block passes when B is empty too).
bool close(const Matrix& A, const Matrix& B, double tol) {
  if (A.rows() != B.rows() || A.cols() != B.cols()) return false;
  if (A.size() == 0) return true;
  const double scale = std::max(1.0, B.cwiseAbs().rowwise().sum().maxCoeff());
  return (A - B).cwiseAbs().rowwise().sum().maxCoeff() <= tol * scale;
}

/// Every block of DynamicsJacobian (forward and central) against the independent differences.
void checkModel(const ConstrainedSystem& system, unsigned seed) {
  INFO(system.name());
  const Point p = randomPoint(system, seed);
  const Reference ref = centralDifferences(system, p);
  Matrix M(system.nq(), system.nq()), J(system.nc(), system.nq());
  system.massMatrix(p.q, M);
  system.constraintJacobian(p.q, p.t, J);
  for (const bool central : {false, true}) {
    INFO("central = " << central);
    DynamicsJacobianOptions options;
    options.central = central;
    if (central) options.relative_step = 6e-6;
    DynamicsJacobian dj(system, options);
    dj.evaluate(p.t, p.q, p.v, p.a, p.lambda, p.u);
    // Forward differences at √eps are accurate to ~1e-8 relative; 1e-6 leaves room for the
    // second derivatives of these models (entries up to ~10²) without hiding a wrong term, which
    // would be off by O(1).
    const double tol = central ? 1e-8 : 1e-6;
    CHECK(dj.mass().isApprox(M, 1e-15));
    CHECK(dj.jacobian().isApprox(J, 1e-15));
    CHECK(close(dj.stiffness(), ref.K, tol));
    CHECK(close(dj.damping(), ref.C, tol));
    CHECK(close(dj.constraintQ(), ref.Cq, tol));
    CHECK(close(dj.constraintV(), ref.Cv, tol));
    CHECK(dj.modelEvaluations() > 0);
  }
}

TEST_CASE("DynamicsJacobian matches central differences of r and c on every model kind", "[dynamics_jacobian]") {
  SECTION("planar circle mass (constant M and h)") { checkModel(CircleMass{}, 1); }
  SECTION("3D pendulum chain, 3 links") { checkModel(PendulumChain(PendulumChainParams::uniform(3, 1.3, 0.8)), 2); }
  SECTION("four-bar (LagrangianSystem, general M)") { checkModel(FourBar{}, 3); }
  SECTION("slider-crank (LagrangianSystem)") { checkModel(SliderCrank{}, 4); }
  SECTION("Andrews' squeezer (general M, state-dependent h)") { checkModel(AndrewsSqueezer{}, 5); }
  SECTION("joint double pendulum with input and rotating slot (rheonomic)") {
    testing::JointDoublePendulum::Params params;
    params.rotating_slot = true;
    checkModel(testing::JointDoublePendulum(params), 6);
  }
  SECTION("Lagrangian double pendulum with input and rotating slot (AD adaptor)") {
    testing::JointDoublePendulum::Params params;
    params.rotating_slot = true;
    checkModel(testing::LagrangianDoublePendulum(params), 7);
  }
  SECTION("AD pendulum chain (AutoDiffConstraints)") {
    checkModel(testing::AdPendulumChain(PendulumChainParams::uniform(2)), 8);
  }
}

/// CircleMass that claims nothing: a general M and an h that depends on the state.
class PessimisticCircle final : public ConstrainedSystem {
 public:
  std::string name() const override { return "pessimistic_circle"; }
  int nq() const override { return 2; }
  int nc() const override { return 1; }
  void massMatrix(ConstVectorRef q, MatrixRef M) const override { inner_.massMatrix(q, M); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { inner_.bias(q, v, t, h); }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { inner_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    inner_.constraintJacobian(q, t, J);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    inner_.constraintBias(q, v, t, gamma);
  }
  double potentialEnergy(ConstVectorRef q, double t) const override { return inner_.potentialEnergy(q, t); }

 private:
  CircleMass inner_;
};

TEST_CASE("DynamicsJacobian skips the terms a model declares constant, with the same result", "[dynamics_jacobian]") {
  const CircleMass declared;
  const PessimisticCircle pessimistic;
  const Point p = randomPoint(declared, 11);
  DynamicsJacobian a(declared), b(pessimistic);
  a.evaluate(p.t, p.q, p.v, p.a, p.lambda, p.u);
  b.evaluate(p.t, p.q, p.v, p.a, p.lambda, p.u);
  // The pessimistic differences also carry the constant terms, whose round-off (eps·|h|/step ≈
  // 1e-7) the skipping avoids: equal to within that, not bitwise.
  CHECK(close(a.stiffness(), b.stiffness(), 1e-6));
  CHECK(close(a.damping(), b.damping(), 1e-6));
  CHECK(close(a.constraintQ(), b.constraintQ(), 1e-6));
  CHECK(close(a.constraintV(), b.constraintV(), 1e-6));
  CHECK(a.damping().isZero(0.0));
  CHECK(a.modelEvaluations() < b.modelEvaluations());
  // Counting is cumulative.
  const long once = a.modelEvaluations();
  a.evaluate(p.t, p.q, p.v, p.a, p.lambda, p.u);
  CHECK(a.modelEvaluations() == 2 * once);
}

TEST_CASE("DynamicsJacobian rejects bad options and sizes, naming them", "[dynamics_jacobian]") {
  const CircleMass circle;
  DynamicsJacobianOptions options;
  options.relative_step = 0.0;
  CHECK_THROWS_WITH(DynamicsJacobian(circle, options), Catch::Contains("relative_step"));
  options.relative_step = std::nan("");
  CHECK_THROWS_AS(DynamicsJacobian(circle, options), std::invalid_argument);
  DynamicsJacobian dj(circle);
  const Vector two = Vector::Zero(2), one = Vector::Zero(1), empty;
  CHECK_THROWS_WITH(dj.evaluate(0.0, two, two, two, two, empty), Catch::Contains("lambda"));
  CHECK_THROWS_WITH(dj.evaluate(0.0, one, two, two, one, empty), Catch::Contains("q"));
}

}  // namespace
}  // namespace kktdae
