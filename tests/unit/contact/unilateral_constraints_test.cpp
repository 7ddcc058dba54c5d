// Gaps beside the equalities (contact/unilateral_constraints.hpp): the joint-limit helper's values
// and derivatives, the finite-difference check catching a wrong γ_N, and validation errors that
// name the gap.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/contact/unilateral_constraints.hpp"
#include "kktdae/models/point_on_plane.hpp"

using namespace kktdae;
using namespace kktdae::contact;
using Catch::Matchers::Contains;

namespace unilateral_constraints_test {

// One gap g = 1 − x² − y² (inside the unit disc) with a deliberately wrong or right γ_N, a chosen
// restitution and optionally a zero Jacobian row.
class DiscGap final : public UnilateralConstraints {
 public:
  DiscGap(double e, bool right_bias, bool zero_row = false) : e_(e), right_(right_bias), zero_(zero_row) {}
  int ng() const override { return 1; }
  std::string gapName(int) const override { return "rim"; }
  double restitution(int) const override { return e_; }
  void gap(ConstVectorRef q, double, VectorRef g) const override { g[0] = 1.0 - q[0] * q[0] - q[1] * q[1]; }
  void gapJacobian(ConstVectorRef q, double, MatrixRef J) const override {
    J(0, 0) = zero_ ? 0.0 : -2.0 * q[0];
    J(0, 1) = zero_ ? 0.0 : -2.0 * q[1];
  }
  void gapBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const override {
    gamma[0] = (right_ ? -2.0 : -1.0) * v.squaredNorm();
  }

 private:
  double e_;
  bool right_, zero_;
};

}  // namespace unilateral_constraints_test

using unilateral_constraints_test::DiscGap;

TEST_CASE("joint limits: values, constant Jacobian rows, zero gamma and finite differences", "[contact]") {
  const JointLimits limits(3, {JointLimit::lower("q0_min", 0, -0.5, 0.3), JointLimit::upperBound("q2_max", 2, 1.5, 1.0),
                               JointLimit{"relative", {1, 0}, {1.0, -1.0}, 0.25, true, 0.0}});
  REQUIRE(limits.ng() == 3);
  const Vector q = (Vector(3) << 0.1, 0.2, 0.7).finished();
  const Vector v = (Vector(3) << -1.0, 2.0, 0.5).finished();
  Vector g(3);
  limits.gap(q, 0.0, g);
  CHECK(g[0] == Approx(0.6).margin(1e-15));           // 0.1 − (−0.5)
  CHECK(g[1] == Approx(0.8).margin(1e-15));           // 1.5 − 0.7
  CHECK(g[2] == Approx(0.25 - 0.1).margin(1e-15));    // 0.25 − (q1 − q0)
  Matrix J(3, 3);
  limits.gapJacobian(q, 0.0, J);
  Matrix expected(3, 3);
  expected << 1, 0, 0, 0, 0, -1, 1, -1, 0;
  CHECK(J == expected);
  CHECK(limits.restitution(0) == 0.3);
  CHECK(limits.gapName(2) == "relative");
  CHECK(checkGapDerivatives(limits, q, v, 0.0).ok(1e-9));
}

TEST_CASE("checkGapDerivatives accepts the right gamma_N and catches a wrong one", "[contact]") {
  const Vector q = (Vector(2) << 0.3, -0.4).finished();
  const Vector v = (Vector(2) << 1.5, 0.7).finished();
  const GapDerivativeCheck right = checkGapDerivatives(DiscGap(0.5, true), q, v, 0.0);
  CHECK(right.ok(1e-7));
  const GapDerivativeCheck wrong = checkGapDerivatives(DiscGap(0.5, false), q, v, 0.0);
  CHECK_FALSE(wrong.ok(1e-3));
  // The difference is |v|², measured against the model's own |γ_N| = |v|² (> 1).
  CHECK(wrong.bias_error == Approx(1.0).epsilon(1e-6));
  CHECK(wrong.worst_gap == 0);
}

TEST_CASE("bad gaps are refused with the gap's name and value", "[contact]") {
  const PointOnPlane model;  // nq = 2
  const Vector q = (Vector(2) << 0.1, 0.2).finished();
  CHECK_THROWS_WITH(validateGaps(model, DiscGap(1.5, true), q, 0.0), Contains("'rim'") && Contains("1.5"));
  CHECK_THROWS_WITH(validateGaps(model, DiscGap(-0.25, true), q, 0.0), Contains("'rim'") && Contains("-0.25"));
  CHECK_THROWS_WITH(validateGaps(model, DiscGap(std::nan(""), true), q, 0.0), Contains("'rim'"));
  CHECK_THROWS_WITH(validateGaps(model, DiscGap(0.5, true, true), q, 0.0),
                    Contains("'rim'") && Contains("zero Jacobian row"));
  CHECK_NOTHROW(validateGaps(model, DiscGap(0.0, true), q, 0.0));
  CHECK_NOTHROW(validateGaps(model, DiscGap(1.0, true), q, 0.0));

  CHECK_THROWS_WITH(JointLimits(2, {JointLimit::lower("knee", 0, 0.0, 1.01)}), Contains("'knee'") && Contains("1.01"));
  CHECK_THROWS_WITH(JointLimits(2, {JointLimit::lower("hip", 2, 0.0, 0.5)}), Contains("'hip'") && Contains("index 2"));
  CHECK_THROWS_WITH(JointLimits(2, {JointLimit{"flat", {0, 1}, {0.0, 0.0}, 0.0, false, 0.5}}),
                    Contains("'flat'") && Contains("zero"));
  CHECK_THROWS_WITH(JointLimits(2, {JointLimit{"", {0}, {1.0}, 0.0, false, 0.5}}), Contains("empty name"));
}
