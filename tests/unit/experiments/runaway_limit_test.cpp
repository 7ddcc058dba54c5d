// The finite-amplitude ("runaway") limit prediction (experiments/runaway_limit.hpp,
// energy_pumping.hpp): on the linear model nothing is pumped and it is the closed form; on the
// double pendulum it predicts the bisected 20-s limit from 5-s probes.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/kktdae.hpp"
#include "support/chain_starts.hpp"

using namespace kktdae;

TEST_CASE("runaway limit on the linear model is the closed-form limit, nothing pumped", "[experiments][runaway]") {
  const PointOnPlane plane;
  const State start = plane.offManifoldState(0.01, -0.2, 0.5);
  for (Integrator integrator : {Integrator::Rk4, Integrator::SemiImplicitEuler, Integrator::ExplicitEuler}) {
    RunawayLimitOptions options;
    options.integrator = integrator;
    options.dt = 0.005;
    options.horizon = 20.0;
    const RunawayLimit limit = predictRunawayLimit(plane, start, options);
    const double closed = baumgarteStabilityLimit(integrator, 1.0);
    INFO(toString(integrator) << ": runaway " << limit.limit << " closed " << closed << " " << limit.message);
    REQUIRE(limit.found);
    // What ends the stable band is the error's own linear growth, never pumped energy.
    CHECK(limit.verdict_at_upper == RunawayVerdict::ProbeUnstable);
    // 5e-3: at ζ = 1 the error near the limit is k·ρ^k, whose tenth-to-tenth ratio (1 + n/k)·ρ^n
    // overstates the decay's end trend a little, so the prediction sits slightly below.
    CHECK(std::abs(limit.limit - closed) <= 5e-3);
  }
  // Constant J: once the error settled the correction does no work on the tangential motion, and
  // RK4 integrates the free fall along the plane exactly (a quadratic in t): nothing is pumped.
  EnergyPumpingOptions pumping;
  pumping.dt = 0.005;
  pumping.dt_omega = 1.0;
  const EnergyPumping settled = measureEnergyPumping(plane, start, pumping);
  CHECK(settled.behaviour == ErrorBehaviour::Decays);
  CHECK(std::abs(settled.rate) * pumping.horizon <= 1e-9 * settled.mean_kinetic);
}

TEST_CASE("runaway limit of the double pendulum at dt 0.005 from 5-s probes matches the bisected 20-s limit",
          "[experiments][runaway]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = testing::stretchedChainStart(chain);
  RunawayLimitOptions predict;
  predict.dt = 0.005;
  predict.horizon = 20.0;
  predict.probe_horizon = 5.0;
  const RunawayLimit runaway = predictRunawayLimit(chain, start, predict);
  StabilityBisectionOptions measure;
  measure.dt = predict.dt;
  measure.horizon = predict.horizon;
  const StabilityBisection measured = bisectStabilityLimit(chain, start, measure);
  INFO("runaway " << runaway.limit << " (" << toString(runaway.verdict_at_upper) << ") measured " << measured.limit);
  REQUIRE(runaway.found);
  REQUIRE(measured.found);
  // The probes never see the horizon: the prediction is the pumped energy carried on to T.
  CHECK(runaway.at_upper.end_time <= predict.probe_horizon + predict.dt);
  CHECK(runaway.verdict_at_upper == RunawayVerdict::Pumped);
  CHECK(runaway.at_upper.rate > 0.0);
  CHECK(std::abs(runaway.limit - measured.limit) < 0.02);
  // The normal block (the linearization) sits far above both: the runaway is what sets the limit.
  CHECK(runaway.limit < 2.70);
}

TEST_CASE("runaway and energy-pumping options are validated by field", "[experiments][runaway]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = testing::stretchedChainStart(chain);
  RunawayLimitOptions options;
  options.probe_horizon = 0.0;
  CHECK_THROWS_WITH(predictRunawayLimit(chain, start, options), Catch::Contains("probe_horizon"));
  options = RunawayLimitOptions{};
  options.energy_fraction = -0.1;
  CHECK_THROWS_WITH(predictRunawayLimit(chain, start, options), Catch::Contains("energy_fraction"));
  options = RunawayLimitOptions{};
  options.integrator = Integrator::CvodeBdf;
  CHECK_THROWS_WITH(predictRunawayLimit(chain, start, options), Catch::Contains("integrator"));
  EnergyPumpingOptions pumping;
  pumping.horizon = 1.0;
  pumping.min_steps = 10;
  pumping.settle_time = 1.0;  // the whole run: nothing left to fit
  CHECK_THROWS_WITH(measureEnergyPumping(chain, start, pumping), Catch::Contains("settle_time"));
  pumping = EnergyPumpingOptions{};
  pumping.dt_omega = 0.0;
  CHECK_THROWS_WITH(measureEnergyPumping(chain, start, pumping), Catch::Contains("dt_omega"));
  // On the manifold there is no correction to pump with.
  CHECK_THROWS_WITH(measureEnergyPumping(chain, chain.initialState(0.3), EnergyPumpingOptions{}),
                    Catch::Contains("start"));
}
