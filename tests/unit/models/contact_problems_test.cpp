// The shipped contact problems (models/contact_problems.hpp) run event-driven: the ball's
// reference impact times and accumulation time, the impact pendulum's Newton law per impact, the
// joint-limited double pendulum's limit held, its derivatives and its energy balance, and the
// parameters refused by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "kktdae/contact/event_driven.hpp"
#include "kktdae/models/contact_problems.hpp"

using namespace kktdae;
using namespace kktdae::contact;
using Catch::Matchers::Contains;

TEST_CASE("shipped ball: the reference impact times, speeds, energy losses and zeno_time", "[contact][models]") {
  const ContactProblem ball = bouncingBall();
  const ContactSummary s = simulateContact(*ball.system, *ball.gaps, ball.initial, ContactRunOptions{});
  INFO(s.briefReport());
  REQUIRE(s.ok());
  const double reference[6] = {0.451523640985731, 1.264266194760046, 1.995734493156931,
                               2.654055961714126, 3.246545283415602, 3.779785672946931};
  REQUIRE(s.impacts.size() >= 6);
  for (int i = 0; i < 6; ++i) CHECK(std::abs(s.impacts[static_cast<std::size_t>(i)].t - reference[i]) <= 1e-12);
  CHECK(std::abs(s.impacts[0].v_minus - 4.429446918) <= 1e-9);
  CHECK(std::abs(s.impacts[0].v_plus - 3.986502226) <= 1e-9);
  for (const ImpactRecord& r : s.impacts) {  // (1 − e²) ½ m v⁻², e = 0.9, m = 1
    CHECK(r.kinetic_energy_loss == Approx(0.19 * 0.5 * r.v_minus * r.v_minus).epsilon(1e-9));
  }
  REQUIRE(s.zeno_time.has_value());
  CHECK(std::abs(*s.zeno_time - 8.578949179) <= 1e-6);
}

TEST_CASE("shipped impact pendulum: every rebound has e times the incoming speed", "[contact][models]") {
  const ContactProblem p = impactPendulum();
  const ContactSummary s = simulateContact(*p.system, *p.gaps, p.initial, ContactRunOptions{});
  INFO(s.briefReport());
  REQUIRE(s.ok());
  REQUIRE(s.impacts.size() == 10);  // about one per second once the amplitude is small (π√(L/g) = 1.003 s)
  CHECK(std::abs(s.impacts[0].t - 0.5919604869) <= 1e-9);
  for (const ImpactRecord& r : s.impacts) {
    CHECK(std::abs(r.v_plus - 0.5 * r.v_minus) <= 1e-10 * r.v_minus);
    // At the vertical the rod leaves x free: the wall sees the whole mass, (1 − e²) ½ m v⁻².
    CHECK(r.effective_mass == Approx(1.0).epsilon(1e-12));
    CHECK(r.kinetic_energy_loss == Approx(0.75 * 0.5 * r.v_minus * r.v_minus).epsilon(1e-9));
  }
  CHECK(s.max_phi_inf <= 1e-9);
}

TEST_CASE("shipped limited chain: the limit holds, Newton's law per impact, energy lost only at impacts", "[contact][models]") {
  const LimitedChainParams params;
  const ContactProblem p = limitedChain(params);
  // Derivatives of the relative-angle gaps at random states.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < 5; ++i) {
    Vector q(6), v(6);
    for (int j = 0; j < 6; ++j) {
      q[j] = u(rng);
      v[j] = u(rng);
    }
    CHECK(checkGapDerivatives(*p.gaps, q, v, 0.0).ok(1e-7));
  }
  double worst_penetration = 0.0, energy_before = 0.0;
  bool first = true;
  double e0 = 0.0;
  const ContactSummary s = simulateContact(
      *p.system, *p.gaps, p.initial, ContactRunOptions{},
      [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef, ConstVectorRef) {
        Vector g(2);
        p.gaps->gap(q, t, g);
        worst_penetration = std::max(worst_penetration, -g.minCoeff());
        energy_before = p.system->totalEnergy(q, v, t);
        if (first) e0 = energy_before;
        first = false;
      });
  INFO(s.briefReport());
  REQUIRE(s.ok());
  REQUIRE(s.impacts.size() >= 4);
  CHECK(worst_penetration <= 1e-12);
  double lost = 0.0;
  for (const ImpactRecord& r : s.impacts) {
    CHECK(std::abs(r.v_plus - params.restitution * r.v_minus) <= 1e-10 * r.v_minus);
    CHECK(r.kinetic_energy_loss > 0.0);
    // One gap at a time: the loss is (1 − e²) ½ v⁻² / W_kk with the chain's effective mass.
    // Equal up to the velocity drift J q̇ ≈ 1e-9 that RK4 leaves on the rods (measured: 9e-10 relative).
    CHECK(r.kinetic_energy_loss == Approx(r.closed_form_loss).epsilon(1e-8));
    lost += r.kinetic_energy_loss;
  }
  CHECK(std::abs(energy_before - (e0 - lost)) <= 1e-6);  // RK4 at dt = 1e-3 over 10 s between the impacts
  CHECK(s.max_phi_inf <= 1e-8);
}

TEST_CASE("contact problems refuse bad parameters by name", "[contact][models]") {
  BouncingBallParams ball;
  ball.restitution = 1.2;
  CHECK_THROWS_WITH(bouncingBall(ball), Contains("restitution") && Contains("1.2"));
  ImpactPendulumParams pendulum;
  pendulum.restitution = -0.1;
  CHECK_THROWS_WITH(impactPendulum(pendulum), Contains("restitution") && Contains("-0.1"));
  LimitedChainParams chain;
  chain.limit = 2.0;
  CHECK_THROWS_WITH(limitedChain(chain), Contains("limit") && Contains("2"));
  CHECK_THROWS_WITH(contactProblem("box"), Contains("'box'") && Contains("limited_chain"));
  CHECK(contactProblem("impact_pendulum").name == "impact_pendulum");
}
