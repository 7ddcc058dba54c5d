// SemidefinitePseudoInverse against the SVD's pseudo-inverse on rank-deficient and badly scaled
// positive semidefinite matrices.
#include <catch2/catch.hpp>

#include <Eigen/SVD>
#include <random>

#include "kktdae/linalg/semidefinite_pseudo_inverse.hpp"

using namespace kktdae;

namespace {

/// A = B D Bᵀ with B n×r random and D spreading the column scales over `spread` orders.
Matrix semidefinite(int n, int r, double spread, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Matrix b(n, r);
  for (int j = 0; j < r; ++j) {
    for (int i = 0; i < n; ++i) b(i, j) = normal(rng);
    b.col(j) *= std::pow(10.0, -spread * j / std::max(r - 1, 1) / 2.0);
  }
  return b * b.transpose();
}

}  // namespace

TEST_CASE("semidefinite pseudo-inverse: rank and A⁺x as the SVD's", "[linalg][pseudo_inverse]") {
  std::mt19937 rng(7);
  for (int n : {1, 2, 6, 12}) {
    for (int r = 0; r <= n; ++r) {
      for (double spread : {0.0, 4.0}) {
        INFO("n " << n << ", rank " << r << ", spread 1e" << spread);
        const Matrix a = semidefinite(n, r, spread, rng);
        SemidefinitePseudoInverse pinv;
        pinv.resize(n);
        CHECK(pinv.factorize(a, 1e-10) == r);
        Eigen::JacobiSVD<Matrix> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
        svd.setThreshold(1e-10);
        Vector x = Vector::LinSpaced(n, -1.0, 2.0);
        const Vector expected = svd.solve(x);
        pinv.applyInPlace(x);
        // The answer's own condition (1e4 with spread) times round-off, relative to its size.
        const double condition = r > 0 ? svd.singularValues()[0] / svd.singularValues()[r - 1] : 1.0;
        CHECK((x - expected).norm() <= 1e-13 * condition * (1.0 + expected.norm()));
      }
    }
  }
}

TEST_CASE("semidefinite pseudo-inverse: a zero, a non-finite and a negative matrix have rank 0",
          "[linalg][pseudo_inverse]") {
  SemidefinitePseudoInverse pinv;
  pinv.resize(3);
  Vector x = Vector::Ones(3);
  CHECK(pinv.factorize(Matrix::Zero(3, 3), 1e-10) == 0);
  pinv.applyInPlace(x);
  CHECK(x.isZero(0.0));
  Matrix bad = Matrix::Identity(3, 3);
  bad(1, 1) = std::numeric_limits<double>::quiet_NaN();
  CHECK(pinv.factorize(bad, 1e-10) == 0);
  CHECK(pinv.factorize(-Matrix::Identity(3, 3), 1e-10) == 0);
}
