// The Schur form's small path (lib/src/kkt/small_schur.hpp: 1 ≤ nc ≤ 4, diagonal M) against the
// general path it replaces, written out here with the very Eigen statements of schur_solve.cpp:
// the answers must agree to the bit, and the condition estimate must be Hager's (a lower bound
// of ‖A⁻¹‖₁, exact for 2×2), checked against the condition number from the explicit inverse.
// AccelerationFunction's whole solve on that path (model call to q̈ in one function) is compared
// with solveAccelerations, bit for bit, failures included.
#include <catch2/catch.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

#include "../../../lib/src/kkt/condition_estimate.hpp"
#include "../../../lib/src/kkt/small_schur.hpp"
#include "kktdae/integrators/acceleration_function.hpp"
#include "support/same_bits.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;
using kktdae::testing::sameToTheBit;
using kktdae::testing::sameBits;

namespace {

struct Reference {
  Vector qdd, lambda;
  double rcond_exact = 0.0;  ///< 1 / (‖A‖₁ ‖A⁻¹‖₁), A = J M⁻¹ Jᵀ
};

/// The general Schur path of schur_solve.cpp (formConstraintSpaceSystem, then LLT, then
/// accelerationsFromMultipliers) on the terms the solve evaluated into `ws`.
Reference generalSchurPath(const KktWorkspace& ws, const Stabilization& stabilization) {
  Matrix inverse_mass_jt(ws.nq, ws.nc), schur(ws.nc, ws.nc);
  Vector schur_rhs(ws.nc), qdd(ws.nq);
  inverse_mass_jt.noalias() = ws.inverse_mass_diagonal.asDiagonal() * ws.J.transpose();
  const Vector free_acceleration = ws.inverse_mass_diagonal.cwiseProduct(ws.force);
  schur.noalias() = ws.J * inverse_mass_jt;
  schur_rhs.noalias() = ws.J * free_acceleration;
  schur_rhs += ws.gamma;
  schur_rhs = -schur_rhs;
  subtractStabilizationTerms(stabilization, ws.phi, ws.phi_dot, schur_rhs);
  const Eigen::LLT<Matrix> llt(schur);
  REQUIRE(llt.info() == Eigen::Success);
  const Vector lambda = llt.solve(schur_rhs);
  qdd.noalias() = ws.J.transpose() * lambda;
  qdd += ws.force;
  qdd.array() /= ws.mass_diagonal.array();
  const auto oneNorm = [](const Matrix& a) { return a.cwiseAbs().colwise().sum().maxCoeff(); };
  return {qdd, lambda, 1.0 / (oneNorm(schur) * oneNorm(schur.inverse()))};
}

void compareWithGeneralPath(const ConstrainedSystem& system, double q_scale, int trials) {
  REQUIRE(system.nc() >= 1);
  REQUIRE(system.nc() <= 4);
  std::mt19937_64 rng(7);
  const Stabilization stabilizations[] = {Stabilization::none(), Stabilization::critical(20.0),
                                          Stabilization::baumgarte(3.0, 7.0)};
  KktWorkspace ws(system);
  for (int trial = 0; trial < trials; ++trial) {
    const Vector q = randomVector(rng, system.nq(), q_scale);
    const Vector v = randomVector(rng, system.nq(), 2.0);
    for (const Stabilization& stabilization : stabilizations) {
      for (const bool estimate : {true, false}) {
        KktOptions options;
        options.estimate_condition = estimate;
        const KktResult result = solveAccelerations(system, 0.3, q, v, Vector(), stabilization, options, ws);
        INFO(system.name() << " trial " << trial << " " << stabilization.describe() << " estimate " << estimate
                           << ": " << result.message);
        REQUIRE(result.ok());
        const Reference reference = generalSchurPath(ws, stabilization);
        CHECK(sameToTheBit(ws.qdd, reference.qdd));
        CHECK(sameToTheBit(ws.lambda, reference.lambda));
        if (!estimate) {
          CHECK(result.rcond == 1.0);
        } else if (system.nc() <= 2) {
          CHECK(result.rcond == Approx(reference.rcond_exact).epsilon(1e-12));
        } else {
          // Hager's estimate of ‖A⁻¹‖₁ is a lower bound, almost always within a factor 3.
          CHECK(result.rcond >= reference.rcond_exact * (1.0 - 1e-12));
          CHECK(result.rcond <= 3.0 * reference.rcond_exact);
        }
      }
    }
  }
}

/// Point masses in the plane on rods: the first hangs from an anchor, each further one from the
/// previous, and with `constraints` = 3 or 4 also from extra anchors (J not a chain's).
ParticleSystem planarRods(int particles, int constraints) {
  ParticleSystemParams p;
  p.dimension = 2;
  for (int k = 0; k < particles; ++k) p.particles.push_back({0.7 + 0.4 * k, Eigen::Vector3d::Zero()});
  p.anchors = {Eigen::Vector3d(0.0, 0.0, 0.0), Eigen::Vector3d(2.0, 0.0, 0.0)};
  p.distances.push_back({PointRef::particle(0), PointRef::anchor(0), 1.0});
  for (int k = 1; k < particles; ++k) p.distances.push_back({PointRef::particle(k), PointRef::particle(k - 1), 1.2});
  for (int k = particles; k < constraints; ++k) {
    p.distances.push_back({PointRef::particle(k - particles + 1), PointRef::anchor(1), 1.5});
  }
  return ParticleSystem(p);
}

/// Which model output a PoisonedChain spoils, and with what.
enum class Poisoned { Bias, Constraint, Jacobian, ConstraintBias, TimeDerivative };

/// The double pendulum with one entry of one output replaced by `value` (NaN or ±∞): a user's
/// model gone wrong, served by the default evaluateTerms().
class PoisonedChain final : public ConstrainedSystem {
 public:
  PoisonedChain(std::vector<Poisoned> outputs, double value) : outputs_(std::move(outputs)), value_(value) {}
  std::string name() const override { return "poisoned_chain"; }
  int nq() const override { return chain_.nq(); }
  int nc() const override { return chain_.nc(); }
  MassStructure massStructure() const override { return chain_.massStructure(); }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { chain_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override {
    chain_.bias(q, v, t, h);
    if (spoils(Poisoned::Bias)) h[4] = value_;
  }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override {
    chain_.constraint(q, t, phi);
    if (spoils(Poisoned::Constraint)) phi[1] = value_;
  }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    chain_.constraintJacobian(q, t, J);
    if (spoils(Poisoned::Jacobian)) J(1, 5) = value_;
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    chain_.constraintBias(q, v, t, gamma);
    if (spoils(Poisoned::ConstraintBias)) gamma[0] = value_;
  }
  void constraintTimeDerivative(ConstVectorRef, double, VectorRef phi_t) const override {
    phi_t.setZero();
    if (spoils(Poisoned::TimeDerivative)) phi_t[1] = value_;
  }
  double potentialEnergy(ConstVectorRef q, double t) const override { return chain_.potentialEnergy(q, t); }

 private:
  bool spoils(Poisoned output) const { return std::find(outputs_.begin(), outputs_.end(), output) != outputs_.end(); }
  PendulumChain chain_{PendulumChainParams::uniform(2)};
  std::vector<Poisoned> outputs_;
  double value_;
};

}  // namespace

TEST_CASE("kkt small Schur path: a non-finite model output fails as the separate checks fail it",
          "[kkt][small][errors]") {
  // The small path checks f, J, γ, φ, φ̇ as it reads them (evaluateModelTerms defers to it); the
  // block form still checks them in evaluateModelTerms, one pass each. Both must give the same
  // status, message and rows, whichever outputs are spoiled and however.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<Poisoned>> cases = {
      {Poisoned::Bias}, {Poisoned::Constraint}, {Poisoned::Jacobian}, {Poisoned::ConstraintBias},
      {Poisoned::TimeDerivative}, {Poisoned::ConstraintBias, Poisoned::Jacobian},
      {Poisoned::TimeDerivative, Poisoned::Constraint}, {Poisoned::Bias, Poisoned::TimeDerivative}};
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const Vector q = chain.initialState(0.3).q, v = Vector::Constant(6, 0.2);
  for (const double value : {nan, inf, -inf}) {
    for (const std::vector<Poisoned>& outputs : cases) {
      for (const Stabilization& stabilization : {Stabilization::none(), Stabilization::baumgarte(20.0, 20.0)}) {
        const PoisonedChain model(outputs, value);
        KktWorkspace schur_ws(model), block_ws(model);
        REQUIRE(detail::smallSchurTakes(stabilization, schur_ws));
        KktOptions block;
        block.form = KktForm::Block;
        const KktResult small = solveAccelerations(model, 0.0, q, v, Vector(), stabilization, KktOptions{}, schur_ws);
        const KktResult checked = solveAccelerations(model, 0.0, q, v, Vector(), stabilization, block, block_ws);
        INFO(small.message << " | " << checked.message);
        CHECK(small.status == KktStatus::NonFinite);
        CHECK(checked.status == KktStatus::NonFinite);
        CHECK(small.message == checked.message);
        CHECK(small.offending_rows == checked.offending_rows);
        CHECK(std::isnan(small.rcond));
      }
    }
  }
}

TEST_CASE("kkt small Schur path: for nc = 2 the exact inverse 1-norm is Hager's estimate, near-singular matrices included",
          "[kkt][small]") {
  // A = R diag(μ₁, μ₂) Rᵀ, R a random rotation, μ₁ from 1e-2 to 1e2, condition number μ₁/μ₂ up to
  // 1e16. Hager's iteration (condition_estimate.hpp, through Eigen's LLT) against the small path's
  // closed form from the same factor: equal (to a few units in the last place at worst), so an
  // rcond threshold decides the same way; and both the true ‖A⁻¹‖₁ where that is computable.
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double eps = std::numeric_limits<double>::epsilon();
  int compared = 0, identical = 0, below_threshold = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const double angle = 6.283185307179586 * unit(rng);
    const double mu1 = std::pow(10.0, -2.0 + 4.0 * unit(rng));
    const double condition = std::pow(10.0, 16.0 * unit(rng));
    Eigen::Matrix2d R;
    R << std::cos(angle), -std::sin(angle), std::sin(angle), std::cos(angle);
    const Eigen::Matrix2d A2 = R * Eigen::Vector2d(mu1, mu1 / condition).asDiagonal() * R.transpose();
    Matrix A = A2;
    A(0, 1) = A(1, 0);  // exactly symmetric
    const Eigen::LLT<Matrix> llt(A);
    if (llt.info() != Eigen::Success) continue;  // numerically indefinite at condition ~1e16
    const Matrix L = llt.matrixL();
    Vector x(2), y(2), z(2);
    auto solve = [&](Vector& w) { llt.solveInPlace(w); };
    const double hager = detail::inverseOneNormEstimate(solve, solve, x, y, z);
    const double exact2 = detail::inverseOneNorm2x2(L(0, 0), L(1, 0), L(1, 1));
    INFO("trial " << trial << ", condition " << condition << ": Hager " << hager << ", closed form " << exact2);
    REQUIRE(std::isfinite(hager));
    CHECK(std::abs(exact2 - hager) <= 4.0 * eps * hager);
    const double one_norm = detail::oneNorm(A);
    const bool hager_fails = detail::reciprocalCondition(one_norm, hager) < 1e-13;
    const bool exact2_fails = detail::reciprocalCondition(one_norm, exact2) < 1e-13;
    CHECK(hager_fails == exact2_fails);
    if (condition < 1e6) {  // the explicit inverse is accurate to ~condition·eps here
      CHECK(exact2 == Approx(detail::oneNorm(Matrix(A.inverse()))).epsilon(1e-9));
    }
    ++compared;
    identical += exact2 == hager;
    below_threshold += hager_fails;
  }
  INFO(compared << " compared, " << identical << " bit-identical, " << below_threshold << " below rcond 1e-13");
  CHECK(compared > 3500);
  CHECK(below_threshold > 100);  // the near-singular range is exercised, not just sampled
#if defined(__x86_64__) && !defined(__FMA__)
  // Hager's iteration ends on the solve of the larger column, which the closed form repeats
  // operation for operation: the same bits unless the two column norms tie to the last bit.
  CHECK(identical == compared);
#endif
}

TEST_CASE("kkt small Schur path: the general path's bits for nc = 1 to 4", "[kkt][small]") {
  for (int links : {1, 2, 3}) {
    compareWithGeneralPath(PendulumChain(PendulumChainParams::uniform(links)), 1.5, 30);
    PendulumChainParams params = PendulumChainParams::uniform(links);
    for (int k = 0; k < links; ++k) {
      params.masses[k] = 0.3 + 0.9 * k;
      params.lengths[k] = 1.0 + 0.2 * k;
    }
    compareWithGeneralPath(PendulumChain(params), 1.5, 30);
  }
  compareWithGeneralPath(CircleMass(), 1.5, 30);
  compareWithGeneralPath(PointOnPlane(), 1.5, 30);
  compareWithGeneralPath(planarRods(2, 2), 1.5, 30);
  compareWithGeneralPath(planarRods(3, 3), 1.5, 30);
  compareWithGeneralPath(planarRods(3, 4), 1.5, 30);
}

TEST_CASE("kkt small Schur path: a singular 2×2 system still fails, or takes the policy, as before",
          "[kkt][small][errors]") {
  const testing::DuplicatedCircle redundant;
  Vector q(2), v(2);
  q << 0.6, -0.8;
  v << 0.8, 0.6;
  KktWorkspace ws(redundant);
  KktOptions options;
  const KktResult failed = solveAccelerations(redundant, 0.0, q, v, Vector(), {}, options, ws);
  CHECK((failed.status == KktStatus::Singular || failed.status == KktStatus::IllConditioned));
  // Both rows carry the dependency (the null vector of Jᵀ is (1, −1)): both are named.
  CHECK(failed.offending_rows == std::vector<int>{0, 1});
  options.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
  const KktResult minimum_norm = solveAccelerations(redundant, 0.0, q, v, Vector(), {}, options, ws);
  CHECK(minimum_norm.ok());
  CHECK(minimum_norm.rank_deficient);
  CHECK(ws.lambda[0] == Approx(ws.lambda[1]));  // the shortest λ splits the force evenly
}

namespace {

/// A PendulumChain that declares its (constant) diagonal M as q-dependent (MassStructure::Diagonal),
/// so that every solve asks for it; with `bad_mass` one entry is zero (M not positive definite).
class DiagonalMassChain final : public ConstrainedSystem {
 public:
  explicit DiagonalMassChain(int links, bool bad_mass = false)
      : chain_(PendulumChainParams::uniform(links)), bad_mass_(bad_mass) {}
  std::string name() const override { return "diagonal_mass_chain"; }
  int nq() const override { return chain_.nq(); }
  int nc() const override { return chain_.nc(); }
  MassStructure massStructure() const override { return MassStructure::Diagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override {
    chain_.massDiagonal(q, d);
    if (bad_mass_) d[2] = 0.0;
  }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { chain_.bias(q, v, t, h); }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { chain_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    chain_.constraintJacobian(q, t, J);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    chain_.constraintBias(q, v, t, gamma);
  }
  double potentialEnergy(ConstVectorRef q, double t) const override { return chain_.potentialEnergy(q, t); }

 private:
  PendulumChain chain_;
  bool bad_mass_;
};

/// Five free point masses in space (nq = 15, beyond the fixed-size table) of which two hang on
/// rods from anchors: the whole solve with nq taken at run time.
ParticleSystem looseParticles() {
  ParticleSystemParams p;
  p.dimension = 3;
  for (int k = 0; k < 5; ++k) p.particles.push_back({0.5 + 0.3 * k, Eigen::Vector3d::Zero()});
  p.anchors = {Eigen::Vector3d(0.0, 0.0, 0.0), Eigen::Vector3d(1.0, 0.5, 0.0)};
  p.distances.push_back({PointRef::particle(1), PointRef::anchor(0), 1.0});
  p.distances.push_back({PointRef::particle(3), PointRef::anchor(1), 0.8});
  return ParticleSystem(p);
}

/// AccelerationFunction::evaluate (the whole solve of small_schur.hpp when it applies) against
/// solveAccelerations on its own workspace (evaluateModelTerms, then solveSchurSmall): the same
/// outcome and, on success, the same bits in q̈, λ, rcond and every model term of the workspace.
void compareWholeSolve(const ConstrainedSystem& system, const Stabilization& stabilization,
                       const KktOptions& options, const Vector& q, const Vector& v) {
  AccelerationFunction f(system, stabilization, options);
  KktWorkspace ws(system, options);
  Vector qdd = Vector::Constant(system.nq(), -7.0);
  KktResult result;
  result.message = "left over from an earlier solve";
  result.offending_rows = {3};
  const bool ok = f.evaluate(0.4, q, v, qdd, result);
  const KktResult expected = solveAccelerations(system, 0.4, q, v, Vector(), stabilization, options, ws);
  INFO(system.name() << " " << stabilization.describe() << " estimate " << options.estimate_condition << ": "
                     << result.message << " | " << expected.message);
  CHECK(ok == expected.ok());
  CHECK(result.status == expected.status);
  CHECK(result.message == expected.message);
  CHECK(result.offending_rows == expected.offending_rows);
  CHECK(result.rank_deficient == expected.rank_deficient);
  CHECK(result.rank == expected.rank);
  CHECK((std::memcmp(&result.rcond, &expected.rcond, sizeof(double)) == 0 ||
         (std::isnan(result.rcond) && std::isnan(expected.rcond))));
  if (!expected.ok()) return;
  const KktWorkspace& fast = f.workspace();
  CHECK(sameBits(qdd, ws.qdd));
  CHECK(sameBits(fast.qdd, ws.qdd));
  CHECK(sameBits(fast.lambda, ws.lambda));
  CHECK(sameBits(fast.force, ws.force));
  CHECK(sameBits(fast.phi, ws.phi));
  CHECK(sameBits(fast.phi_dot, ws.phi_dot));
  CHECK(sameBits(fast.gamma, ws.gamma));
  CHECK(sameBits(fast.constraint_target, ws.constraint_target));
  CHECK(fast.J == ws.J);
}

}  // namespace

TEST_CASE("kkt small Schur path: AccelerationFunction's whole solve gives solveAccelerations' bits",
          "[kkt][small]") {
  std::vector<std::unique_ptr<ConstrainedSystem>> systems;
  for (int links : {1, 2, 3}) {
    PendulumChainParams params = PendulumChainParams::uniform(links);
    for (int k = 0; k < links; ++k) {
      params.masses[k] = 0.3 + 0.9 * k;
      params.lengths[k] = 1.0 + 0.2 * k;
    }
    systems.push_back(std::make_unique<PendulumChain>(params));
  }
  systems.push_back(std::make_unique<CircleMass>());
  systems.push_back(std::make_unique<PointOnPlane>());
  systems.push_back(std::make_unique<ParticleSystem>(planarRods(3, 4)));
  systems.push_back(std::make_unique<ParticleSystem>(looseParticles()));
  systems.push_back(std::make_unique<DiagonalMassChain>(2));
  std::mt19937_64 rng(11);
  for (const auto& system : systems) {
    for (int trial = 0; trial < 10; ++trial) {
      const Vector q = randomVector(rng, system->nq(), 1.5), v = randomVector(rng, system->nq(), 2.0);
      for (const Stabilization& stabilization : {Stabilization::none(), Stabilization::baumgarte(3.0, 7.0)}) {
        for (const bool estimate : {true, false}) {
          KktOptions options;
          options.estimate_condition = estimate;
          compareWholeSolve(*system, stabilization, options, q, v);
        }
      }
    }
  }
}

TEST_CASE("kkt small Schur path: the whole solve's failures are solveAccelerations' failures",
          "[kkt][small][errors]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const Vector q = chain.initialState(0.3).q, v = Vector::Constant(6, 0.2);
  const Stabilization baumgarte = Stabilization::baumgarte(20.0, 20.0);
  // Each spoiled model output, NaN and ∞: the whole solve declines and the general path names it.
  for (const double value : {nan, inf}) {
    for (const Poisoned output : {Poisoned::Bias, Poisoned::Constraint, Poisoned::Jacobian, Poisoned::ConstraintBias,
                                  Poisoned::TimeDerivative}) {
      compareWholeSolve(PoisonedChain({output}, value), baumgarte, KktOptions{}, q, v);
    }
    Vector bad_q = q, bad_v = v;
    bad_q[1] = value;
    bad_v[4] = value;
    compareWholeSolve(chain, baumgarte, KktOptions{}, bad_q, v);
    compareWholeSolve(chain, baumgarte, KktOptions{}, q, bad_v);
  }
  compareWholeSolve(DiagonalMassChain(2, true), baumgarte, KktOptions{}, q, v);  // M not positive definite
  // Singular J M⁻¹ Jᵀ: the plain failure and the minimum-norm policy.
  const testing::DuplicatedCircle redundant;
  Vector qc(2), vc(2);
  qc << 0.6, -0.8;
  vc << 0.8, 0.6;
  KktOptions options;
  compareWholeSolve(redundant, {}, options, qc, vc);
  options.rank_deficiency = RankDeficiencyPolicy::MinimumNorm;
  compareWholeSolve(redundant, {}, options, qc, vc);
  // Wrong sizes still throw.
  AccelerationFunction f(chain, baumgarte, KktOptions{});
  Vector qdd(6);
  KktResult result;
  CHECK_THROWS_AS(f.evaluate(0.0, Vector::Zero(5), v, qdd, result), std::invalid_argument);
}

TEST_CASE("kkt small Schur path: a reused KktResult is overwritten, failure after success and back",
          "[kkt][small]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  AccelerationFunction f(chain, Stabilization::baumgarte(20.0, 20.0), KktOptions{});
  const Vector q = chain.initialState(0.3).q, v = Vector::Constant(6, 0.2);
  Vector bad_v = v;
  bad_v[0] = std::numeric_limits<double>::quiet_NaN();
  Vector qdd(6);
  KktResult result;
  REQUIRE(f.evaluate(0.0, q, v, qdd, result));
  const Vector first = qdd;
  CHECK_FALSE(f.evaluate(0.0, q, bad_v, qdd, result));
  CHECK(result.status == KktStatus::NonFinite);
  CHECK_FALSE(result.message.empty());
  REQUIRE(f.evaluate(0.0, q, v, qdd, result));
  CHECK(result.message.empty());
  CHECK(result.offending_rows.empty());
  CHECK(result.rcond > 0.0);
  CHECK(sameBits(qdd, first));
  CHECK(f.solves() == 3);
}
