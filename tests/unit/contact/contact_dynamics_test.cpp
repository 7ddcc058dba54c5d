// Contact forces and impacts on the Delassus matrix after the equalities are eliminated
// (contact/contact_dynamics.hpp), against closed forms: a mass resting on a floor, a pendulum
// leaning on a wall (rod tension and wall force), an oblique impact of a pendulum on a wall,
// four redundant corners, and a gap the equalities already forbid.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/contact/contact_dynamics.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/models/point_on_plane.hpp"

using namespace kktdae;
using namespace kktdae::contact;
using Catch::Matchers::Contains;

namespace contact_dynamics_test {

constexpr double kG = 9.81;

// A point mass in the plane, q = (x, y), gravity along −y, no equalities.
class PlanarMass final : public ConstrainedSystem {
 public:
  explicit PlanarMass(double m) : m_(m) {}
  std::string name() const override { return "planar_mass"; }
  int nq() const override { return 2; }
  int nc() const override { return 0; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d.setConstant(m_); }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h << 0.0, m_ * kG; }
  void constraint(ConstVectorRef, double, VectorRef) const override {}
  void constraintJacobian(ConstVectorRef, double, MatrixRef) const override {}
  void constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef) const override {}
  double potentialEnergy(ConstVectorRef q, double) const override { return m_ * kG * q[1]; }

 private:
  double m_;
};

}  // namespace contact_dynamics_test

using contact_dynamics_test::PlanarMass;

TEST_CASE("contact accelerations: a mass resting on a floor carries m g and does not move", "[contact]") {
  const PlanarMass mass(3.0);
  const JointLimits floor(2, {JointLimit::lower("floor", 1, 0.0, 0.5)});
  ContactWorkspace ws(mass, floor);
  const Vector q = Vector::Zero(2), v = (Vector(2) << 1.0, 0.0).finished();  // sliding along it
  const ContactAccelerations a = solveContactAccelerations(mass, floor, 0.0, q, v, {0}, ContactLaw::Complementarity, ws);
  REQUIRE(a.lcp.ok());
  CHECK(a.lambda_N[0] == Approx(3.0 * contact_dynamics_test::kG).epsilon(1e-15));
  CHECK(a.qdd.lpNorm<Eigen::Infinity>() <= 1e-15);
  CHECK(a.lcp.residual <= 1e-14);
  // Hanging under a ceiling y ≤ 0 instead, the gap's free acceleration is +g: the LCP lets it fall.
  const JointLimits ceiling(2, {JointLimit::upperBound("ceiling", 1, 0.0, 0.5)});
  ContactWorkspace ws2(mass, ceiling);
  const ContactAccelerations off = solveContactAccelerations(mass, ceiling, 0.0, q, v, {0}, ContactLaw::Complementarity, ws2);
  CHECK(off.lambda_N[0] == 0.0);
  CHECK(off.g_ddot[0] == Approx(contact_dynamics_test::kG).epsilon(1e-15));  // falls away from the ceiling
  // As an equality the same contact would have to pull: λ_N = −m g.
  const ContactAccelerations pull = solveContactAccelerations(mass, ceiling, 0.0, q, v, {0}, ContactLaw::Equality, ws2);
  CHECK(pull.lambda_N[0] == Approx(-3.0 * contact_dynamics_test::kG).epsilon(1e-15));
}

TEST_CASE("contact accelerations: a pendulum leaning on a wall, wall force m g tan(theta)", "[contact]") {
  // The bob at L (sin θ, −cos θ) against a wall x ≥ L sin θ between it and the vertical: at rest,
  // the wall pushes with m g tan θ and the rod pulls with m g / cos θ (λ L = −tension).
  const double m = 1.5, L = 0.8, theta = 0.6;
  const PendulumChain chain(PendulumChainParams::uniform(1, m, L));
  const JointLimits wall(3, {JointLimit::lower("wall", 0, L * std::sin(theta), 0.5)});
  ContactWorkspace ws(chain, wall);
  const Vector q = (Vector(3) << L * std::sin(theta), -L * std::cos(theta), 0.0).finished();
  const Vector v = Vector::Zero(3);
  const ContactAccelerations a = solveContactAccelerations(chain, wall, 0.0, q, v, {0}, ContactLaw::Complementarity, ws);
  REQUIRE(a.lcp.ok());
  CHECK(a.lambda_N[0] == Approx(m * contact_dynamics_test::kG * std::tan(theta)).epsilon(1e-14));
  CHECK(a.lambda[0] * L == Approx(-m * contact_dynamics_test::kG / std::cos(theta)).epsilon(1e-14));
  CHECK(a.qdd.lpNorm<Eigen::Infinity>() <= 1e-14);
  // Without the wall the bob accelerates along the tangent with g sin θ.
  ContactWorkspace ws0(chain, wall);
  const ContactAccelerations free = solveContactAccelerations(chain, wall, 0.0, q, v, {}, ContactLaw::Complementarity, ws0);
  CHECK(free.qdd.norm() == Approx(contact_dynamics_test::kG * std::sin(theta)).epsilon(1e-14));
}

TEST_CASE("impact: a pendulum hitting a wall obliquely rebounds with e times its speed", "[contact]") {
  // Bob at angle θ moving along the tangent toward the wall x ≥ L sin θ with speed u. The rod
  // leaves one direction, the tangent t̂ = (cos θ, sin θ, 0), so W = cos²θ/m and
  // Λ = (1 + e) m u / cos θ; afterwards the bob moves along +t̂ with e·u.
  const double m = 2.0, L = 1.2, theta = 0.4, u = 3.0, e = 0.7;
  const PendulumChain chain(PendulumChainParams::uniform(1, m, L));
  const JointLimits wall(3, {JointLimit::lower("wall", 0, L * std::sin(theta), e)});
  ContactWorkspace ws(chain, wall);
  const Vector q = (Vector(3) << L * std::sin(theta), -L * std::cos(theta), 0.0).finished();
  const Vector tangent = (Vector(3) << std::cos(theta), std::sin(theta), 0.0).finished();
  const ImpactSolution s = solveImpact(chain, wall, 0.0, q, -u * tangent, {0}, ws);
  REQUIRE(s.lcp.ok());
  CHECK(s.impulse[0] == Approx((1 + e) * m * u / std::cos(theta)).epsilon(1e-14));
  CHECK((s.v_plus - e * u * tangent).lpNorm<Eigen::Infinity>() <= 1e-14);
  CHECK(s.gdot_minus[0] == Approx(-u * std::cos(theta)).epsilon(1e-14));
  CHECK(s.gdot_plus[0] == Approx(e * u * std::cos(theta)).epsilon(1e-14));
  // A plastic impact (restitution overridden with 0) stops it.
  const ImpactSolution plastic = solveImpact(chain, wall, 0.0, q, -u * tangent, {0}, ws, 0.0);
  CHECK(plastic.v_plus.lpNorm<Eigen::Infinity>() <= 1e-14);
}

TEST_CASE("redundant contacts: four corners share the weight and the impulse equally, never fail", "[contact]") {
  const PlanarMass block(4.0);
  std::vector<JointLimit> corners;
  for (int i = 0; i < 4; ++i) corners.push_back(JointLimit::lower("corner" + std::to_string(i), 1, 0.0, 0.5));
  const JointLimits floor(2, corners);
  ContactWorkspace ws(block, floor);
  const Vector q = Vector::Zero(2);
  const ContactAccelerations a =
      solveContactAccelerations(block, floor, 0.0, q, Vector::Zero(2), {0, 1, 2, 3}, ContactLaw::Complementarity, ws);
  REQUIRE(a.lcp.ok());
  CHECK(a.lcp.minimum_norm);
  for (int i = 0; i < 4; ++i) CHECK(a.lambda_N[i] == Approx(4.0 * contact_dynamics_test::kG / 4.0).epsilon(1e-13));
  CHECK(a.qdd.lpNorm<Eigen::Infinity>() <= 1e-13);
  const Vector v = (Vector(2) << 0.5, -2.0).finished();
  const ImpactSolution s = solveImpact(block, floor, 0.0, q, v, {0, 1, 2, 3}, ws);
  REQUIRE(s.lcp.ok());
  for (int i = 0; i < 4; ++i) CHECK(s.impulse[i] == Approx(1.5 * 4.0 * 2.0 / 4.0).epsilon(1e-13));
  CHECK(s.v_plus[0] == 0.5);
  CHECK(s.v_plus[1] == Approx(1.0).epsilon(1e-14));  // e = 0.5
}

TEST_CASE("a gap the equalities already hold fixed is reported by name", "[contact]") {
  PointOnPlaneParams params;
  params.normal = Eigen::Vector3d(0.0, 1.0, 0.0);  // the mass stays on y = 0
  const PointOnPlane model(params);
  const JointLimits floor(2, {JointLimit::lower("floor", 1, 0.0, 0.5)});
  ContactWorkspace ws(model, floor);
  const Vector q = Vector::Zero(2);
  CHECK_THROWS_WITH(
      solveContactAccelerations(model, floor, 0.0, q, Vector::Zero(2), {0}, ContactLaw::Complementarity, ws),
      Contains("'floor'") && Contains("span of J"));
}
