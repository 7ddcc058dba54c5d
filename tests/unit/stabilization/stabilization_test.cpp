#include <catch2/catch.hpp>

#include "kktdae/stabilization/stabilization.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

TEST_CASE("stabilization: the three Baumgarte constructors", "[stabilization]") {
  const Stabilization a = Stabilization::baumgarte(5.0, 10.0);
  CHECK(a.kind == Stabilization::Kind::Baumgarte);
  CHECK(a.alpha == 5.0);
  CHECK(a.beta == 10.0);
  const Stabilization b = Stabilization::fromDampingRatio(0.5, 10.0);
  CHECK(b.alpha == 5.0);
  CHECK(b.beta == 10.0);
  const Stabilization c = Stabilization::critical(20.0);
  CHECK(c.alpha == 20.0);
  CHECK(c.beta == 20.0);
  CHECK(Stabilization::none().kind == Stabilization::Kind::None);
}

TEST_CASE("stabilization: terms are 2 alpha phi_dot + beta^2 phi, none adds nothing", "[stabilization]") {
  Eigen::VectorXd phi(2), phi_dot(2), target(2);
  phi << 0.1, -0.2;
  phi_dot << 1.0, 3.0;
  target << 1.0, 1.0;
  subtractStabilizationTerms(Stabilization::baumgarte(2.0, 3.0), phi, phi_dot, target);
  CHECK(target[0] == Approx(1.0 - (4.0 * 1.0 + 9.0 * 0.1)));
  CHECK(target[1] == Approx(1.0 - (4.0 * 3.0 + 9.0 * -0.2)));
  target << 1.0, 1.0;
  subtractStabilizationTerms(Stabilization::none(), phi, phi_dot, target);
  CHECK(target == Eigen::VectorXd::Ones(2));
}

TEST_CASE("stabilization: invalid gains throw naming the field", "[stabilization][errors]") {
  CHECK_THROWS_WITH(Stabilization::baumgarte(-1.0, 2.0), Contains("alpha") && Contains("-1"));
  CHECK_THROWS_WITH(Stabilization::baumgarte(1.0, std::nan("")), Contains("beta"));
  CHECK_THROWS_WITH(Stabilization::critical(-3.0), Contains("omega"));
  CHECK_THROWS_WITH(Stabilization::fromDampingRatio(-0.5, 1.0), Contains("zeta"));
  Stabilization inconsistent;
  inconsistent.alpha = 1.0;
  CHECK_THROWS_WITH(inconsistent.validate(), Contains("for Baumgarte only"));
}
