// TrajectoryRecording: the rows it stores are the observed states, their ‖φ‖∞ and energy.
#include <catch2/catch.hpp>

#include "kktdae/metrics/trajectory_recording.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/simulate/simulate.hpp"

using namespace kktdae;

TEST_CASE("trajectory recording: rows equal the observer's states, violation and energy", "[metrics][recording]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options;
  options.dt = 0.005;
  options.steps = 100;
  options.observe_every = 7;  // 100 / 7: 15 observed grid points, the last step added
  TrajectoryRecording recording(chain, 17);
  std::vector<State> seen;
  std::vector<Vector> seen_lambda;
  const Summary summary = simulate(chain, chain.initialState(0.01), options,
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
                                     recording.observe(t, q, v, lambda);
                                     seen.push_back({t, q, v});
                                     seen_lambda.emplace_back(lambda);
                                   });
  REQUIRE(summary.ok());
  REQUIRE(recording.size() == static_cast<long>(seen.size()));
  REQUIRE(recording.size() == summary.outputs);
  Vector phi(chain.nc());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    const State& s = seen[i];
    CHECK(recording.times()[i] == s.t);
    for (int k = 0; k < chain.nq(); ++k) {
      CHECK(recording.positions()[i * 6 + static_cast<std::size_t>(k)] == s.q[k]);
      CHECK(recording.velocities()[i * 6 + static_cast<std::size_t>(k)] == s.v[k]);
    }
    for (int k = 0; k < chain.nc(); ++k) CHECK(recording.multipliers()[i * 2 + static_cast<std::size_t>(k)] == seen_lambda[i][k]);
    chain.constraint(s.q, s.t, phi);
    CHECK(recording.violations()[i] == phi.lpNorm<Eigen::Infinity>());
    CHECK(recording.energies()[i] == chain.totalEnergy(s.q, s.v, s.t));
  }
  // The run drifts: the violation is a measured quantity, not a constant.
  CHECK(recording.violations().back() > recording.violations().front());
}

TEST_CASE("trajectory recording: a negative capacity is refused by name", "[metrics][recording]") {
  const PendulumChain chain(PendulumChainParams::uniform(1));
  CHECK_THROWS_WITH(TrajectoryRecording(chain, -1), Catch::Matchers::Contains("capacity"));
}

TEST_CASE("trajectory recording: reserve() grows every buffer at once and keeps the rows", "[metrics][recording]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  TrajectoryRecording recording(chain, 2);
  CHECK(recording.capacity() == 2);
  CHECK(recording.bytesPerState() == (3 + 2 * 6 + 2) * sizeof(double));
  const State start = chain.initialState(0.3);
  const Vector lambda = Vector::Constant(2, 0.5);
  recording.observe(0.0, start.q, start.v, lambda);
  recording.reserve(1);  // less than the capacity: nothing changes
  CHECK(recording.capacity() == 2);
  recording.reserve(40);
  CHECK(recording.capacity() == 40);
  CHECK(recording.positions().capacity() >= 40u * 6u);
  CHECK(recording.multipliers().capacity() >= 40u * 2u);
  CHECK(recording.energies().capacity() >= 40u);
  REQUIRE(recording.size() == 1);
  CHECK(recording.positions()[3] == start.q[3]);
  CHECK(recording.multipliers()[1] == 0.5);
}
