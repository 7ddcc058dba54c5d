// The event helpers' g functions and parseChainCondition's grammar (simulate/event_helpers.hpp,
// simulate/event_condition.hpp).
#include <catch2/catch.hpp>

#include "kktdae/kktdae.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

double evaluate(const Event& event, const State& state, const Vector& lambda) {
  Vector g = Vector::Zero(event.size);
  event.g(state.t, state.q, state.v, lambda, g);
  REQUIRE(g.size() == 1);
  return g[0];
}

}  // namespace

TEST_CASE("event helpers: each g is its quantity minus the value", "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  State state = chain.initialState(0.3);
  state.v = Vector::LinSpaced(6, -1.0, 1.5);
  const Vector lambda = (Vector(2) << -3.0, 0.5).finished();
  CHECK(evaluate(coordinateCrossing("q4", 4, 0.25), state, lambda) == state.q[4] - 0.25);
  CHECK(evaluate(pointCrossing("tip y", [&](ConstVectorRef q) { return chain.tip(q); }, 1, -0.5), state, lambda) ==
        Approx(chain.tip(state.q).y() + 0.5));
  // Link 1 joins particle 0 to particle 1: its tension is −λ₁|p₁ − p₀|.
  const double d1 = (state.q.segment<3>(3) - state.q.segment<3>(0)).norm();
  CHECK(evaluate(linkTension("t1", chain, 1), state, lambda) == Approx(-0.5 * d1));
  CHECK(evaluate(linkTension("t0", chain, 0, 2.0), state, lambda) == Approx(3.0 * state.q.segment<3>(0).norm() - 2.0));
  CHECK(evaluate(energyCrossing("E", chain, 1.5), state, lambda) == Approx(chain.totalEnergy(state.q, state.v, 0.0) - 1.5));
  CHECK(linkTension("t", chain, 0).direction == EventDirection::Falling);
}

TEST_CASE("parseChainCondition: the --stop-when grammar", "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  State state = chain.initialState(0.0);
  const Vector lambda = (Vector(2) << -3.0, 0.5).finished();
  const Event tension = parseChainCondition("f", " tension[1] < 0.5 ", chain);
  CHECK(tension.name == " tension[1] < 0.5 ");
  CHECK(tension.direction == EventDirection::Falling);
  CHECK(evaluate(tension, state, lambda) == Approx(-0.5 * 1.0 - 0.5));
  const Event x = parseChainCondition("f", "x>1.5", chain);
  CHECK(x.direction == EventDirection::Rising);
  CHECK(evaluate(x, state, lambda) == Approx(2.0 - 1.5));  // the tip of two unit links along +x
  CHECK(evaluate(parseChainCondition("f", "y<-1e-1", chain), state, lambda) == Approx(0.1));
  CHECK(evaluate(parseChainCondition("f", "q[3]<2", chain), state, lambda) == Approx(0.0));
  for (const char* bad : {"tension[2]<0", "q[6]<0", "z<0", "x<", "x<0<1", "x", "q[-1]<0", "q[a]<0", "x<nan", "x<1e999",
                          "tension[]<0"}) {
    INFO(bad);
    CHECK_THROWS_AS(parseChainCondition("--stop-when", bad, chain), std::invalid_argument);
    CHECK_THROWS_WITH(parseChainCondition("--stop-when", bad, chain), Contains("--stop-when"));
  }
  // An index that is not a whole number says so, not that it is out of range.
  for (const char* bad : {"q[1e0]<0", "q[1.0]<0", "q[-1]<0", "tension[ ]<0", "tension[0x1]<0"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parseChainCondition("--stop-when", bad, chain), Contains("is not an integer"));
  }
  CHECK_THROWS_WITH(parseChainCondition("--stop-when", "q[12345678901]<0", chain), Contains("q index must be in 0..5"));
}
