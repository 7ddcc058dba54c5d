// Events (simulate/events.hpp): location against closed forms, directions, several events per
// step, zeros at t0 and at step points, stops, callbacks, validation, and that recording events
// leaves the trajectory alone.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kktdae/kktdae.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

constexpr double kGravity = 9.81;
// K(1/√2), the complete elliptic integral of the first kind at modulus sin(45°): a pendulum
// released from horizontal reaches the vertical after K·√(L/g).
constexpr double kEllipticK = 1.854074677301372;
const double kQuarterPeriod = kEllipticK * std::sqrt(1.0 / kGravity);

const std::vector<Integrator> kFixedStep = {Integrator::ExplicitEuler, Integrator::SemiImplicitEuler,
                                            Integrator::Rk4,           Integrator::Rattle,
                                            Integrator::GeneralizedAlpha, Integrator::Hht};
const std::vector<Integrator> kAdaptive = {Integrator::CvodeBdf, Integrator::CvodeAdams, Integrator::IdaIndex1,
                                           Integrator::IdaGgl};

/// An event on time alone: g = t − t_event (the same in every integrator, whatever its state error).
Event timeEvent(std::string name, double t_event, EventDirection direction = EventDirection::Either) {
  Event event;
  event.name = std::move(name);
  event.direction = direction;
  event.g = [t_event](double t, ConstVectorRef, ConstVectorRef, ConstVectorRef, Vector& g) { g[0] = t - t_event; };
  return event;
}

SimulationOptions tightAdaptive(Integrator integrator) {
  SimulationOptions options;
  options.integrator = integrator;
  options.adaptive.rtol = 1e-10;
  options.adaptive.atol = 1e-12;
  options.adaptive.ggl_multiplier_atol = 1e-8;
  options.dt = 0.05;
  return options;
}

/// The first time the single pendulum released from horizontal reaches the vertical, located
/// by a stop event on x = 0.
Summary quarterPeriodRun(SimulationOptions options) {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  options.end_time = 1.0;
  options.steps.reset();
  options.events = {coordinateCrossing("vertical", 0, 0.0, EventDirection::Falling, EventAction::Stop)};
  return simulate(chain, chain.initialState(0.0), options);
}

}  // namespace

TEST_CASE("events: the pendulum from horizontal reaches the vertical at K(1/sqrt2) sqrt(L/g), converging at "
          "each fixed-step integrator's order",
          "[simulate][events]") {
  for (const Integrator integrator : kFixedStep) {
    const int order = convergenceOrder(integrator);
    // Coarse enough that the error stays above round-off for RK4, fine enough for the asymptote.
    const double dt0 = order >= 4 ? 0.02 : order == 2 ? 0.01 : 0.002;
    std::vector<double> errors;
    for (int level = 0; level < 3; ++level) {
      SimulationOptions options;
      options.integrator = integrator;
      options.dt = dt0 / std::pow(2.0, level);
      const Summary summary = quarterPeriodRun(options);
      INFO(toString(integrator) << " dt " << options.dt << ": " << summary.briefReport());
      REQUIRE(summary.status == RunStatus::StoppedByEvent);
      REQUIRE(summary.events.size() == 1);
      CHECK(summary.t_final == summary.events[0].time);
      errors.push_back(std::abs(summary.events[0].time - kQuarterPeriod));
    }
    const double observed = std::log2(errors[1] / errors[2]);
    WARN(toString(integrator) << ": event-time errors " << errors[0] << ", " << errors[1] << ", " << errors[2]
                              << " (dt " << dt0 << " halved twice); observed order " << observed);
    CHECK(observed == Approx(order).margin(0.35));
  }
}

TEST_CASE("events: the adaptive integrators locate the vertical within their tolerance", "[simulate][events]") {
  for (const Integrator integrator : kAdaptive) {
    const Summary summary = quarterPeriodRun(tightAdaptive(integrator));
    INFO(summary.briefReport());
    REQUIRE(summary.status == RunStatus::StoppedByEvent);
    REQUIRE(summary.events.size() == 1);
    const double error = std::abs(summary.events[0].time - kQuarterPeriod);
    WARN(toString(integrator) << " rtol 1e-10: event-time error " << error);
    // rtol 1e-10 on a state of size 1 over a quarter period: the time error follows the state
    // error divided by the speed there (√(2gL) ≈ 4.4 m/s).
    CHECK(error < 1e-7);
    // λ at the root is the physical multiplier: one KKT solve per root-function call, IDA's
    // included; with the integrator's own multiplier IDA reads its λ from y instead (no solve).
    CHECK(summary.event_kkt_solves > 0);
    if (integrator == Integrator::IdaIndex1 || integrator == Integrator::IdaGgl) {
      SimulationOptions own = tightAdaptive(integrator);
      own.observed_multiplier = ObservedMultiplier::Method;
      const Summary with_own = quarterPeriodRun(own);
      REQUIRE(with_own.status == RunStatus::StoppedByEvent);
      CHECK(with_own.event_kkt_solves == 0);
      CHECK(std::abs(with_own.events.at(0).time - kQuarterPeriod) < 1e-7);
    }
  }
}

TEST_CASE("events: directions select the falling, the rising or both crossings", "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  for (const Integrator integrator : {Integrator::Rk4, Integrator::CvodeBdf, Integrator::IdaIndex1}) {
    SimulationOptions options = isAdaptive(integrator) ? tightAdaptive(integrator) : SimulationOptions{};
    options.integrator = integrator;
    if (!isAdaptive(integrator)) options.dt = 1e-3;
    options.end_time = 5.4 * kQuarterPeriod;  // x = 0 at T/4 (falling), 3T/4 (rising), 5T/4 (falling)
    options.events = {coordinateCrossing("falling", 0, 0.0, EventDirection::Falling),
                      coordinateCrossing("rising", 0, 0.0, EventDirection::Rising),
                      coordinateCrossing("either", 0, 0.0, EventDirection::Either)};
    const Summary summary = simulate(chain, chain.initialState(0.0), options);
    INFO(toString(integrator) << ": " << summary.briefReport());
    REQUIRE(summary.ok());
    std::vector<double> falling, rising, either;
    for (const FiredEvent& fired : summary.events) {
      (fired.name == "falling" ? falling : fired.name == "rising" ? rising : either).push_back(fired.time);
      CHECK(fired.direction == (fired.name == "rising" ? EventDirection::Rising
                                : fired.name == "falling" ? EventDirection::Falling
                                                          : fired.direction));
    }
    REQUIRE(falling.size() == 2);
    REQUIRE(rising.size() == 1);
    REQUIRE(either.size() == 3);
    CHECK(falling[0] == Approx(kQuarterPeriod).epsilon(1e-6));
    CHECK(rising[0] == Approx(3 * kQuarterPeriod).epsilon(1e-6));
    CHECK(falling[1] == Approx(5 * kQuarterPeriod).epsilon(1e-6));
    CHECK(either[0] == falling[0]);
    CHECK(either[1] == rising[0]);
    CHECK(either[2] == falling[1]);
    for (std::size_t i = 1; i < summary.events.size(); ++i) CHECK(summary.events[i - 1].time <= summary.events[i].time);
  }
}

TEST_CASE("events: several events in one step fire in time order, whatever their order in the list",
          "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 0.4;  // x falls from 1 through 0.95, 0.9, 0.85 and 0.8 (to about 0.72) in the first step
  options.steps = 1;
  Event levels;  // one event with three components
  levels.name = "levels";
  levels.size = 3;
  levels.g = [](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef, Vector& g) {
    g << q[0] - 0.8, q[0] - 0.95, q[0] - 0.9;
  };
  options.events = {levels, coordinateCrossing("x=0.85", 0, 0.85)};
  const Summary summary = simulate(chain, chain.initialState(0.0), options);
  REQUIRE(summary.ok());
  REQUIRE(summary.events.size() == 4);
  const std::vector<std::pair<std::string, int>> expected = {{"levels", 1}, {"levels", 2}, {"x=0.85", 0}, {"levels", 0}};
  const std::vector<double> level = {0.95, 0.9, 0.85, 0.8};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const FiredEvent& fired = summary.events[i];
    CHECK(fired.name == expected[i].first);
    CHECK(fired.component == expected[i].second);
    CHECK(fired.step == 1);
    CHECK(fired.direction == EventDirection::Falling);
    // The located state is on the step's interpolant, within the tolerance of the level.
    CHECK(fired.q[0] == Approx(level[i]).margin(1e-8));
    CHECK(fired.q.size() == 3);
    CHECK(fired.lambda.size() == 1);
    if (i > 0) CHECK(summary.events[i - 1].time < fired.time);
  }
  CHECK(summary.event_kkt_solves > 4);  // the searches' solves, counted apart
}

TEST_CASE("events: a g exactly zero at t0 does not fire there, only at its next sign change", "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  for (const Integrator integrator : {Integrator::SemiImplicitEuler, Integrator::Rattle, Integrator::CvodeBdf,
                                      Integrator::CvodeAdams, Integrator::IdaIndex1, Integrator::IdaGgl}) {
    SimulationOptions options = isAdaptive(integrator) ? tightAdaptive(integrator) : SimulationOptions{};
    options.integrator = integrator;
    options.dt = 0.01;
    options.end_time = 0.5;
    Event event;  // g = t (t − 0.3): zero at t0 = 0, negative, zero again (rising) at 0.3
    event.name = "parabola";
    event.g = [](double t, ConstVectorRef, ConstVectorRef, ConstVectorRef, Vector& g) { g[0] = t * (t - 0.3); };
    options.events = {event};
    const Summary summary = simulate(chain, chain.initialState(0.0), options);
    INFO(toString(integrator) << ": " << summary.briefReport());
    REQUIRE(summary.ok());
    REQUIRE(summary.events.size() == 1);
    CHECK(summary.events[0].time == Approx(0.3).margin(1e-9));
    CHECK(summary.events[0].direction == EventDirection::Rising);
    CHECK(summary.events[0].time >= 0.3 - 1e-12);  // reported on the far side of the crossing
  }
}

TEST_CASE("events: an event exactly at a step point fires once, there", "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  for (const Integrator integrator : {Integrator::SemiImplicitEuler, Integrator::Rk4, Integrator::CvodeBdf,
                                      Integrator::IdaIndex1}) {
    SimulationOptions options = isAdaptive(integrator) ? tightAdaptive(integrator) : SimulationOptions{};
    options.integrator = integrator;
    options.dt = 0.125;  // exact in binary: t = 0.5 is grid point 4 with g exactly 0 there
    options.steps = 8;
    options.events = {timeEvent("half", 0.5)};
    const Summary summary = simulate(chain, chain.initialState(0.0), options);
    INFO(toString(integrator) << ": " << summary.briefReport());
    REQUIRE(summary.ok());
    REQUIRE(summary.events.size() == 1);
    CHECK(summary.events[0].time == Approx(0.5).margin(1e-12));
    if (!isAdaptive(integrator)) {
      CHECK(summary.events[0].time == 0.5);
      CHECK(summary.events[0].step == 4);
      CHECK(summary.events[0].value == 0.0);
    }
  }
}

TEST_CASE("events: a stop ends the run at the located time, and the last observed state is the event's",
          "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  for (const Integrator integrator : {Integrator::SemiImplicitEuler, Integrator::Rattle, Integrator::CvodeBdf,
                                      Integrator::IdaGgl}) {
    SimulationOptions options = isAdaptive(integrator) ? tightAdaptive(integrator) : SimulationOptions{};
    options.integrator = integrator;
    options.dt = 0.01;
    options.end_time = 2.0;
    options.events = {timeEvent("record first", 0.1), timeEvent("stop", 0.234567)};
    options.events[1].action = EventAction::Stop;
    int told = 0;
    options.event_observer = [&](const FiredEvent&) { ++told; };
    std::vector<double> times;
    Vector last_q;
    const Summary summary = simulate(chain, chain.initialState(0.0), options,
                                     [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
                                       times.push_back(t);
                                       last_q = q;
                                     });
    INFO(toString(integrator) << ": " << summary.briefReport());
    REQUIRE(summary.status == RunStatus::StoppedByEvent);
    CHECK(summary.stoppedByEvent());
    CHECK_FALSE(summary.ok());
    CHECK_THAT(summary.message, Contains("'stop'"));
    REQUIRE(summary.events.size() == 2);
    CHECK(told == 2);
    const FiredEvent& stop = summary.events.back();
    CHECK(stop.time == Approx(0.234567).margin(1e-9));
    CHECK(summary.t_final == stop.time);
    CHECK(times.back() == stop.time);
    CHECK(last_q == stop.q);
    CHECK(summary.outputs == static_cast<long>(times.size()));
    CHECK(stop.step == 24);  // the step, or output interval, (0.23, 0.24]
    for (std::size_t i = 0; i + 1 < times.size(); ++i) CHECK(times[i] < stop.time);
  }
}

TEST_CASE("events: a callback's decision continues or stops the run", "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  for (const Integrator integrator : {Integrator::Rk4, Integrator::CvodeAdams, Integrator::IdaIndex1}) {
    SimulationOptions options = isAdaptive(integrator) ? tightAdaptive(integrator) : SimulationOptions{};
    options.integrator = integrator;
    options.dt = 1e-3;
    options.end_time = 10.0;
    Event event = coordinateCrossing("vertical", 0, 0.0);
    event.action = EventAction::Callback;
    int calls = 0;
    event.callback = [&](const FiredEvent& fired) {
      ++calls;
      CHECK(std::abs(fired.q[0]) < 1e-6);
      return calls < 3 ? EventDecision::Continue : EventDecision::Stop;
    };
    options.events = {event};
    const Summary summary = simulate(chain, chain.initialState(0.0), options);
    INFO(toString(integrator) << ": " << summary.briefReport());
    REQUIRE(summary.status == RunStatus::StoppedByEvent);
    CHECK(calls == 3);
    REQUIRE(summary.events.size() == 3);
    CHECK(summary.events[2].time == Approx(5 * kQuarterPeriod).epsilon(1e-5));
    CHECK_THAT(summary.message, Contains("callback"));
  }
}

TEST_CASE("events: recording events does not change the trajectory, bit for bit, in every integrator", "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  for (const Integrator integrator : allIntegrators()) {
    SimulationOptions options;
    options.integrator = integrator;
    options.stabilization = integrator == Integrator::Rattle ? Stabilization::none() : Stabilization::critical(20.0);
    options.dt = 0.005;
    options.steps = 400;
    options.observe_every = 3;
    auto run = [&](std::vector<double>& bits) {
      return simulate(chain, chain.initialState(0.1), options,
                      [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                        bits.push_back(t);
                        bits.insert(bits.end(), q.data(), q.data() + q.size());
                        bits.insert(bits.end(), v.data(), v.data() + v.size());
                        bits.insert(bits.end(), lambda.data(), lambda.data() + lambda.size());
                      });
    };
    std::vector<double> plain, watched;
    const Summary without = run(plain);
    options.events = {coordinateCrossing("x0", 0, 0.5), pointCrossing("tip y", [&](ConstVectorRef q) { return chain.tip(q); }, 1, -1.5),
                      linkTension("slack 2", chain, 2), energyCrossing("energy", chain, -20.0)};
    const Summary with = run(watched);
    INFO(toString(integrator) << ": " << with.briefReport());
    REQUIRE(without.ok());
    REQUIRE(with.ok());
    CHECK(with.events.size() >= 2);  // the run must actually locate something
    CHECK(with.event_evaluations > 0);
    REQUIRE(plain.size() == watched.size());
    CHECK(std::memcmp(plain.data(), watched.data(), plain.size() * sizeof(double)) == 0);
    CHECK(with.kkt_solves == without.kkt_solves);
    CHECK(with.steps == without.steps);
    CHECK(with.max_phi_inf == without.max_phi_inf);
  }
}

TEST_CASE("events: invalid events are refused naming the field, a g of the wrong size ends the run",
          "[simulate][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  SimulationOptions options;
  options.steps = 10;
  Event good = timeEvent("ok", 0.01);
  auto refuse = [&](Event event, const std::string& field) {
    options.events = {good, event};
    CHECK_THROWS_WITH(simulate(chain, chain.initialState(0.0), options), Contains(field));
  };
  Event bad = good;
  bad.name = "";
  refuse(bad, "events[1].name");
  refuse(good, "events[1].name");  // a duplicate name
  bad = timeEvent("size", 0.01);
  bad.size = 0;
  refuse(bad, "events[1].size");
  bad = timeEvent("tolerance", 0.01);
  bad.time_tolerance = 0.0;
  refuse(bad, "events[1].time_tolerance");
  bad = timeEvent("callback", 0.01);
  bad.action = EventAction::Callback;
  refuse(bad, "events[1].callback");
  bad = timeEvent("no g", 0.01);
  bad.g = {};
  refuse(bad, "events[1].g");
  CHECK_THROWS_WITH(linkTension("k", chain, 1), Contains("link"));
  CHECK_THROWS_WITH(pointCrossing("p", [&](ConstVectorRef q) { return chain.tip(q); }, 3, 0.0), Contains("axis"));

  for (const Integrator integrator : {Integrator::SemiImplicitEuler, Integrator::CvodeBdf, Integrator::IdaIndex1}) {
    options.integrator = integrator;
    bad = timeEvent("two", 0.01);
    bad.g = [](double, ConstVectorRef, ConstVectorRef, ConstVectorRef, Vector& g) { g = Eigen::Vector2d(1.0, 2.0); };
    options.events = {bad};
    const Summary summary = simulate(chain, chain.initialState(0.0), options);
    CHECK(summary.status == RunStatus::ModelError);
    CHECK_THAT(summary.message, Contains("'two'") && Contains("declares size 1") && Contains("left 2"));
    // The event failed, not the model: the message blames it in every driver.
    CHECK_THAT(summary.message, Contains("an event") && !Contains("the model or its controller"));
  }
}

namespace {

/// The time of the first event of `options.events` (a stop), with every integrator: the fixed-step
/// ones at `fixed_dt[integrator order]`, the adaptive ones at rtol 1e-10.
struct EventTime {
  Integrator integrator;
  double dt;  // 0 for the adaptive ones
  double time;
  FiredEvent fired;
};

std::vector<EventTime> eventTimesEverywhere(const ConstrainedSystem& system, const State& initial, const Event& event,
                                            double end_time) {
  std::vector<EventTime> result;
  for (const Integrator integrator : allIntegrators()) {
    SimulationOptions options = isAdaptive(integrator) ? tightAdaptive(integrator) : SimulationOptions{};
    options.integrator = integrator;
    const int order = convergenceOrder(integrator);
    if (!isAdaptive(integrator)) options.dt = order >= 4 ? 1e-3 : order == 2 ? 1e-3 : 1e-4;
    options.end_time = end_time;
    options.steps.reset();
    options.stabilization = integrator == Integrator::Rattle || integrator == Integrator::IdaGgl
                                ? Stabilization::none()
                                : Stabilization::critical(20.0);
    options.events = {event};
    options.events[0].action = EventAction::Stop;
    const Summary summary = simulate(system, initial, options);
    INFO(toString(integrator) << ": " << summary.briefReport());
    REQUIRE(summary.status == RunStatus::StoppedByEvent);
    result.push_back({integrator, isAdaptive(integrator) ? 0.0 : options.dt, summary.events[0].time, summary.events[0]});
  }
  return result;
}

/// The order to which a fixed-step integrator locates an event whose g depends on q̇ or λ: its
/// own order p, but at most 3, for the step's Hermite interpolant gives q̇ inside a step only to
/// O(dt³) (the derivative of a cubic; docs/events.md).
int velocityEventOrder(Integrator integrator) { return std::min(convergenceOrder(integrator), 3); }

/// Every integrator's located time agrees with CVODE BDF's at rtol 1e-10 to its accuracy: the
/// adaptive ones to 1e-6 s, the fixed-step ones to 20 dt^p s (p from velocityEventOrder(); the
/// constant covers the problem's error constant, measured below 12 in docs/events.md).
void requireSameTimes(const std::vector<EventTime>& times, const char* what) {
  double reference = 0.0;
  for (const EventTime& t : times) {
    if (t.integrator == Integrator::CvodeBdf) reference = t.time;
  }
  for (const EventTime& t : times) {
    const double error = std::abs(t.time - reference);
    WARN(what << ": " << toString(t.integrator) << " (dt " << t.dt << ") located " << t.time << ", |t - t_cvode_bdf| = "
              << error);
    const double bound = t.dt > 0.0 ? 20.0 * std::pow(t.dt, velocityEventOrder(t.integrator)) : 1e-6;
    CHECK(error < bound);
  }
}

}  // namespace

TEST_CASE("events: the rope of the circle mass goes slack where cos(theta) = (2gL - v0^2)/(3gL), in every "
          "integrator",
          "[simulate][events][slack]") {
  // Launched from the bottom with 2gL < v0² < 5gL the mass would leave the circle before the top:
  // energy gives v² = v0² − 2gL(1 − cos θ), the radial balance T = m v²/L + m g cos θ (θ from the
  // bottom), so T = m (v0² − 2gL)/L + 3 m g cos θ vanishes at cos θ = (2gL − v0²)/(3gL).
  const CircleMass circle;
  const double g = circle.params().gravity, L = circle.params().radius;
  const double v0 = std::sqrt(3.5 * g * L);
  State initial;
  initial.q = Eigen::Vector2d(0.0, -L);
  initial.v = Eigen::Vector2d(v0, 0.0);
  const double cos_slack = (2 * g * L - v0 * v0) / (3 * g * L);  // −1/2: 120° from the bottom
  const std::vector<EventTime> times = eventTimesEverywhere(circle, initial, circleTension("slack"), 2.0);
  for (const EventTime& t : times) {
    const Vector& q = t.fired.q;
    const double cos_theta = -q[1] / q.norm();
    INFO(toString(t.integrator));
    CHECK(cos_theta == Approx(cos_slack).margin(t.dt > 0.0 ? 50.0 * std::pow(t.dt, velocityEventOrder(t.integrator)) : 1e-6));
    CHECK(t.fired.value <= 0.0);  // on the slack side
    CHECK(t.fired.direction == EventDirection::Falling);
  }
  requireSameTimes(times, "circle slack");

  // On another model the tension means nothing: the run says so instead of firing on it.
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.steps = 10;
  options.events = {circleTension("slack")};
  const Summary refused = simulate(chain, chain.initialState(0.1), options);
  CHECK(refused.status == RunStatus::ModelError);
  CHECK_THAT(refused.message, Contains("circleTension watches the circle mass") && Contains("nq = 6"));
}

TEST_CASE("events: the double pendulum's inner link multiplier changes sign at the same time in every integrator",
          "[simulate][events][slack]") {
  // Released from horizontal, the inner link's tension −λ₀|d₀| first becomes a push at t ≈ 1.385 s.
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const std::vector<EventTime> times = eventTimesEverywhere(chain, chain.initialState(0.0), linkTension("slack 0", chain, 0), 3.0);
  for (const EventTime& t : times) {
    INFO(toString(t.integrator));
    CHECK(t.fired.lambda[0] >= 0.0);  // λ₀ ≥ 0: the link pushes, a rope would be slack
    CHECK(t.fired.lambda[0] < 1e-3);  // and only just: at the located sign change
  }
  requireSameTimes(times, "double pendulum slack");
}
