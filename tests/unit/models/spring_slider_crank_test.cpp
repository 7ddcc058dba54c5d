// SpringSliderCrank (the IDAS slider-crank): its terms against the IDAS example's formulas,
// its derivatives (J, γ, ∂/∂p, the tangent) against central differences, its start.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/models/spring_slider_crank.hpp"
#include "kktdae/system/derivative_check.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

/// The generalized force Q of idasSlCrank_FSA_dns.c's force(), written from its formulas
/// (h = −Q in this library's convention M q̈ + h = Jᵀλ).
Vector exampleForce(const Vector& q, const Vector& v, double k, double c) {
  const double a = 0.5, l0 = 1.0, F = 1.0;
  const double s1 = std::sin(q[0]), c1 = std::cos(q[0]), s2 = std::sin(q[2]), c2 = std::cos(q[2]);
  const double s21 = s2 * c1 - c2 * s1, c21 = c2 * c1 + s2 * s1, x = q[1];
  const double l = std::sqrt(x * x - x * (c2 + a * c1) + (1 + a * a) / 4 + a * c21 / 2);
  double ld = 2 * x * v[1] - v[1] * (c2 + a * c1) + x * (s2 * v[2] + a * s1 * v[0]) - a * s21 * (v[2] - v[0]) / 2;
  ld /= 2 * l;
  const double fl = (k * (l - l0) + c * ld) / l;
  Vector Q(3);
  Q << -fl * a * (s21 / 2 + x * s1) / 2, fl * (c2 / 2 - x + a * c1 / 2) + F, -fl * (x * s2 - a * s21 / 2) / 2 - F * s2;
  return Q;
}

}  // namespace

TEST_CASE("spring_slider_crank: h is minus the IDAS example's force, M and phi its residual's", "[models][sensitivity]") {
  SpringSliderCrankParams params;
  params.stiffness = 1.7;
  params.damping = 0.4;
  const SpringSliderCrank model(params);
  Vector q(3), v(3), h(3), d(3), phi(2);
  q << 1.1, 0.9, -0.45;
  v << 0.3, -0.7, 1.2;
  model.bias(q, v, 0.0, h);
  CHECK((h + exampleForce(q, v, 1.7, 0.4)).cwiseAbs().maxCoeff() < 1e-14);
  model.massDiagonal(q, d);
  CHECK(d == Eigen::Vector3d(1.0, 1.0, 2.0));
  model.constraint(q, 0.0, phi);
  CHECK(std::abs(phi[0] - (q[1] - std::cos(q[2]) - 0.5 * std::cos(q[0]))) < 1e-15);
  CHECK(std::abs(phi[1] - (-std::sin(q[2]) - 0.5 * std::sin(q[0]))) < 1e-15);
}

TEST_CASE("spring_slider_crank: J, gamma, dr/dp and the tangent match central differences", "[models][sensitivity]") {
  const SpringSliderCrank model;
  Vector q(3), v(3), a(3), dq(3), dv(3);
  q << 1.1, 0.9, -0.45;
  v << 0.3, -0.7, 1.2;
  a << -0.2, 0.5, 0.8;
  dq << 0.4, -1.3, 0.6;
  dv << -0.9, 0.2, 1.5;
  const DerivativeCheckReport report = checkDerivatives(model, q, v, 0.0);
  INFO(report.describe());
  CHECK(report.worstRelativeError() < 1e-8);
  const ParameterDerivativeCheck check = checkParameterDerivatives(model, q, v, a, 0.0, dq, dv);
  CHECK(check.dynamics_parameter_error < 1e-9);
  CHECK(check.constraint_parameter_error == 0.0);
  CHECK(check.tangent_error < 1e-8);
}

TEST_CASE("spring_slider_crank: the example's start is on both manifolds, bad values are named", "[models][sensitivity]") {
  const SpringSliderCrank model;
  const State start = model.initialState();
  Vector phi(2);
  model.constraint(start.q, 0.0, phi);
  CHECK(phi.cwiseAbs().maxCoeff() < 1e-15);
  CHECK(start.v.isZero());
  CHECK(model.parameterNames() == std::vector<std::string>{"k", "c"});
  CHECK(model.parameterIndex("c") == 1);
  CHECK_THROWS_WITH(model.parameterIndex("m"), Contains("no parameter 'm'") && Contains("k, c"));
  Vector negative(2);
  negative << 1.0, -0.5;
  CHECK_THROWS_WITH(model.withParameterValues(negative), Contains("damping") && Contains("-0.5"));
  SpringSliderCrankParams bad;
  bad.a = 1.5;
  CHECK_THROWS_WITH(SpringSliderCrank(bad), Contains("a must be in (0, 1)") && Contains("1.5"));
}
