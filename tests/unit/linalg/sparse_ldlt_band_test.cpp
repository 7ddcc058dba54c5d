// SparseLdlt's band path against its general path and dense factorizations: random banded SPD
// and quasi-definite matrices, chain Schur matrices J M⁻¹ Jᵀ, the detection (natural order, a
// relabelled band found by the ordering, fall-back for patterns that are not banded) and
// breakdown on singular input.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "kktdae/kkt/sparse_constraint_space.hpp"
#include "kktdae/linalg/sparse_ldlt.hpp"
#include "support/sparse_ldlt_load.hpp"
#include "kktdae/models/pendulum_chain.hpp"

using namespace kktdae;

namespace {

/// A random symmetric matrix of bandwidth exactly min(b, n − 1): each entry inside the band
/// present with probability `density`, the outermost diagonal's first entry always.
Matrix randomBanded(int n, int b, double density, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> value(-1.0, 1.0), coin(0.0, 1.0);
  Matrix A = Matrix::Zero(n, n);
  for (int j = 0; j < n; ++j) {
    for (int i = std::max(0, j - b); i < j; ++i) {
      if (coin(rng) < density || (i == 0 && j == std::min(b, n - 1))) A(i, j) = A(j, i) = value(rng);
    }
  }
  return A;
}

/// Diagonally dominant: SPD.
Matrix makeSpd(Matrix A) {
  A.diagonal() = A.cwiseAbs().rowwise().sum().array() + 0.5;
  return A;
}

void load(SparseLdlt& ldlt, const Matrix& A, bool reorder, int max_bandwidth) {
  test::loadUpperTriangle(ldlt, A, reorder, max_bandwidth);
}

double relativeDifference(const Vector& x, const Vector& reference) {
  return (x - reference).lpNorm<Eigen::Infinity>() / (1.0 + reference.lpNorm<Eigen::Infinity>());
}

}  // namespace

TEST_CASE("sparse ldlt band: random banded SPD matrices solve like the general path", "[linalg][sparse][band]") {
  std::mt19937_64 rng(11);
  for (int n : {1, 2, 5, 60, 400}) {
    for (int b : {0, 1, 2, 3, 5, 8}) {
      for (double density : {0.5, 1.0}) {
        INFO("n " << n << ", b " << b << ", density " << density);
        const Matrix A = makeSpd(randomBanded(n, b, density, rng));
        SparseLdlt band, general, general_amd;
        load(band, A, true, SparseLdlt::kDefaultMaxBandwidth);
        load(general, A, false, -1);
        load(general_amd, A, true, -1);
        CHECK(band.bandwidth() == std::min(b, n - 1));
        CHECK(general.bandwidth() == -1);
        REQUIRE(band.factorize(true));
        REQUIRE(general.factorize(true));
        REQUIRE(general_amd.factorize(true));
        const Vector rhs = Vector::LinSpaced(n, -1.0, 2.0);
        Vector x = rhs, y = rhs, z = rhs;
        band.solveInPlace(x);
        general.solveInPlace(y);
        general_amd.solveInPlace(z);
        CHECK(relativeDifference(x, y) < 1e-14);
        CHECK(relativeDifference(x, z) < 1e-13);
        CHECK(relativeDifference(A * x, rhs) < 1e-13);
        // Natural order on both: the same pivots, so the same conditioning indicator.
        CHECK(std::abs(band.pivotRatio() - general.pivotRatio()) <= 1e-14 * general.pivotRatio());
        // Refactorizing other values in the same pattern (what every step does).
        const Matrix B = A + Matrix::Identity(n, n);
        load(band, B, true, SparseLdlt::kDefaultMaxBandwidth);
        REQUIRE(band.factorize(true));
        x = rhs;
        band.solveInPlace(x);
        CHECK(relativeDifference(B * x, rhs) < 1e-13);
      }
    }
  }
}

TEST_CASE("sparse ldlt band: quasi-definite banded matrices and breakdown as on the general path",
          "[linalg][sparse][band]") {
  std::mt19937_64 rng(5);
  // Alternating signs on the diagonal, dominant: quasi-definite after any symmetric ordering.
  Matrix K = randomBanded(30, 2, 1.0, rng);
  K.diagonal() = K.cwiseAbs().rowwise().sum().array() + 1.0;
  for (int k = 1; k < 30; k += 2) K(k, k) = -K(k, k);
  SparseLdlt band, general;
  load(band, K, true, SparseLdlt::kDefaultMaxBandwidth);
  load(general, K, false, -1);
  REQUIRE(band.bandwidth() == 2);
  CHECK_FALSE(band.factorize(true));
  CHECK_FALSE(general.factorize(true));
  CHECK(band.breakdownIndex() == general.breakdownIndex());
  CHECK(band.breakdownIndex() == 1);  // the first negative pivot
  REQUIRE(band.factorize(false));
  REQUIRE(general.factorize(false));
  const Vector rhs = Vector::LinSpaced(30, 3.0, -1.0);
  Vector x = rhs, y = rhs;
  band.solveInPlace(x);
  general.solveInPlace(y);
  CHECK(relativeDifference(x, y) < 1e-14);
  CHECK(relativeDifference(K * x, rhs) < 1e-12);

  // Tridiagonal with rows 4 and 5 equal (rank one short): the pivot of row 5 vanishes.
  Matrix S = Matrix::Zero(8, 8);
  for (int k = 0; k < 8; ++k) S(k, k) = 3.0;
  for (int k = 1; k < 8; ++k) S(k - 1, k) = S(k, k - 1) = 1.0;
  S(4, 4) = S(4, 5) = S(5, 4) = S(5, 5) = 1.0;
  S(3, 4) = S(4, 3) = S(5, 6) = S(6, 5) = 0.0;
  load(band, S, true, SparseLdlt::kDefaultMaxBandwidth);
  load(general, S, false, -1);
  REQUIRE(band.bandwidth() == 1);
  CHECK_FALSE(band.factorize(true));
  CHECK_FALSE(general.factorize(true));
  CHECK(band.breakdownIndex() == 5);
  CHECK(general.breakdownIndex() == 5);
  CHECK(band.pivotRatio() == 0.0);
  S(5, 5) = 2.0;  // fixed: the same storage refactorizes, nothing stale is left
  load(band, S, true, SparseLdlt::kDefaultMaxBandwidth);
  CHECK(band.factorize(true));
}

TEST_CASE("sparse ldlt band: a chain's J M⁻¹ Jᵀ is factorized as a tridiagonal band", "[linalg][sparse][band]") {
  for (int links : {4, 37, 500}) {
    INFO(links << " links");
    PendulumChainParams params = PendulumChainParams::uniform(links);
    for (int k = 0; k < links; ++k) params.masses[k] = 1.0 + 0.01 * k;  // unequal masses: weights differ
    const PendulumChain chain(params);
    const State state = chain.initialState(0.3);
    SparseConstraintSpace space(chain);
    REQUIRE(space.ldlt.bandwidth() == 1);
    std::vector<int> natural(static_cast<std::size_t>(links));
    std::iota(natural.begin(), natural.end(), 0);
    REQUIRE(space.ldlt.permutation() == natural);  // the natural order: no permutation
    Vector inverse_mass(chain.nq());
    chain.massDiagonal(state.q, inverse_mass);
    inverse_mass = inverse_mass.cwiseInverse();
    REQUIRE(space.evaluateJacobian(chain, state.q, 0.0));
    Vector diagonal(chain.nc());
    space.assemble(inverse_mass, diagonal);
    REQUIRE(space.ldlt.factorize(true));
    // The same matrix densely, and through the general path.
    const Matrix J(space.J);
    const Matrix A = J * inverse_mass.asDiagonal() * J.transpose();
    CHECK((diagonal - A.diagonal()).lpNorm<Eigen::Infinity>() < 1e-14 * A.diagonal().lpNorm<Eigen::Infinity>());
    SparseLdlt general;
    load(general, A, true, -1);
    REQUIRE(general.factorize(true));
    const Vector rhs = Vector::LinSpaced(chain.nc(), 1.0, -2.0);
    Vector x = rhs, y = rhs;
    space.ldlt.solveInPlace(x);
    general.solveInPlace(y);
    const Vector reference = A.ldlt().solve(rhs);
    // Long chains are ill-conditioned (κ grows like N²): forward errors are κ·eps, the backward
    // error (the residual relative to ‖A‖‖x‖) stays at eps.
    const Eigen::SelfAdjointEigenSolver<Matrix> eigen(A, Eigen::EigenvaluesOnly);
    const double kappa = eigen.eigenvalues().maxCoeff() / eigen.eigenvalues().minCoeff();
    const double forward = 10.0 * kappa * std::numeric_limits<double>::epsilon();
    INFO("kappa " << kappa << ", band vs general " << relativeDifference(x, y) << ", vs dense "
                  << relativeDifference(x, reference));
    CHECK(relativeDifference(x, y) < forward);
    CHECK(relativeDifference(x, reference) < forward);
    const double norm_a = A.cwiseAbs().rowwise().sum().maxCoeff();
    CHECK((A * x - rhs).lpNorm<Eigen::Infinity>() < 10.0 * std::numeric_limits<double>::epsilon() * norm_a *
                                                          x.lpNorm<Eigen::Infinity>());
  }
}

TEST_CASE("sparse ldlt band: detection finds a relabelled band and falls back for other patterns",
          "[linalg][sparse][band]") {
  std::mt19937_64 rng(3);
  const int n = 80;
  // A tridiagonal matrix with its rows relabelled by a cyclic shift: the link between the halves
  // makes the natural bandwidth n − 1, and the fill-reducing order is a band again. (It finds a
  // band by accident, not by design: for a random relabelling it finds none, and the general
  // path is taken; no bandwidth-reducing ordering is tried.)
  const Matrix T = makeSpd(randomBanded(n, 1, 1.0, rng));
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P(n);
  for (int k = 0; k < n; ++k) P.indices()[k] = (k + n / 2) % n;
  const Matrix shuffled = P * T * P.transpose();
  SparseLdlt found;
  load(found, shuffled, true, SparseLdlt::kDefaultMaxBandwidth);
  CHECK(found.bandwidth() >= 1);
  CHECK(found.bandwidth() <= SparseLdlt::kDefaultMaxBandwidth);
  REQUIRE(found.factorize(true));
  const Vector rhs = Vector::LinSpaced(n, -2.0, 1.0);
  Vector x = rhs;
  found.solveInPlace(x);
  CHECK(relativeDifference(shuffled * x, rhs) < 1e-13);
  // Without reordering the relabelled pattern is not a narrow band: the general path.
  SparseLdlt natural;
  load(natural, shuffled, false, SparseLdlt::kDefaultMaxBandwidth);
  CHECK(natural.bandwidth() == -1);
  REQUIRE(natural.factorize(true));
  Vector y = rhs;
  natural.solveInPlace(y);
  CHECK(relativeDifference(x, y) < 1e-13);

  // An arrow (row 0 coupled to every row) is no band in any order: the general path.
  Matrix arrow = Matrix::Identity(n, n);
  for (int k = 1; k < n; ++k) arrow(0, k) = arrow(k, 0) = 0.5 / n;
  arrow(0, 0) = 2.0;
  SparseLdlt general;
  load(general, arrow, true, SparseLdlt::kDefaultMaxBandwidth);
  CHECK(general.bandwidth() == -1);
  REQUIRE(general.factorize(true));
  Vector z = rhs;
  general.solveInPlace(z);
  CHECK(relativeDifference(arrow * z, rhs) < 1e-13);
  // A band wider than max_bandwidth falls back too, and −1 turns the band path off.
  const Matrix wide = makeSpd(randomBanded(n, 3, 1.0, rng));
  SparseLdlt narrow_limit, off;
  load(narrow_limit, wide, false, 2);
  load(off, T, false, -1);
  CHECK(narrow_limit.bandwidth() == -1);
  CHECK(off.bandwidth() == -1);
  CHECK_THROWS_AS(off.analyze(2, {{0, 0}, {1, 1}}, true, -2), std::invalid_argument);
  CHECK_THROWS_AS(off.analyze(2, {{0, 0}, {0, 1}, {1, 1}, {0, 1}}), std::invalid_argument);  // a duplicate, banded
}
