// The Simulator (simulate/simulator.hpp) with the adaptive integrators, events and the recording:
// advanceTo over simulate()'s output grid returns simulate()'s observed states, λ, events and
// recording bit for bit; step() is one internal step; reset, copy, failures and interrupts.
// (The fixed-step integrators' bits are checked from Python, tests/python/test_simulator.py.)
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "kktdae/kktdae.hpp"
#include "support/same_bits.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;
using kktdae::testing::sameToTheBit;

namespace {

/// What an observer sees at one observed state.
struct SimulatorSeen {
  double t;
  Vector q, v, lambda;
};

std::vector<SimulatorSeen> simulatorObserved(const ConstrainedSystem& system, const State& start, const SimulationOptions& options,
                                 Summary* summary = nullptr) {
  std::vector<SimulatorSeen> seen;
  const Summary ran = simulate(system, start, options, [&](double t, ConstVectorRef q, ConstVectorRef v,
                                                           ConstVectorRef lambda) {
    seen.push_back({t, q, v, lambda});
  });
  if (summary != nullptr) *summary = ran;
  return seen;
}

bool simulatorSameState(const SimulatorSeen& a, double t, const Vector& q, const Vector& v, const Vector& lambda) {
  return a.t == t && sameToTheBit(a.q, q) && sameToTheBit(a.v, v) && sameToTheBit(a.lambda, lambda);
}

SimulationOptions simulatorOptions(Integrator integrator, Stabilization stabilization, double rtol = 1e-8) {
  SimulationOptions options;
  options.integrator = integrator;
  options.stabilization = stabilization;
  options.dt = 0.01;
  options.steps = 60;
  options.adaptive.rtol = rtol;
  options.adaptive.atol = 1e-10;
  return options;
}

/// A recording row i as a SimulatorSeen.
SimulatorSeen recordedRow(const TrajectoryRecording& recording, long i) {
  TrajectoryRecording& r = const_cast<TrajectoryRecording&>(recording);
  const int nq = r.nq(), nc = r.nc();
  return {r.times()[i], Eigen::Map<const Vector>(r.positions().data() + i * nq, nq),
          Eigen::Map<const Vector>(r.velocities().data() + i * nq, nq),
          Eigen::Map<const Vector>(r.multipliers().data() + i * nc, nc)};
}

}  // namespace

TEST_CASE("Simulator: advanceTo over simulate()'s output grid returns its states, lambda and recording bit for bit, "
          "every adaptive integrator",
          "[simulate][simulator]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  struct Case {
    const char* name;
    SimulationOptions options;
  };
  std::vector<Case> cases = {
      {"cvode_bdf Baumgarte", simulatorOptions(Integrator::CvodeBdf, Stabilization::critical(20.0))},
      {"cvode_bdf projection", simulatorOptions(Integrator::CvodeBdf, Stabilization::projection())},
      {"cvode_adams Baumgarte", simulatorOptions(Integrator::CvodeAdams, Stabilization::critical(20.0))},
      {"ida_index1 Baumgarte", simulatorOptions(Integrator::IdaIndex1, Stabilization::critical(20.0))},
      {"ida_ggl", simulatorOptions(Integrator::IdaGgl, Stabilization::none(), 1e-7)},
  };
  Case stopping{"cvode_bdf Baumgarte, stop at outputs", simulatorOptions(Integrator::CvodeBdf, Stabilization::critical(20.0))};
  stopping.options.adaptive.stop_at_outputs = true;
  cases.push_back(stopping);
  // The integrators' own multipliers: CVODE's KKT solve with the feedback, IDA's algebraic λ.
  for (const Integrator integrator : {Integrator::CvodeAdams, Integrator::IdaIndex1}) {
    Case own{integrator == Integrator::CvodeAdams ? "cvode_adams own lambda" : "ida_index1 own lambda",
             simulatorOptions(integrator, Stabilization::critical(20.0))};
    own.options.observed_multiplier = ObservedMultiplier::Method;
    cases.push_back(own);
  }
  for (Case& c : cases) {
    INFO(c.name);
    c.options.observe_every = 3;
    Summary summary;
    const std::vector<SimulatorSeen> seen = simulatorObserved(chain, start, c.options, &summary);
    REQUIRE(summary.ok());
    REQUIRE(seen.size() == 21);
    Simulator sim(chain, start, c.options, true);
    CHECK(simulatorSameState(seen[0], sim.t(), sim.state().q, sim.state().v, sim.lambda()));
    // The output grid is every dt (observe_every thins what is observed, not where the solver is
    // asked for a state: its first output time sets its first step).
    for (long k = 1; k <= 60; ++k) {
      REQUIRE(sim.advanceTo(c.options.gridTime(start.t, k)) == RunStatus::Success);
      if (k % 3 != 0) continue;
      const SimulatorSeen& expected = seen[static_cast<std::size_t>(k / 3)];
      INFO("output " << k << " t = " << expected.t);
      CHECK(simulatorSameState(expected, sim.t(), sim.state().q, sim.state().v, sim.lambda()));
    }
    // The recording holds what simulate()'s observer saw at those states.
    const TrajectoryRecording& recording = *sim.recording();
    REQUIRE(recording.size() == 61);
    for (long i = 0; i < recording.size(); i += 3) {
      const SimulatorSeen r = recordedRow(recording, i);
      CHECK(simulatorSameState(seen[static_cast<std::size_t>(i / 3)], r.t, r.q, r.v, r.lambda));
    }
    // The same internal steps, the same work.
    const Summary counted = sim.summary();
    CHECK(counted.steps == summary.steps);
    CHECK(sim.steps() == summary.steps);
    CHECK(counted.rhs_evaluations == summary.rhs_evaluations);
    CHECK(counted.status == RunStatus::Success);
    CHECK(counted.outputs == 61);
    CHECK(counted.linear_solver == summary.linear_solver);
  }
}

TEST_CASE("Simulator: step() takes one internal step, and with stop_at_outputs it stops at each grid time as "
          "simulate() does",
          "[simulate][simulator]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  SimulationOptions options = simulatorOptions(Integrator::CvodeBdf, Stabilization::critical(20.0));
  {
    Simulator sim(chain, start, options);
    double t = sim.t();
    for (long k = 1; k <= 40; ++k) {
      REQUIRE(sim.step() == RunStatus::Success);
      CHECK(sim.steps() == k);
      CHECK(sim.t() > t);
      t = sim.t();
    }
    CHECK(sim.summary().steps == 40);
    // Interpolation mode: the steps are the solver's own, independent of the output grid.
    CHECK(std::abs(sim.t() / options.dt - std::round(sim.t() / options.dt)) > 1e-9);
  }
  options.adaptive.stop_at_outputs = true;
  Summary summary;
  const std::vector<SimulatorSeen> seen = simulatorObserved(chain, start, options, &summary);
  Simulator sim(chain, start, options);
  std::size_t next = 1;
  for (int calls = 0; next < seen.size() && calls < 100000; ++calls) {
    REQUIRE(sim.step() == RunStatus::Success);
    REQUIRE(sim.t() <= seen[next].t);
    if (sim.t() == seen[next].t) {
      INFO("output " << next);
      CHECK(simulatorSameState(seen[next], sim.t(), sim.state().q, sim.state().v, sim.lambda()));
      ++next;
    }
  }
  CHECK(next == seen.size());
  CHECK(sim.steps() == summary.steps);
}

TEST_CASE("Simulator: reset re-initializes the solver, a copy restarts it at the copied state", "[simulate][simulator]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  for (const Integrator integrator : {Integrator::CvodeAdams, Integrator::IdaGgl}) {
    INFO(toString(integrator));
    const SimulationOptions options = simulatorOptions(integrator, Stabilization::none());
    const std::vector<SimulatorSeen> seen = simulatorObserved(chain, start, options);
    Simulator sim(chain, start, options);
    REQUIRE(sim.advanceTo(0.3) == RunStatus::Success);
    // A reset to the start is a new run: simulate()'s states again, bit for bit.
    sim.reset(start);
    CHECK(sim.steps() == 0);
    for (std::size_t i = 1; i <= 20; ++i) {
      REQUIRE(sim.advanceTo(seen[i].t) == RunStatus::Success);
      CHECK(simulatorSameState(seen[i], sim.t(), sim.state().q, sim.state().v, sim.lambda()));
    }
    // A copy is a Simulator made at the state (SUNDIALS memory is not cloned): bit for bit a
    // fresh one there, and the original's continuation to the tolerances only.
    REQUIRE(sim.advanceTo(0.25) == RunStatus::Success);
    Simulator twin = sim.copy();
    SimulationOptions unprojected = options;
    unprojected.project_initial_state = false;
    Simulator fresh(chain, sim.state(), unprojected);
    CHECK(twin.steps() == 0);
    for (Simulator* s : {&sim, &twin, &fresh}) REQUIRE(s->advanceTo(0.5) == RunStatus::Success);
    CHECK(sameToTheBit(twin.state().q, fresh.state().q));
    CHECK(sameToTheBit(twin.state().v, fresh.state().v));
    CHECK((twin.state().q - sim.state().q).lpNorm<Eigen::Infinity>() < 1e-6);
    CHECK_FALSE(sameToTheBit(twin.state().q, sim.state().q));
  }
}

TEST_CASE("Simulator: a solver failure leaves it failed at the last good state, an interrupt does not",
          "[simulate][simulator]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  SimulationOptions options = simulatorOptions(Integrator::CvodeAdams, Stabilization::critical(20.0));
  options.adaptive.max_steps = 5;
  Simulator sim(chain, start, options);
  const State good = sim.state();
  CHECK(sim.advanceTo(2.0) == RunStatus::SolverFailure);
  CHECK_THAT(sim.message(), Contains("CV_TOO_MUCH_WORK"));
  CHECK(sim.t() == good.t);
  CHECK(sim.state().q == good.q);
  CHECK(sim.step() == RunStatus::SolverFailure);  // sticky until reset
  CHECK(sim.summary().status == RunStatus::SolverFailure);
  sim.reset(good);
  CHECK(sim.status() == RunStatus::Success);

  // The interrupt flag, found set inside the solver's right-hand side or residual (set here by an
  // event's g, which the root finding calls inside the solver): the call returns Interrupted, the
  // state stays, and the next call goes on.
  for (const Integrator integrator : {Integrator::CvodeBdf, Integrator::IdaGgl}) {
    INFO(toString(integrator));
    std::atomic<bool> interrupt{false};
    int calls = 0;
    SimulationOptions watched = simulatorOptions(integrator, Stabilization::none());
    watched.interrupt = &interrupt;
    Event clock;
    clock.name = "clock";
    clock.g = [&](double t, ConstVectorRef, ConstVectorRef, ConstVectorRef, Vector& g) {
      if (++calls == 30) interrupt = true;
      g[0] = t - 100.0;
    };
    watched.events = {clock};
    Simulator interrupted(chain, start, watched);
    CHECK(interrupted.advanceTo(0.5) == RunStatus::Interrupted);
    CHECK(interrupted.t() == start.t);
    CHECK(interrupted.status() == RunStatus::Success);
    CHECK(interrupted.step() == RunStatus::Interrupted);  // still set: not even tried
    interrupt = false;
    REQUIRE(interrupted.advanceTo(0.5) == RunStatus::Success);
    CHECK(interrupted.t() == 0.5);
  }
}

TEST_CASE("Simulator: events located as simulate() locates them, bit for bit, and a stop event stops it there",
          "[simulate][simulator][events]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  const State start = chain.initialState(0.0);  // released from horizontal
  for (const Integrator integrator : {Integrator::Rk4, Integrator::CvodeAdams, Integrator::IdaGgl}) {
    INFO(toString(integrator));
    SimulationOptions options = isAdaptive(integrator)
                                    ? simulatorOptions(integrator, Stabilization::none(), 1e-9)
                                    : SimulationOptions{};
    options.integrator = integrator;
    options.dt = 0.005;
    options.steps = 400;  // 2 s: past the vertical twice
    Event vertical = coordinateCrossing("vertical", 0, 0.0);
    Event stop = coordinateCrossing("back", 0, 0.0, EventDirection::Rising);
    options.events = {vertical};
    Summary summary;
    const std::vector<SimulatorSeen> seen = simulatorObserved(chain, start, options, &summary);
    REQUIRE(summary.ok());
    REQUIRE(summary.events.size() == 2);  // x = 0 at T/4 and 3T/4
    Simulator sim(chain, start, options);
    for (std::size_t i = 1; i < seen.size(); ++i) REQUIRE(sim.advanceTo(seen[i].t) == RunStatus::Success);
    REQUIRE(sim.events().size() == summary.events.size());
    for (std::size_t e = 0; e < summary.events.size(); ++e) {
      const FiredEvent& a = summary.events[e];
      const FiredEvent& b = sim.events()[e];
      CHECK(a.time == b.time);
      CHECK(a.step == b.step);
      CHECK(a.direction == b.direction);
      CHECK(sameToTheBit(a.q, b.q));
      CHECK(sameToTheBit(a.v, b.v));
      CHECK(sameToTheBit(a.lambda, b.lambda));
    }
    CHECK(sim.summary().events.size() == summary.events.size());

    // A stop event: the Simulator ends at the event's state, recorded last, as simulate() does.
    stop.action = EventAction::Stop;
    options.events = {vertical, stop};
    const std::vector<SimulatorSeen> stopped_seen = simulatorObserved(chain, start, options, &summary);
    REQUIRE(summary.status == RunStatus::StoppedByEvent);
    Simulator stopping(chain, start, options, true);
    RunStatus status = RunStatus::Success;
    for (std::size_t i = 1; i < seen.size() && status == RunStatus::Success; ++i) status = stopping.advanceTo(seen[i].t);
    CHECK(status == RunStatus::StoppedByEvent);
    CHECK(stopping.message() == summary.message);
    const FiredEvent& at = stopping.events().back();
    CHECK(at.name == "back");
    CHECK(stopping.t() == at.time);
    CHECK(simulatorSameState(stopped_seen.back(), stopping.t(), stopping.state().q, stopping.state().v, stopping.lambda()));
    const TrajectoryRecording& recording = *stopping.recording();
    REQUIRE(recording.size() == static_cast<long>(stopped_seen.size()));
    const SimulatorSeen last = recordedRow(recording, recording.size() - 1);
    CHECK(simulatorSameState(stopped_seen.back(), last.t, last.q, last.v, last.lambda));
    CHECK(stopping.step() == RunStatus::StoppedByEvent);
  }
}

TEST_CASE("Simulator: refuses what simulate() refuses, with the same words", "[simulate][simulator]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  SimulationOptions options = simulatorOptions(Integrator::CvodeAdams, Stabilization::projection());
  std::string said;
  try {
    simulate(chain, start, options);
  } catch (const std::invalid_argument& error) {
    said = error.what();
  }
  REQUIRE_THAT(said, Contains("cvode_adams cannot project"));
  CHECK_THROWS_WITH(Simulator(chain, start, options), said);
  options = simulatorOptions(Integrator::CvodeBdf, Stabilization::none());
  options.adaptive.linear_solver = NewtonLinearSolver::Sparse;
  CHECK_THROWS_WITH(Simulator(chain, start, options), Contains("CVODE setup failed: cvode_bdf has no sparse"));
}
