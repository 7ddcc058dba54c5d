// The sparse constraint space's per-row plans on a pattern unlike a chain's: runs of mixed widths
// (4, 2, 1), a column shared by three rows (q̈ started, accumulated and finished by different
// rows), a column without entries, and a model that lists its pattern out of storage order (J's
// values copied, not written in place). The sparse Schur solve must equal the dense one, and a
// non-finite J entry must still be named, even where q̇ is zero (∞·0 in φ̇ = J q̇).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "kktdae/kkt/solve_accelerations.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

/// 8 coordinates, 4 constraints, J(q) = base + q_c / 10 at a fixed scattered pattern, given in
/// reverse storage order. Column 6 has no entry; column 1 is shared by rows 0, 1 and 2.
class ScatteredPattern final : public ConstrainedSystem {
 public:
  std::string name() const override { return "scattered_pattern"; }
  int nq() const override { return 8; }
  int nc() const override { return 4; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override {
    for (int c = 0; c < 8; ++c) d[c] = 1.0 + 0.5 * c;
  }
  void bias(ConstVectorRef, ConstVectorRef v, double, VectorRef h) const override {
    for (int c = 0; c < 8; ++c) h[c] = 0.3 * c - 1.0 + 0.1 * v[c] * v[c];
  }
  void constraint(ConstVectorRef q, double, VectorRef phi) const override {
    for (int i = 0; i < 4; ++i) phi[i] = 0.05 * (i + 1) * q[i] - 0.02;
  }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    J.setZero();
    Vector values(jacobianNonZeros());
    constraintJacobianValues(q, t, values);
    for (int k = 0; k < jacobianNonZeros(); ++k) J(kRows[k], kCols[k]) = values[k];
  }
  void constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const override {
    for (int i = 0; i < 4; ++i) gamma[i] = v[i] * v[i + 4];
  }
  double potentialEnergy(ConstVectorRef, double) const override { return 0.0; }
  int jacobianNonZeros() const override { return kNonZeros; }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override {
    for (int k = 0; k < kNonZeros; ++k) {
      rows[k] = kRows[k];
      cols[k] = kCols[k];
    }
  }
  void constraintJacobianValues(ConstVectorRef q, double, VectorRef values) const override {
    for (int k = 0; k < kNonZeros; ++k) values[k] = kBase[k] + 0.1 * q[kCols[k]];
    if (poisoned_entry >= 0) values[poisoned_entry] = std::numeric_limits<double>::infinity();
  }

  int poisoned_entry = -1;  ///< model index of a J entry made +∞, or −1
  static constexpr int kNonZeros = 13;
  // Storage order reversed: row 3 (cols 7, 5, 0), row 2 (5, 4, 1), row 1 (4, 3, 1), row 0 (3, 2, 1, 0).
  static constexpr int kRows[kNonZeros] = {3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0};
  static constexpr int kCols[kNonZeros] = {7, 5, 0, 5, 4, 1, 4, 3, 1, 3, 2, 1, 0};
  static constexpr double kBase[kNonZeros] = {0.7, -1.1, 0.4, 1.3, 0.9, -0.6, 1.2, -0.8, 0.5, 1.0, 0.3, -0.9, 1.4};
};

KktOptions schurOn(KktPath path) {
  KktOptions options;
  options.path = path;
  options.form = KktForm::Schur;
  return options;
}

}  // namespace

TEST_CASE("sparse pattern: mixed runs, a three-row column, an empty column and a copied J solve as the dense path",
          "[kkt][sparse]") {
  const ScatteredPattern model;
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    const Vector q = testing::randomVector(rng, model.nq(), 1.0);
    const Vector v = testing::randomVector(rng, model.nq(), 1.0);
    for (const Stabilization& stabilization :
         {Stabilization::none(), Stabilization::baumgarte(20.0, 20.0), Stabilization::softConstraint()}) {
      INFO("trial " << trial << ", " << stabilization.describe());
      KktWorkspace dense(model, schurOn(KktPath::Dense));
      REQUIRE(solveAccelerations(model, 0.0, q, v, Vector(), stabilization, schurOn(KktPath::Dense), dense).ok());
      KktWorkspace sparse(model, schurOn(KktPath::Sparse));
      REQUIRE(sparse.sparse);
      REQUIRE(solveAccelerations(model, 0.0, q, v, Vector(), stabilization, schurOn(KktPath::Sparse), sparse).ok());
      const double scale = 1.0 + dense.qdd.lpNorm<Eigen::Infinity>() + dense.lambda.lpNorm<Eigen::Infinity>();
      CHECK((sparse.qdd - dense.qdd).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
      CHECK((sparse.lambda - dense.lambda).lpNorm<Eigen::Infinity>() < 1e-12 * scale);
      CHECK((sparse.phi_dot - dense.phi_dot).lpNorm<Eigen::Infinity>() < 1e-14 * scale);
      CHECK((sparse.constraint_target - dense.constraint_target).lpNorm<Eigen::Infinity>() < 1e-13 * scale);
      // The empty column's acceleration is f / m alone.
      CHECK(sparse.qdd[6] == -(0.3 * 6 - 1.0 + 0.1 * v[6] * v[6]) / 4.0);
    }
  }
}

TEST_CASE("sparse pattern: a non-finite J entry is named with its row, also where the velocity is zero",
          "[kkt][sparse]") {
  ScatteredPattern model;
  const Vector q = Vector::LinSpaced(model.nq(), 0.1, 0.8);
  for (const bool zero_velocity : {false, true}) {
    // Model entry 7 is J(1, 3); with q̇_3 = 0 its term in φ̇_1 is ∞·0 = NaN.
    model.poisoned_entry = 7;
    Vector v = Vector::Constant(model.nq(), 0.2);
    if (zero_velocity) v[3] = 0.0;
    KktWorkspace ws(model, schurOn(KktPath::Sparse));
    const KktResult result =
        solveAccelerations(model, 0.0, q, v, Vector(), Stabilization::baumgarte(20.0, 20.0), schurOn(KktPath::Sparse), ws);
    INFO(result.message);
    CHECK(result.status == KktStatus::NonFinite);
    CHECK_THAT(result.message, Contains("constraint Jacobian J"));
    CHECK(result.offending_rows == std::vector<int>{1});
  }
}
