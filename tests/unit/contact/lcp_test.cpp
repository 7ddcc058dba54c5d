// The LCP solver (contact/lcp.hpp): closed forms, agreement with enumerating every active set on
// random positive semidefinite problems, the minimum-norm answer for redundant contacts, and the
// failure modes.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <random>

#include "kktdae/contact/lcp.hpp"

using namespace kktdae;
using namespace kktdae::contact;
using Catch::Matchers::Contains;

namespace lcp_test {

// Every one of the 2ⁿ active sets: the solution w of a positive semidefinite LCP (the same for all
// its solutions), found by brute force.
bool bruteForceW(const Matrix& W, const Vector& b, Vector& w_out) {
  const int n = static_cast<int>(b.size());
  for (int mask = 0; mask < (1 << n); ++mask) {
    std::vector<int> I;
    for (int i = 0; i < n; ++i)
      if (mask & (1 << i)) I.push_back(i);
    Vector lam = Vector::Zero(n);
    if (!I.empty()) {
      Matrix A(I.size(), I.size());
      Vector r(I.size());
      for (std::size_t a = 0; a < I.size(); ++a) {
        r[static_cast<Eigen::Index>(a)] = -b[I[a]];
        for (std::size_t c = 0; c < I.size(); ++c) A(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(c)) = W(I[a], I[c]);
      }
      const Vector x = A.colPivHouseholderQr().solve(r);
      if ((A * x - r).norm() > 1e-9) continue;
      for (std::size_t a = 0; a < I.size(); ++a) lam[I[a]] = x[static_cast<Eigen::Index>(a)];
    }
    const Vector w = W * lam + b;
    if (lam.minCoeff() >= -1e-9 && w.minCoeff() >= -1e-9) {
      w_out = w;
      return true;
    }
  }
  return false;
}

}  // namespace lcp_test

TEST_CASE("LCP: one unknown and two, against closed forms", "[contact][lcp]") {
  Matrix W1(1, 1);
  W1 << 2.0;
  LcpResult r = solveLcp(W1, Vector::Constant(1, -4.0));
  REQUIRE(r.ok());
  CHECK(r.lambda[0] == Approx(2.0).epsilon(1e-15));
  CHECK(r.residual <= 1e-15);
  r = solveLcp(W1, Vector::Constant(1, 3.0));
  REQUIRE(r.ok());
  CHECK(r.lambda[0] == 0.0);
  CHECK(r.w[0] == 3.0);

  Matrix W(2, 2);
  W << 2.0, 1.0, 1.0, 2.0;
  r = solveLcp(W, (Vector(2) << -5.0, -6.0).finished());  // both push: W λ = (5, 6)
  REQUIRE(r.ok());
  CHECK(r.lambda[0] == Approx(4.0 / 3.0).epsilon(1e-14));
  CHECK(r.lambda[1] == Approx(7.0 / 3.0).epsilon(1e-14));
  CHECK(r.residual <= 1e-14);
  r = solveLcp(W, (Vector(2) << -1.0, 3.0).finished());  // the first pushes, the second lifts off
  REQUIRE(r.ok());
  CHECK(r.lambda[0] == Approx(0.5).epsilon(1e-15));
  CHECK(r.lambda[1] == 0.0);
  CHECK(r.w[1] == Approx(3.5).epsilon(1e-15));
  CHECK(r.minimum_norm);
}

TEST_CASE("LCP: random positive semidefinite problems agree with enumerating the active sets", "[contact][lcp]") {
  std::mt19937 rng(46);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + trial % 5;
    const int rank = trial % 3 == 0 ? n - 1 : n;  // every third one singular
    Matrix B(n, rank);
    for (Eigen::Index i = 0; i < B.size(); ++i) B.data()[i] = normal(rng);
    const Matrix W = B * B.transpose();
    Vector b(n);
    for (int i = 0; i < n; ++i) b[i] = normal(rng);
    // A feasible b for the singular ones: b ∈ range(W) + a positive part.
    if (rank < n) b = W * b + Vector::Constant(n, 0.1).cwiseProduct(b.cwiseAbs());
    Vector w_ref;
    REQUIRE(lcp_test::bruteForceW(W, b, w_ref));
    const LcpResult r = solveLcp(W, b);
    INFO("trial " << trial << " n " << n << " rank " << rank);
    REQUIRE(r.ok());
    CHECK(r.residual <= 1e-10 * (1.0 + b.lpNorm<Eigen::Infinity>()));
    CHECK((r.w - w_ref).lpNorm<Eigen::Infinity>() <= 1e-8 * (1.0 + b.lpNorm<Eigen::Infinity>()));
    CHECK(complementarityResidual(W, b, r.lambda) == r.residual);
  }
}

TEST_CASE("LCP: redundant contacts (four corners on one floor) give the minimum-norm forces", "[contact][lcp]") {
  // A block of mass m resting on four corners that can only move vertically: every row of J_N is
  // the same, W = 11ᵀ/m (rank 1), b = −g. Any λ ≥ 0 with Σλ = m g solves it; m g/4 each is the
  // smallest.
  const double m = 2.0, g = 9.81;
  const Matrix W = Matrix::Constant(4, 4, 1.0 / m);
  const Vector b = Vector::Constant(4, -g);
  const LcpResult r = solveLcp(W, b);
  REQUIRE(r.ok());
  CHECK(r.minimum_norm);
  for (int i = 0; i < 4; ++i) CHECK(r.lambda[i] == Approx(m * g / 4.0).epsilon(1e-13));
  CHECK(r.residual <= 1e-13);
  // Without the minimum-norm pass, Lemke's vertex solution carries the whole weight on one corner.
  LcpOptions vertex;
  vertex.minimum_norm = false;
  const LcpResult v = solveLcp(W, b, vertex);
  REQUIRE(v.ok());
  CHECK(v.lambda.sum() == Approx(m * g).epsilon(1e-13));
  CHECK(v.lambda.maxCoeff() == Approx(m * g).epsilon(1e-13));
}

TEST_CASE("LCP: no solution, bad sizes and bad options", "[contact][lcp]") {
  Matrix W(1, 1);
  W << -1.0;  // w = −λ − 1 < 0 for every λ ≥ 0
  CHECK(solveLcp(W, Vector::Constant(1, -1.0)).status == LcpStatus::RayTermination);
  CHECK_THROWS_WITH(solveLcp(Matrix::Zero(2, 3), Vector::Zero(2)), Contains("2×3"));
  CHECK_THROWS_WITH(solveLcp(Matrix::Identity(2, 2), Vector::Zero(3)), Contains("3 entries"));
  LcpOptions bad;
  bad.tolerance = 0.0;
  CHECK_THROWS_WITH(solveLcp(W, Vector::Constant(1, 1.0), bad), Contains("tolerance"));
  CHECK(solveLcp(Matrix(0, 0), Vector(0)).ok());
}
