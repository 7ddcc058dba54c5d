// The seed models' physics: initial states, multipliers with known values, energies, validation.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/kktdae.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

TEST_CASE("pendulum_chain: seed 000 initial state lies on the manifold, at rest", "[models]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  const double tilt = 0.013696168732145436;  // numpy default_rng(0).uniform(-0.05, 0.05)
  const State s = chain.initialState(tilt);
  REQUIRE(s.q.size() == 9);
  CHECK(s.v.isZero(0.0));
  CHECK(chain.linkLengthViolation(s.q) < 1e-15);
  for (int k = 0; k < 3; ++k) {
    CHECK(s.q[3 * k] == Approx((k + 1) * std::cos(tilt)).epsilon(1e-15));
    CHECK(s.q[3 * k + 1] == Approx(-(k + 1) * std::sin(tilt)).epsilon(1e-15));
    CHECK(s.q[3 * k + 2] == 0.0);
  }
  CHECK(chain.energyScale() == Approx(3.0 * 9.81 * 3.0));
}

TEST_CASE("pendulum_chain: a hanging pendulum's multiplier is -m g / L", "[models][kkt]") {
  PendulumChainParams params = PendulumChainParams::uniform(1, 2.0, 1.5);
  const PendulumChain chain(params);
  Vector q(3), v = Vector::Zero(3);
  q << 0.0, -1.5, 0.0;
  KktWorkspace ws(chain);
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    KktOptions options;
    options.form = form;
    REQUIRE(solveAccelerations(chain, 0.0, q, v, Vector(), Stabilization::none(), options, ws).ok());
    CHECK(ws.lambda[0] == Approx(-2.0 * 9.81 / 1.5).epsilon(1e-14));
    CHECK(ws.qdd.norm() < 1e-14);
  }
}

TEST_CASE("pendulum_chain: tension at the bottom of the swing is m g + m v^2 / L", "[models][kkt]") {
  const PendulumChain chain(PendulumChainParams::uniform(1, 1.3, 0.8));
  Vector q(3), v(3);
  q << 0.0, -0.8, 0.0;
  v << 2.0, 0.0, 0.0;
  KktWorkspace ws(chain);
  REQUIRE(solveAccelerations(chain, 0.0, q, v, Vector(), Stabilization::none(), {}, ws).ok());
  const double tension = -ws.lambda[0] * 0.8;
  CHECK(tension == Approx(1.3 * 9.81 + 1.3 * 4.0 / 0.8).epsilon(1e-13));
}

TEST_CASE("circle_mass: seed 002 defaults, energy and the multiplier's meaning", "[models]") {
  const CircleMass circle;
  const State s = circle.initialState();
  CHECK(s.q[0] == 1.01);
  Vector phi(1);
  circle.constraint(s.q, 0.0, phi);
  CHECK(phi[0] == Approx(1.01 * 1.01 - 1.0).epsilon(1e-15));
  Vector q(2), v(2);
  q << 0.0, -1.0;
  v << 3.0, 0.0;
  CHECK(circle.totalEnergy(q, v, 0.0) == Approx(0.5 * 9.0 - 9.81));
  KktWorkspace ws(circle);
  REQUIRE(solveAccelerations(circle, 0.0, q, v, Vector(), Stabilization::none(), {}, ws).ok());
  // Force 2λ(x, y) must supply m g + m v²/L upward at the bottom.
  CHECK(2.0 * ws.lambda[0] * q[1] == Approx(9.81 + 9.0));
}

TEST_CASE("models: invalid parameters throw naming the field and value", "[models][errors]") {
  CHECK_THROWS_WITH(PendulumChain(PendulumChainParams::uniform(2, -1.0)), Contains("masses[0]") && Contains("-1"));
  CHECK_THROWS_WITH(PendulumChain(PendulumChainParams::uniform(2, 1.0, 0.0)), Contains("lengths[0]"));
  CHECK_THROWS_WITH(PendulumChainParams::uniform(0), Contains("links") && Contains("0"));
  PendulumChainParams mismatched = PendulumChainParams::uniform(2);
  mismatched.lengths.pop_back();
  CHECK_THROWS_WITH(PendulumChain(mismatched), Contains("lengths") && Contains("size 1"));
  PendulumChainParams nan_mass = PendulumChainParams::uniform(1);
  nan_mass.masses[0] = std::nan("");
  CHECK_THROWS_WITH(PendulumChain(nan_mass), Contains("masses[0]") && Contains("nan"));
  CHECK_THROWS_WITH(CircleMass(CircleMassParams{0.0, 9.81, 1.0}), Contains("mass") && Contains("0"));
  CHECK_THROWS_WITH(CircleMass(CircleMassParams{1.0, -1.0, 1.0}), Contains("gravity"));
  CHECK_THROWS_WITH(CircleMass(CircleMassParams{1.0, 9.81, -2.0}), Contains("radius") && Contains("-2"));
}
