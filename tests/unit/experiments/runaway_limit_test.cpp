// The finite-amplitude ("runaway") limit prediction (experiments/runaway_limit.hpp,
// energy_pumping.hpp): on the linear model nothing is pumped and it is the closed form; on the
// double pendulum it predicts the bisected 20-s limit from 5-s probes; on the triple pendulum at
// dt = 0.01 it needs the default 10-s probes; the ensemble of nearby starts is what it claims.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

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

TEST_CASE("runaway limit of the triple pendulum at dt 0.01 needs probes longer than 5 s", "[experiments][runaway]") {
  // Every nearby start is quiet over 1-5 s just above the measured limit and starts pumping after
  // 5 s (docs/baumgarte.md §5): a 5-s probe cannot see it, the default 10-s probe does.
  const PendulumChain chain(PendulumChainParams::uniform(3));
  const State start = testing::stretchedChainStart(chain);
  StabilityBisectionOptions measure;
  measure.dt = 0.01;
  measure.horizon = 20.0;
  const StabilityBisection measured = bisectStabilityLimit(chain, start, measure);
  RunawayLimitOptions predict;
  predict.dt = measure.dt;
  predict.horizon = measure.horizon;
  const RunawayLimit long_probes = predictRunawayLimit(chain, start, predict);
  predict.probe_horizon = 5.0;
  const RunawayLimit short_probes = predictRunawayLimit(chain, start, predict);
  INFO("measured " << measured.limit << " runaway 10-s " << long_probes.limit << " 5-s " << short_probes.limit);
  REQUIRE(measured.found);
  REQUIRE(long_probes.found);
  REQUIRE(short_probes.found);
  CHECK(RunawayLimitOptions{}.probe_horizon == 10.0);
  CHECK(std::abs(long_probes.limit - measured.limit) < 0.02);
  CHECK(short_probes.limit - measured.limit > 0.02);
  CHECK(long_probes.verdict_at_upper == RunawayVerdict::Pumped);
}

TEST_CASE("nearby starts keep the start's error and move its velocity by the spread, in opposite pairs",
          "[experiments][runaway]") {
  const PendulumChain chain(PendulumChainParams::uniform(3));
  const State start = testing::stretchedChainStart(chain);
  const double spread = 1e-3;
  Vector phi0(chain.nc()), phi(chain.nc()), phidot0(chain.nc()), phidot(chain.nc());
  Matrix J(chain.nc(), chain.nq());
  chain.constraint(start.q, start.t, phi0);
  chain.constraintJacobian(start.q, start.t, J);
  phidot0 = J * start.v;
  const State same = nearbyStart(chain, start, 0, spread);
  CHECK(same.q == start.q);
  CHECK(same.v == start.v);
  std::vector<Vector> moves;
  for (int k = 1; k <= 4; ++k) {
    const State s = nearbyStart(chain, start, k, spread);
    chain.constraint(s.q, s.t, phi);
    phidot = J * s.v;
    CHECK(s.q == start.q);
    CHECK((phi - phi0).lpNorm<Eigen::Infinity>() == 0.0);
    // Tangential: φ̇ = J q̇ changes only by rounding.
    CHECK((phidot - phidot0).lpNorm<Eigen::Infinity>() <= 1e-14);
    const Vector move = s.v - start.v;
    CHECK(std::abs(move.lpNorm<Eigen::Infinity>() - spread) <= 1e-15);
    // Deterministic: the same index gives the same bytes.
    CHECK(nearbyStart(chain, start, k, spread).v == s.v);
    moves.push_back(move);
  }
  // Pair j moves by ±d_j (to the rounding of v ± d − v).
  CHECK((moves[0] + moves[1]).lpNorm<Eigen::Infinity>() <= 1e-15);
  CHECK((moves[2] + moves[3]).lpNorm<Eigen::Infinity>() <= 1e-15);
  CHECK((moves[0] - moves[2]).lpNorm<Eigen::Infinity>() > 0.1 * spread);  // the pairs differ
  CHECK_THROWS_WITH(nearbyStart(chain, start, -1, spread), Catch::Contains("index") && Catch::Contains("-1"));
  CHECK_THROWS_WITH(nearbyStart(chain, start, 1, -1e-3), Catch::Contains("spread"));
  State short_v = start;
  short_v.v.resize(2);
  CHECK_THROWS_WITH(nearbyStart(chain, short_v, 1, spread), Catch::Contains("start.v") && Catch::Contains("2"));
}

TEST_CASE("the ensemble's verdict is the mean rate's: averaging turns one bursting probe's verdict",
          "[experiments][runaway]") {
  RunawayLimitOptions options;
  options.dt = 0.005;
  options.horizon = 20.0;
  options.settle_time = 1.0;
  options.energy_fraction = 0.3;
  // Threshold rate: 0.3 · 10 J / 19 s = 0.158 J/s.
  EnergyPumping burst;
  burst.behaviour = ErrorBehaviour::Bounded;
  burst.e0 = 0.02;
  burst.late_max = burst.previous_max = 0.001;
  burst.steps = 2000;
  burst.mean_kinetic = 10.0;
  burst.rate = 0.30;
  EnergyPumping quiet = burst;
  quiet.rate = -0.05;
  CHECK(runawayVerdict(burst, options) == RunawayVerdict::Pumped);
  CHECK(runawayVerdict(std::vector<EnergyPumping>{burst}, options) == RunawayVerdict::Pumped);
  // Mean rate 0.125 J/s < 0.158: the burst one start drew is averaged away.
  CHECK(runawayVerdict(std::vector<EnergyPumping>{burst, quiet}, options) == RunawayVerdict::Stable);
  // …but not below the threshold when the others pump too (mean 0.2).
  EnergyPumping warm = burst;
  warm.rate = 0.10;
  CHECK(runawayVerdict(std::vector<EnergyPumping>{burst, warm}, options) == RunawayVerdict::Pumped);
  // Any unstable probe makes the ensemble unstable, whatever the others pump.
  EnergyPumping blown = quiet;
  blown.behaviour = ErrorBehaviour::BlowUp;
  CHECK(runawayVerdict(std::vector<EnergyPumping>{quiet, blown}, options) == RunawayVerdict::ProbeUnstable);
  CHECK_THROWS_WITH(runawayVerdict(std::vector<EnergyPumping>{}, options), Catch::Contains("probes"));
}

TEST_CASE("runaway limit from several starts judges every gain on the probes of its nearby starts",
          "[experiments][runaway]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = testing::stretchedChainStart(chain);
  RunawayLimitOptions options;
  options.dt = 0.01;
  options.horizon = 20.0;
  options.probe_horizon = 5.0;
  options.probe_starts = 3;
  options.start_spread = 0.05;
  const RunawayLimit limit = predictRunawayLimit(chain, start, options);
  REQUIRE(limit.found);
  // At the final lower end every probe ran and was stable; the ensemble's mean is the mean of the
  // probes run here by hand from the same nearby starts.
  REQUIRE(limit.ensemble_at_lower.probes == 3);
  CHECK(limit.ensemble_at_lower.unstable == 0);
  EnergyPumpingOptions probe;
  probe.dt = options.dt;
  probe.horizon = options.probe_horizon;
  probe.dt_omega = limit.lower;
  std::vector<EnergyPumping> by_hand;
  double sum = 0.0;
  for (int k = 0; k < 3; ++k) {
    by_hand.push_back(measureEnergyPumping(chain, nearbyStart(chain, start, k, options.start_spread), probe));
    sum += by_hand.back().rate;
  }
  CHECK(limit.at_lower.rate == by_hand[0].rate);  // the start's own probe
  CHECK(std::abs(limit.ensemble_at_lower.mean_rate - sum / 3.0) <= 1e-15 * std::abs(sum));
  CHECK(limit.ensemble_at_lower.rate_deviation > 0.0);  // 0.05 apart, the starts' rates differ
  CHECK(runawayVerdict(by_hand, options) == RunawayVerdict::Stable);
  // The upper end is unstable for the ensemble; an unstable probe ends its gain early.
  CHECK(limit.verdict_at_upper != RunawayVerdict::Stable);
  CHECK(limit.ensemble_at_upper.probes >= 1);
  CHECK(limit.ensemble_at_upper.probes <= 3);
  // The bracket's two ends and the halvings of its width (1.15 − 0.5)·closed form down to the
  // tolerance, at most three probes each.
  const double width = 0.65 * baumgarteStabilityLimit(Integrator::Rk4, 1.0);
  const int evaluations = 2 + static_cast<int>(std::ceil(std::log2(width / options.tolerance)));
  CHECK(limit.probes <= 3 * evaluations);
  CHECK(limit.probes > evaluations);
  // One start is the single-probe prediction: its ensemble is its one probe.
  options.probe_starts = 1;
  const RunawayLimit single = predictRunawayLimit(chain, start, options);
  REQUIRE(single.found);
  CHECK(single.ensemble_at_upper.probes == 1);
  CHECK(single.ensemble_at_lower.mean_rate == single.at_lower.rate);
  CHECK(single.ensemble_at_lower.rate_deviation == 0.0);
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
  options.probe_starts = 0;
  CHECK_THROWS_WITH(predictRunawayLimit(chain, start, options), Catch::Contains("probe_starts") && Catch::Contains("0"));
  options = RunawayLimitOptions{};
  options.probe_starts = 3;
  options.start_spread = 0.0;
  CHECK_THROWS_WITH(predictRunawayLimit(chain, start, options), Catch::Contains("start_spread") && Catch::Contains("3"));
  options.start_spread = -1e-3;
  CHECK_THROWS_WITH(predictRunawayLimit(chain, start, options), Catch::Contains("start_spread"));
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
