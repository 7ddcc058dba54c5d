// Both KKT forms against each other and against a dense reference assembled by hand, on every
// model and many random states; failure reporting for singular and non-finite systems.
#include <catch2/catch.hpp>

#include <Eigen/LU>
#include <memory>

#include "support/test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;
using Catch::Matchers::Contains;

namespace {

struct Solution {
  Vector qdd, lambda;
};

Solution solveWith(const ConstrainedSystem& system, KktForm form, double t, const Vector& q, const Vector& v,
                   const Vector& u, const Stabilization& stabilization) {
  KktWorkspace ws(system);
  KktOptions options;
  options.form = form;
  const KktResult result = solveAccelerations(system, t, q, v, u, stabilization, options, ws);
  INFO(system.name() << " " << toString(form) << ": " << result.message);
  REQUIRE(result.ok());
  CHECK(result.rcond > 0.0);
  return {ws.qdd, ws.lambda};
}

/// The full KKT matrix built from the model's raw outputs and solved by full-pivoting LU.
Solution denseReference(const ConstrainedSystem& system, double t, const Vector& q, const Vector& v,
                        const Vector& u, const Stabilization& stab) {
  const int nq = system.nq(), nc = system.nc(), nu = system.nu();
  Matrix M(nq, nq), J(nc, nq), S(nu, nq);
  Vector h(nq), phi(nc), phi_t(nc), gamma(nc);
  system.massMatrix(q, M);
  system.bias(q, v, t, h);
  system.inputMap(q, t, S);
  system.constraint(q, t, phi);
  system.constraintJacobian(q, t, J);
  system.constraintTimeDerivative(q, t, phi_t);
  system.constraintBias(q, v, t, gamma);
  Matrix K = Matrix::Zero(nq + nc, nq + nc);
  K.topLeftCorner(nq, nq) = M;
  K.topRightCorner(nq, nc) = -J.transpose();
  K.bottomLeftCorner(nc, nq) = J;
  Vector rhs(nq + nc);
  rhs.head(nq) = S.transpose() * u - h;
  rhs.tail(nc) = -gamma - 2.0 * stab.alpha * (J * v + phi_t) - stab.beta * stab.beta * phi;
  const Vector x = K.fullPivLu().solve(rhs);
  return {x.head(nq), x.tail(nc)};
}

bool agree(const Vector& a, const Vector& b, double tol) { return (a - b).norm() <= tol * (1.0 + a.norm()); }

void compareFormsAtRandomStates(const ConstrainedSystem& system, double q_scale, int trials) {
  std::mt19937_64 rng(42);
  const Stabilization stabs[] = {Stabilization::none(), Stabilization::critical(20.0),
                                 Stabilization::baumgarte(5.0, 10.0)};
  for (int trial = 0; trial < trials; ++trial) {
    const Vector q = randomVector(rng, system.nq(), q_scale);
    const Vector v = randomVector(rng, system.nq(), 2.0);
    const Vector u = randomVector(rng, system.nu(), 3.0);
    const double t = randomVector(rng, 1, 2.0)[0];
    for (const Stabilization& stab : stabs) {
      const Solution schur = solveWith(system, KktForm::Schur, t, q, v, u, stab);
      const Solution block = solveWith(system, KktForm::Block, t, q, v, u, stab);
      const Solution dense = denseReference(system, t, q, v, u, stab);
      INFO(system.name() << " trial " << trial << " " << stab.describe());
      CHECK(agree(schur.qdd, block.qdd, 1e-10));
      CHECK(agree(schur.lambda, block.lambda, 1e-10));
      CHECK(agree(dense.qdd, schur.qdd, 1e-10));
      CHECK(agree(dense.lambda, schur.lambda, 1e-10));
    }
  }
}

}  // namespace

TEST_CASE("kkt: Schur and block forms agree with each other and a dense reference", "[kkt]") {
  for (int links : {1, 2, 3, 5, 12}) {
    PendulumChainParams params = PendulumChainParams::uniform(links);
    for (int k = 0; k < links; ++k) params.masses[k] = 0.5 + 0.25 * k;
    compareFormsAtRandomStates(PendulumChain(params), 1.5, 40);
  }
  compareFormsAtRandomStates(CircleMass(), 1.5, 40);
  testing::JointDoublePendulum::Params slot;
  slot.rotating_slot = true;
  compareFormsAtRandomStates(testing::JointDoublePendulum(slot), 3.0, 40);
  compareFormsAtRandomStates(testing::JointDoublePendulum({}), 3.0, 10);  // nc = 0
}

TEST_CASE("kkt: the solution satisfies both KKT rows", "[kkt]") {
  const PendulumChain chain(PendulumChainParams::uniform(4));
  std::mt19937_64 rng(3);
  const Vector q = randomVector(rng, chain.nq(), 1.0), v = randomVector(rng, chain.nq(), 1.0);
  const Stabilization stab = Stabilization::baumgarte(3.0, 7.0);
  for (KktPath path : {KktPath::Dense, KktPath::Sparse}) {
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      INFO(toString(path) << ", " << toString(form));
      KktOptions options;
      options.form = form;
      options.path = path;
      KktWorkspace ws(chain, options);
      REQUIRE(solveAccelerations(chain, 0.0, q, v, Vector(), stab, options, ws).ok());
      Matrix M(chain.nq(), chain.nq()), J(chain.nc(), chain.nq());
      chain.massMatrix(q, M);
      chain.constraintJacobian(q, 0.0, J);
      CHECK((ws.jacobian() - J).cwiseAbs().maxCoeff() == 0.0);
      const Vector dynamics = M * ws.qdd + ws.h - J.transpose() * ws.lambda;
      const Vector constraint_row = J * ws.qdd + ws.gamma + 6.0 * ws.phi_dot + 49.0 * ws.phi;
      CHECK(dynamics.lpNorm<Eigen::Infinity>() < 1e-11);
      CHECK(constraint_row.lpNorm<Eigen::Infinity>() < 1e-11);
    }
  }
}

TEST_CASE("kkt: redundant constraints fail with the offending rows, never NaN", "[kkt][errors]") {
  const testing::DuplicatedCircle redundant;
  Vector q(2), v(2);
  q << 0.6, -0.8;
  v << 0.8, 0.6;
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    KktWorkspace ws(redundant);
    KktOptions options;
    options.form = form;
    const KktResult result = solveAccelerations(redundant, 0.0, q, v, Vector(), {}, options, ws);
    INFO(toString(form) << ": " << result.message);
    CHECK_FALSE(result.ok());
    CHECK((result.status == KktStatus::Singular || result.status == KktStatus::IllConditioned));
    CHECK(result.rcond < 1e-13);
    CHECK(result.offending_rows == std::vector<int>{0, 1});  // the support of null(Jᵀ)
    CHECK(!result.message.empty());
  }
}

TEST_CASE("kkt: a NaN in the state or in the model's output is reported, not returned", "[kkt][errors]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  KktWorkspace ws(chain);
  Vector q = chain.initialState(0.1).q, v = Vector::Zero(6);
  q[4] = std::numeric_limits<double>::quiet_NaN();
  KktResult result = solveAccelerations(chain, 0.0, q, v, Vector(), {}, {}, ws);
  CHECK(result.status == KktStatus::NonFinite);
  CHECK_THAT(result.message, Contains("state"));

  const testing::NanAfterTime broken(chain, 1.0);
  KktWorkspace ws2(broken);
  q = chain.initialState(0.1).q;
  CHECK(solveAccelerations(broken, 0.5, q, v, Vector(), {}, {}, ws2).ok());
  result = solveAccelerations(broken, 1.0, q, v, Vector(), {}, {}, ws2);
  CHECK(result.status == KktStatus::NonFinite);
  // h is indexed by coordinate, not by constraint row: the message names it, the rows stay empty.
  CHECK_THAT(result.message, Contains("generalized force") && Contains("coordinate 0"));
  CHECK(result.offending_rows.empty());
}

TEST_CASE("kkt: wrong sizes and options throw std::invalid_argument naming them", "[kkt][errors]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  KktWorkspace ws(chain);
  const Vector q = chain.initialState(0.0).q;
  CHECK_THROWS_WITH(solveAccelerations(chain, 0.0, Vector::Zero(5), Vector::Zero(6), Vector(), {}, {}, ws),
                    Contains("q: size 5, expected 6"));
  CHECK_THROWS_WITH(solveAccelerations(chain, 0.0, q, Vector::Zero(7), Vector(), {}, {}, ws),
                    Contains("v: size 7"));
  CHECK_THROWS_WITH(solveAccelerations(chain, 0.0, q, q, Vector::Zero(1), {}, {}, ws), Contains("u: size 1"));
  const CircleMass circle;
  CHECK_THROWS_WITH(solveAccelerations(circle, 0.0, Vector::Zero(2), Vector::Zero(2), Vector(), {}, {}, ws),
                    Contains("q: size 2, expected 6"));
  CHECK_THROWS_WITH(parseKktForm("cholesky"), Contains("cholesky") && Contains("schur"));
  KktOptions bad;
  bad.min_rcond = -1.0;
  CHECK_THROWS_WITH(bad.validate(), Contains("min_rcond"));
}
