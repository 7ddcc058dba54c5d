// The Simulator keeps simulate()'s divergence rules: a run simulate() ends as Diverged (seed
// 000's projection mode, which blows up on the manifold; a healthy adaptive run under an energy
// rule set too tight) ends in the Simulator at the same step with the same message, the state the
// last good one, and the failure sticks until reset().
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "kktdae/kktdae.hpp"
#include "support/chain_starts.hpp"
#include "support/same_bits.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;
using kktdae::testing::sameToTheBit;

namespace {

/// The last state simulate() observed, and its summary.
struct LastSeen {
  Summary summary;
  double t = std::nan("");
  Vector q, v;
};

LastSeen simulateToTheEnd(const ConstrainedSystem& system, const State& start, const SimulationOptions& options) {
  LastSeen last;
  last.summary = simulate(system, start, options, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    last.t = t;
    last.q = q;
    last.v = v;
  });
  return last;
}

}  // namespace

TEST_CASE("simulator divergence: seed 000's projection mode ends as diverged at simulate()'s step, with its message",
          "[simulator][divergence]") {
  // The double pendulum under semi-implicit Euler with projection after every step stays on φ = 0
  // and gains energy until the energy rule ends simulate() between 10 s and 11 s (runaway_test.cpp).
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(testing::kSeed0Tilt);
  SimulationOptions options;
  options.dt = 0.005;
  options.steps = 4000;
  options.stabilization = Stabilization::projection();
  const LastSeen simulated = simulateToTheEnd(chain, start, options);
  REQUIRE(simulated.summary.status == RunStatus::Diverged);
  REQUIRE(simulated.summary.t_final > 10.0);

  Simulator simulator(chain, start, options);
  CHECK(simulator.advanceTo(20.0) == RunStatus::Diverged);
  CHECK(simulator.status() == RunStatus::Diverged);
  CHECK(simulator.message() == simulated.summary.message);
  CHECK_THAT(simulator.message(), Contains("diverged at step") && Contains("total energy"));
  CHECK(simulator.t() == simulated.t);
  CHECK(sameToTheBit(simulator.state().q, simulated.q));
  CHECK(sameToTheBit(simulator.state().v, simulated.v));
  CHECK(simulator.steps() == simulated.summary.steps);
  CHECK(simulator.summary().status == RunStatus::Diverged);
  // Sticky until reset(), which starts a fresh run with fresh scales.
  CHECK(simulator.step() == RunStatus::Diverged);
  simulator.reset(start);
  CHECK(simulator.status() == RunStatus::Success);
  CHECK(simulator.advanceTo(1.0) == RunStatus::Success);

  // One step at a time, the same: the rules do not depend on how the run is called.
  Simulator stepped(chain, start, options);
  RunStatus status = RunStatus::Success;
  while (status == RunStatus::Success && stepped.steps() < 4000) status = stepped.step();
  CHECK(status == RunStatus::Diverged);
  CHECK(stepped.message() == simulated.summary.message);

  // A runaway rule that fires only at simulate()'s last step (checked there and at step 1 alone)
  // fires in the Simulator at that step too: the end of 11 s is past 100 E_s.
  SimulationOptions last_only = options;
  last_only.steps = 2200;
  last_only.divergence.runaway_check_every = 1000000;
  const LastSeen ended = simulateToTheEnd(chain, start, last_only);
  REQUIRE(ended.summary.status == RunStatus::Diverged);
  REQUIRE(ended.summary.failed_step == 2200);
  Simulator at_the_end(chain, start, last_only);
  CHECK(at_the_end.advanceTo(20.0) == RunStatus::Diverged);
  CHECK(at_the_end.message() == ended.summary.message);
  CHECK(at_the_end.t() == ended.t);

  // Without the energy rule the blow-up on the manifold passes as a success: the rule stops it.
  options.divergence.energy_factor = std::numeric_limits<double>::infinity();
  options.divergence.velocity_factor = std::numeric_limits<double>::infinity();
  Simulator unchecked(chain, start, options);
  CHECK(unchecked.advanceTo(12.0) == RunStatus::Success);
}

TEST_CASE("simulator divergence: the adaptive integrators test every rule where each call ends, as simulate() at its outputs",
          "[simulator][divergence][sundials]") {
  // A healthy run under an energy rule far too tight for it (1e-7 of E_s, where the integrator's
  // own drift is larger): simulate() ends it at some output, and a Simulator advanced over the
  // same grid ends at the same call with the same message, at the last good output.
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.4);
  for (const Integrator integrator : {Integrator::CvodeBdf, Integrator::IdaGgl}) {
    INFO(toString(integrator));
    SimulationOptions options;
    options.integrator = integrator;
    options.dt = 0.05;
    options.end_time = 3.0;
    options.adaptive.rtol = options.adaptive.atol = 1e-6;
    if (integrator == Integrator::CvodeBdf) options.stabilization = Stabilization::baumgarte(10.0, 10.0);
    options.divergence.energy_factor = 1e-7;
    const LastSeen simulated = simulateToTheEnd(chain, start, options);
    INFO(simulated.summary.message);
    REQUIRE(simulated.summary.status == RunStatus::Diverged);
    CHECK_THAT(simulated.summary.message, Contains("total energy"));

    Simulator simulator(chain, start, options);
    RunStatus status = RunStatus::Success;
    for (int k = 1; k <= 60 && status == RunStatus::Success; ++k) status = simulator.advanceTo(0.05 * k);
    CHECK(status == RunStatus::Diverged);
    CHECK(simulator.message() == simulated.summary.message);
    CHECK(simulator.t() == simulated.t);
    CHECK(sameToTheBit(simulator.state().q, simulated.q));
    CHECK(simulator.step() == RunStatus::Diverged);

    // The default rules let the same run through.
    options.divergence = DivergenceOptions{};
    Simulator healthy(chain, start, options);
    CHECK(healthy.advanceTo(3.0) == RunStatus::Success);
  }
}
