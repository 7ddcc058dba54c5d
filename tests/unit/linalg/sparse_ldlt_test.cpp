// SparseLdlt against dense factorizations: SPD and quasi-definite matrices with and without
// reordering, breakdown on singular input, and the pattern validation.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <random>

#include "kktdae/linalg/sparse_ldlt.hpp"
#include "support/sparse_ldlt_load.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

/// A random symmetric sparse matrix: diagonal plus about `density` of the off-diagonal pairs.
Matrix randomSymmetricSparse(int n, double density, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> value(-1.0, 1.0), coin(0.0, 1.0);
  Matrix A = Matrix::Zero(n, n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < j; ++i) {
      if (coin(rng) < density) A(i, j) = A(j, i) = value(rng);
    }
  }
  return A;
}

/// Loads A into an analyzed SparseLdlt (the general path or, for a narrow band, the band path).
void load(SparseLdlt& ldlt, const Matrix& A, bool reorder) { test::loadUpperTriangle(ldlt, A, reorder); }

}  // namespace

TEST_CASE("sparse ldlt: solves SPD and quasi-definite systems like a dense factorization", "[linalg][sparse]") {
  std::mt19937_64 rng(7);
  for (int n : {1, 2, 7, 40, 120}) {
    for (bool reorder : {false, true}) {
      INFO("n " << n << ", reorder " << reorder);
      Matrix B = randomSymmetricSparse(n, 0.08, rng);
      // SPD: diagonally dominant.
      Matrix spd = B;
      spd.diagonal() = B.cwiseAbs().rowwise().sum().array() + 1.0;
      SparseLdlt ldlt;
      load(ldlt, spd, reorder);
      REQUIRE(ldlt.factorize(true));
      const Vector b = Vector::LinSpaced(n, -1.0, 2.0);
      Vector x = b;
      ldlt.solveInPlace(x);
      const Vector reference = spd.ldlt().solve(b);
      CHECK((x - reference).lpNorm<Eigen::Infinity>() < 1e-12 * (1.0 + reference.lpNorm<Eigen::Infinity>()));
      CHECK(ldlt.pivotRatio() > 0.0);
      CHECK(ldlt.pivotRatio() <= 1.0);

      // Quasi-definite [H Cᵀ; C −G]: indefinite, factorizable without pivoting in any order.
      const int m = n / 2 + 1;
      Matrix K = Matrix::Zero(n + m, n + m);
      K.topLeftCorner(n, n) = spd;
      Matrix C = randomSymmetricSparse(n + m, 0.1, rng).bottomLeftCorner(m, n);
      K.bottomLeftCorner(m, n) = C;
      K.topRightCorner(n, m) = C.transpose();
      K.bottomRightCorner(m, m).diagonal().setConstant(-1e-3);
      SparseLdlt quasi;
      load(quasi, K, reorder);
      REQUIRE(quasi.factorize(false));
      CHECK_FALSE(quasi.factorize(true));  // negative pivots: not positive definite
      REQUIRE(quasi.factorize(false));
      Vector y = Vector::LinSpaced(n + m, 3.0, -1.0);
      const Vector y_reference = K.fullPivLu().solve(y);
      quasi.solveInPlace(y);
      CHECK((y - y_reference).lpNorm<Eigen::Infinity>() < 1e-9 * (1.0 + y_reference.lpNorm<Eigen::Infinity>()));
    }
  }
}

TEST_CASE("sparse ldlt: a singular matrix breaks down and names a row of the dependent pair", "[linalg][sparse]") {
  // Rows 1 and 3 equal: rank 3 of 4.
  Matrix A(4, 4);
  A << 2, 0, 0, 0,  //
      0, 2, 0, 2,   //
      0, 0, 3, 0,   //
      0, 2, 0, 2;
  SparseLdlt ldlt;
  load(ldlt, A, false);
  CHECK_FALSE(ldlt.factorize(true));
  CHECK((ldlt.breakdownIndex() == 1 || ldlt.breakdownIndex() == 3));
  CHECK(ldlt.pivotRatio() == 0.0);
  // The same values refactorize after a fix: nothing stale is left in the scratch.
  A(3, 3) = 3.0;
  load(ldlt, A, false);
  CHECK(ldlt.factorize(true));
}

TEST_CASE("sparse ldlt: the pattern is validated", "[linalg][sparse][errors]") {
  SparseLdlt ldlt;
  CHECK_THROWS_WITH(ldlt.analyze(2, {{0, 0}, {1, 0}, {1, 1}}), Contains("outside the upper triangle"));
  CHECK_THROWS_WITH(ldlt.analyze(2, {{0, 0}, {0, 1}}), Contains("diagonal entry (1, 1) is missing"));
  CHECK_THROWS_WITH(ldlt.analyze(2, {{0, 0}, {1, 1}, {0, 1}, {0, 1}}), Contains("appears twice"));
}
