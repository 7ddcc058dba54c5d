// measureChainState: one pass over a chain's state gives the very bits of the chain's own
// linkLengthViolation(), totalEnergy() and tip(), which seed 000's metrics.json was built from.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>

#include "kktdae/metrics/chain_metrics.hpp"
#include "kktdae/metrics/chain_state_measures.hpp"
#include "kktdae/metrics/chain_trace.hpp"
#include "kktdae/metrics/energy_drift.hpp"
#include "kktdae/models/pendulum_chain.hpp"

using namespace kktdae;

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// A chain with unequal masses and lengths, an off-origin pivot and non-default gravity, so that
/// every parameter enters the sums.
PendulumChain unevenChain(int links) {
  PendulumChainParams params;
  for (int k = 0; k < links; ++k) {
    params.masses.push_back(0.7 + 0.31 * k);
    params.lengths.push_back(1.3 - 0.17 * k);
  }
  params.gravity = 9.7;
  params.pivot = Eigen::Vector3d(0.25, -0.5, 0.125);
  return PendulumChain(params);
}

}  // namespace

TEST_CASE("chain state measures: bit-identical to the chain's violation, energy and tip", "[metrics][chain]") {
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> spread(-3.0, 3.0);
  for (const int links : {1, 2, 3, 7}) {
    for (const bool uniform : {true, false}) {
      const PendulumChain chain = uniform ? PendulumChain(PendulumChainParams::uniform(links)) : unevenChain(links);
      Vector q(chain.nq()), v(chain.nq());
      for (int trial = 0; trial < 200; ++trial) {
        for (int i = 0; i < chain.nq(); ++i) {
          q[i] = spread(rng);
          v[i] = spread(rng);
        }
        const double t = 0.1 * trial;
        const ChainStateMeasures measures = measureChainState(chain, q, v, t);
        INFO("links " << links << (uniform ? " uniform" : " uneven") << ", trial " << trial);
        REQUIRE(sameBits(measures.violation, chain.linkLengthViolation(q)));
        REQUIRE(sameBits(measures.energy, chain.totalEnergy(q, v, t)));
        const Eigen::Vector3d tip = chain.tip(q);
        for (int c = 0; c < 3; ++c) REQUIRE(sameBits(measures.tip[c], tip[c]));
      }
    }
  }
}

TEST_CASE("chain state measures: the metrics and the trace equal those of the chain's own functions", "[metrics][chain]") {
  const PendulumChain chain = unevenChain(3);
  ChainMetricsObserver by_state(chain), by_measures(chain);
  ChainTrace trace_by_state, trace_by_measures;
  EnergyDrift reference_energy(chain);  // through the virtual totalEnergy(), not measureChainState
  double reference_max = 0.0, reference_final = 0.0;
  State state = chain.initialState(0.02);
  for (int step = 0; step < 50; ++step) {
    state.v.setConstant(0.01 * step);  // the energy and its drift change from state to state
    state.q[1] -= 0.001 * step;        // and so does the violation
    const double t = 0.01 * step;
    by_state.observe(t, state.q, state.v);
    by_measures.observe(measureChainState(chain, state.q, state.v, t));
    trace_by_state.append(chain, t, state.q, state.v);
    trace_by_measures.append(t, measureChainState(chain, state.q, state.v, t));
    reference_energy.observe(t, state.q, state.v);
    reference_final = chain.linkLengthViolation(state.q);
    reference_max = std::max(reference_max, reference_final);
    REQUIRE(sameBits(trace_by_measures.energy.back(), chain.totalEnergy(state.q, state.v, t)));
    REQUIRE(sameBits(trace_by_measures.violation.back(), reference_final));
  }
  const ChainRunMetrics a = by_state.metrics(), b = by_measures.metrics();
  REQUIRE(a.samples == 50);
  REQUIRE(b.samples == 50);
  REQUIRE(reference_max > 0.0);
  REQUIRE(reference_energy.maxAbsDrift() > 0.0);
  for (const ChainRunMetrics& m : {a, b}) {
    REQUIRE(sameBits(m.max_violation, reference_max));
    REQUIRE(sameBits(m.final_violation, reference_final));
    REQUIRE(sameBits(m.energy_rel_max, reference_energy.maxAbsDrift() / chain.energyScale()));
    REQUIRE(m.tip_final == chain.tip(state.q));
  }
  REQUIRE(trace_by_state.energy == trace_by_measures.energy);
  REQUIRE(trace_by_state.violation == trace_by_measures.violation);
  REQUIRE(trace_by_state.tip_x == trace_by_measures.tip_x);
  REQUIRE(trace_by_state.tip_y == trace_by_measures.tip_y);
}
