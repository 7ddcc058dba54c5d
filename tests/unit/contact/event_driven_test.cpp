// Event-driven contact (contact/event_driven.hpp): a ball's impacts against the closed form to
// 1e-12 s and its accumulation time, resting afterwards with λ_N = m g; a pendulum's impacts on a
// wall (Newton's law per impact, times from the elliptic quarter periods); an impact at t0; and the
// refusals (an integrator other than rk4, a penetrating start).
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/contact/event_driven.hpp"
#include "kktdae/models/pendulum_chain.hpp"

using namespace kktdae;
using namespace kktdae::contact;
using Catch::Matchers::Contains;

namespace event_driven_test {

constexpr double kG = 9.81;

// A point mass on a vertical line: q = (y).
class Drop final : public ConstrainedSystem {
 public:
  explicit Drop(double m) : m_(m) {}
  std::string name() const override { return "drop"; }
  int nq() const override { return 1; }
  int nc() const override { return 0; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d[0] = m_; }
  void bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const override { h[0] = m_ * kG; }
  void constraint(ConstVectorRef, double, VectorRef) const override {}
  void constraintJacobian(ConstVectorRef, double, MatrixRef) const override {}
  void constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef) const override {}
  double kineticEnergy(ConstVectorRef, ConstVectorRef v) const override { return 0.5 * m_ * v[0] * v[0]; }
  double potentialEnergy(ConstVectorRef q, double) const override { return m_ * kG * q[0]; }

 private:
  double m_;
};

// A mass on a vertical line pushed up by a force growing as c·t: h = m g − c t.
class PushedUp final : public ConstrainedSystem {
 public:
  PushedUp(double m, double c) : m_(m), c_(c) {}
  std::string name() const override { return "pushed_up"; }
  int nq() const override { return 1; }
  int nc() const override { return 0; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef, VectorRef d) const override { d[0] = m_; }
  void bias(ConstVectorRef, ConstVectorRef, double t, VectorRef h) const override { h[0] = m_ * kG - c_ * t; }
  void constraint(ConstVectorRef, double, VectorRef) const override {}
  void constraintJacobian(ConstVectorRef, double, MatrixRef) const override {}
  void constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef) const override {}
  double potentialEnergy(ConstVectorRef q, double) const override { return m_ * kG * q[0]; }

 private:
  double m_, c_;
};

// K(k) = π / (2 AGM(1, √(1 − k²))), the complete elliptic integral of the first kind.
double ellipticK(double k) {
  double a = 1.0, b = std::sqrt(1.0 - k * k);
  for (int i = 0; i < 40; ++i) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return M_PI / (2.0 * a);
}

State dropState(double height, double speed = 0.0) {
  State s;
  s.q = Vector::Constant(1, height);
  s.v = Vector::Constant(1, speed);
  return s;
}

}  // namespace event_driven_test

using event_driven_test::Drop;

TEST_CASE("event-driven ball: six impact times to 1e-12 s, zeno_time to 1e-6 s, then resting on m g", "[contact]") {
  const double m = 1.0, e = 0.9;
  const Drop ball(m);
  const JointLimits floor(1, {JointLimit::lower("floor", 0, 0.0, e)});
  ContactRunOptions options;  // rk4, dt 1e-3, 10 s
  double last_t = 0.0, last_lambda_N = -1.0, last_y = -1.0;
  const ContactSummary s = simulateContact(ball, floor, event_driven_test::dropState(1.0), options,
                                           [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef, ConstVectorRef lambda_N) {
                                             last_t = t;
                                             last_y = q[0];
                                             last_lambda_N = lambda_N[0];
                                           });
  INFO(s.briefReport());
  REQUIRE(s.ok());
  const double reference[6] = {0.451523640985731, 1.264266194760046, 1.995734493156931,
                               2.654055961714126, 3.246545283415602, 3.779785672946931};
  REQUIRE(s.impacts.size() >= 6);
  for (int i = 0; i < 6; ++i) {
    INFO("impact " << i);
    CHECK(std::abs(s.impacts[static_cast<std::size_t>(i)].t - reference[i]) <= 1e-12);
    CHECK(s.impacts[static_cast<std::size_t>(i)].name == "floor");
  }
  const ImpactRecord& first = s.impacts.front();
  CHECK(first.v_minus == Approx(4.429446918).margin(1e-9));
  CHECK(first.v_plus == Approx(3.986502226).margin(1e-9));
  CHECK(first.impulse == Approx(m * (1 + e) * first.v_minus).epsilon(1e-14));
  CHECK(first.kinetic_energy_loss == Approx((1 - e * e) * 0.5 * m * first.v_minus * first.v_minus).epsilon(1e-13));
  REQUIRE(s.zeno_time.has_value());
  const double t_inf = reference[0] * (1 + e) / (1 - e);
  CHECK(std::abs(*s.zeno_time - t_inf) <= 1e-6);
  CHECK(std::abs(*s.zeno_time - 8.578949179) <= 1e-6);
  CHECK(s.impacts.back().t < *s.zeno_time);  // resting contact adds no impacts
  CHECK(s.zeno_contact == 0);
  CHECK(last_t == options.end_time);
  CHECK(last_lambda_N == Approx(m * event_driven_test::kG).epsilon(1e-12));
  CHECK(std::abs(last_y) <= 1e-12);
  CHECK(s.max_complementarity_residual <= 1e-12);
}

TEST_CASE("event-driven impact pendulum: each rebound e times the incoming speed, times from K(k)", "[contact]") {
  const double e = 0.5, L = 1.0;
  const PendulumChain chain(PendulumChainParams::uniform(1, 1.0, L));
  const JointLimits wall(3, {JointLimit::lower("wall", 0, 0.0, e)});
  ContactRunOptions options;
  options.end_time = 4.0;
  const ContactSummary s = simulateContact(chain, wall, chain.initialState(0.0), options);
  INFO(s.briefReport());
  REQUIRE(s.ok());
  REQUIRE(s.impacts.size() >= 3);
  const double root = std::sqrt(L / event_driven_test::kG);
  double t_ref = event_driven_test::ellipticK(1.0 / std::sqrt(2.0)) * root;
  CHECK(t_ref == Approx(0.5919604869).margin(1e-10));
  double worst_time = 0.0;
  for (std::size_t n = 0; n < s.impacts.size(); ++n) {
    const ImpactRecord& r = s.impacts[n];
    INFO("impact " << n << " at " << r.t);
    CHECK(std::abs(r.v_plus - e * r.v_minus) <= 1e-10 * r.v_minus);  // at the vertical, ẋ = L ω
    if (n == 0) CHECK(r.v_minus == Approx(std::sqrt(2 * event_driven_test::kG * L)).epsilon(1e-9));
    worst_time = std::max(worst_time, std::abs(r.t - t_ref));
    // The next flight out and back: amplitude from 1 − cos θ = (L ω⁺)²/(2 g L), modulus sin(θ/2).
    t_ref += 2.0 * event_driven_test::ellipticK(std::pow(e, static_cast<double>(n + 1)) / std::sqrt(2.0)) * root;
  }
  INFO("worst impact-time error " << worst_time << " s over " << s.impacts.size() << " impacts (RK4, dt 1e-3: 1.2e-10 measured)");
  CHECK(worst_time <= 1e-9);
  CHECK(s.max_phi_inf <= 1e-9);
  CHECK_FALSE(s.zeno_time.has_value());  // the intervals tend to half a small-amplitude period, not to 0
}

TEST_CASE("event-driven lift-off: a resting mass leaves the floor where the push passes its weight", "[contact]") {
  // λ_N = m g − c t reaches 0 at t* = m g / c; afterwards y = c (t − t*)³ / (6 m). Both are
  // polynomials RK4 integrates exactly, so the located time and the final height hold to round-off.
  const double m = 2.0, c = 7.0, t_star = m * event_driven_test::kG / c;
  const event_driven_test::PushedUp mass(m, c);
  const JointLimits floor(1, {JointLimit::lower("floor", 0, 0.0, 0.5)});
  ContactRunOptions options;
  options.end_time = 3.5;
  double first_lambda_N = -1.0, last_y = -1.0;
  const ContactSummary s = simulateContact(mass, floor, event_driven_test::dropState(0.0), options,
                                           [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef, ConstVectorRef lambda_N) {
                                             if (t == 0.0) first_lambda_N = lambda_N[0];
                                             last_y = q[0];
                                           });
  INFO(s.briefReport());
  REQUIRE(s.ok());
  CHECK(first_lambda_N == Approx(m * event_driven_test::kG).epsilon(1e-15));
  CHECK(s.impacts.empty());
  REQUIRE(s.transitions.size() == 2);
  CHECK(s.transitions[0].kind == "persistent");
  CHECK(s.transitions[0].t == 0.0);
  CHECK(s.transitions[1].kind == "lift_off");
  CHECK(std::abs(s.transitions[1].t - t_star) <= 1e-13);
  const double rise = options.end_time - t_star;
  CHECK(last_y == Approx(c * rise * rise * rise / (6.0 * m)).epsilon(1e-11));
}

TEST_CASE("event-driven start: closed and closing is an impact at t0, penetrating starts and other integrators refused", "[contact]") {
  const Drop ball(2.0);
  const JointLimits floor(1, {JointLimit::lower("floor", 0, 0.0, 0.5)});
  ContactRunOptions options;
  options.end_time = 0.1;
  const ContactSummary s = simulateContact(ball, floor, event_driven_test::dropState(0.0, -3.0), options);
  REQUIRE(s.ok());
  REQUIRE(!s.impacts.empty());
  CHECK(s.impacts[0].t == 0.0);
  CHECK(s.impacts[0].v_plus == Approx(1.5).epsilon(1e-15));
  CHECK(s.impacts.size() == 1);  // back on the floor after 2·1.5/g = 0.306 s, beyond the end

  CHECK_THROWS_WITH(simulateContact(ball, floor, event_driven_test::dropState(-1e-6), options),
                    Contains("'floor'") && Contains("-1e-06"));
  ContactRunOptions cvode = options;
  cvode.integrator = Integrator::CvodeBdf;
  CHECK_THROWS_WITH(simulateContact(ball, floor, event_driven_test::dropState(1.0), cvode),
                    Contains("cvode_bdf") && Contains("rk4"));
  ContactRunOptions loose = options;
  loose.time_tolerance = 1e-12;
  CHECK_THROWS_WITH(simulateContact(ball, floor, event_driven_test::dropState(1.0), loose), Contains("time_tolerance"));
}
